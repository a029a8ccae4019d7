package etcdnode_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/fastid/scru128/internal/nodelease"
	"github.com/fastid/scru128/scru64"
)

// ledger records every ID minted in a scenario, by holder, to check the two
// promises of the fleet: no ID is issued twice, and each holder of a node
// ID mints strictly above every earlier holder of it.
type ledger struct {
	mu      sync.Mutex
	holders []*holder // in the order they took their node IDs
}

// holder is one tenure of a node ID: a Node from Acquire to its end, or
// one run of the command-line tool.
type holder struct {
	name   string
	nodeID uint32
	size   uint8
	ids    []scru64.ID
	l      *ledger
}

// holderOf starts the record of a Node's tenure (see holder).
func (l *ledger) holderOf(name string, n *nodelease.Node) *holder {
	return l.holder(name, n.NodeID(), n.NodeIDSize())
}

// holder starts the record of a tenure. Call it once the holder has its
// node ID and before a later holder of the same node ID can have it.
func (l *ledger) holder(name string, nodeID uint32, size uint8) *holder {
	l.mu.Lock()
	defer l.mu.Unlock()
	h := &holder{name: name, nodeID: nodeID, size: size, l: l}
	l.holders = append(l.holders, h)
	return h
}

func (h *holder) add(ids ...scru64.ID) {
	h.l.mu.Lock()
	h.ids = append(h.ids, ids...)
	h.l.mu.Unlock()
}

// max returns the largest ID h minted so far, or 0.
func (h *holder) max() scru64.ID {
	h.l.mu.Lock()
	defer h.l.mu.Unlock()
	if len(h.ids) == 0 {
		return 0
	}
	return slices.Max(h.ids)
}

// check fails the test if an ID was issued twice, if an ID carries another
// node ID than its holder's, or if a holder of a node ID minted an ID not
// above every ID of the holders before it.
func (l *ledger) check(t testing.TB) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var all []scru64.ID
	prevMax := map[uint32]scru64.ID{}
	prevName := map[uint32]string{}
	for _, h := range l.holders {
		if len(h.ids) == 0 {
			continue
		}
		low, high := slices.Min(h.ids), slices.Max(h.ids)
		for _, id := range h.ids {
			if got := id.NodeCtr() >> (24 - h.size); got != h.nodeID {
				t.Errorf("%s (node ID %d) issued %v, which carries node ID %d", h.name, h.nodeID, id, got)
				return
			}
		}
		if last, ok := prevMax[h.nodeID]; ok && low <= last {
			t.Errorf("%s, holder of node ID %d after %s, minted %v, not above %s's %v",
				h.name, h.nodeID, prevName[h.nodeID], low, prevName[h.nodeID], last)
		}
		prevMax[h.nodeID], prevName[h.nodeID] = max(prevMax[h.nodeID], high), h.name
		all = append(all, h.ids...)
	}
	slices.Sort(all)
	dups := 0
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			dups++
		}
	}
	if dups > 0 {
		t.Errorf("%d of %d IDs were issued twice", dups, len(all))
	}
	if t.Failed() {
		return
	}
	t.Logf("ledger: %d IDs from %d holders, each unique, holders in order", len(all), len(l.holders))
}

// minting mints from n into h in the background until n fails, pausing
// briefly every 64 IDs so that the loop leaves a core for etcd, and returns
// a channel that receives n's error.
func minting(n *nodelease.Node, h *holder) <-chan error { return mintingEvery(n, h, 64) }

// mintingEvery is minting that pauses every batch IDs: 1 for a node that
// must mint on for a while without filling the ledger with millions.
func mintingEvery(n *nodelease.Node, h *holder, batch int) <-chan error {
	done := make(chan error, 1)
	go func() {
		ids := make([]scru64.ID, 0, batch)
		for {
			id, err := n.Generate()
			if err != nil {
				h.add(ids...)
				done <- err
				return
			}
			if ids = append(ids, id); len(ids) == cap(ids) {
				h.add(ids...)
				ids = ids[:0]
				time.Sleep(time.Millisecond)
			}
		}
	}()
	return done
}

// recordKeyOf returns the continuity record's key of a node ID.
func recordKeyOf(prefix string, nodeID uint32) string {
	return fmt.Sprintf("%slast/%07d", prefix, nodeID)
}

// readRecord reads a continuity record with a client of the test's own.
func readRecord(t testing.TB, c *clientv3.Client, key string) (scru64.ID, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := c.Get(ctx, key)
	if err != nil {
		t.Fatalf("reading %s: %v", key, err)
	}
	if len(resp.Kvs) == 0 {
		return 0, false
	}
	id, err := scru64.Parse(string(resp.Kvs[0].Value))
	if err != nil {
		t.Fatalf("record %s = %q: %v", key, resp.Kvs[0].Value, err)
	}
	return id, true
}

// acquireWhenFree acquires with cfg, retrying while the node ID is held,
// for up to within.
func acquireWhenFree(t *testing.T, store nodelease.Store, cfg nodelease.Config, within time.Duration) *nodelease.Node {
	t.Helper()
	for deadline := time.Now().Add(within); ; {
		n, err := tryAcquire(store, cfg)
		switch {
		case err == nil:
			t.Cleanup(func() { closeSoon(n) })
			return n
		case !errors.Is(err, nodelease.ErrNoFreeNodeID):
			t.Fatal(err)
		case time.Now().After(deadline):
			t.Fatalf("the node ID was not free within %v", within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitDone waits until n stops minting, for up to within, and returns its
// error.
func waitDone(t *testing.T, n *nodelease.Node, within time.Duration) error {
	t.Helper()
	select {
	case <-n.Done():
		return n.Err()
	case <-time.After(within):
		t.Fatalf("the node still mints %v later", within)
		return nil
	}
}
