package etcdnode_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/fastid/scru128/internal/nodelease"
	"github.com/fastid/scru128/internal/nodelease/leasetest"
	"github.com/fastid/scru128/scru64"
)

// ledger records every ID a scenario minted, by holder, and checks that
// none was issued twice and that each holder of a node ID minted above the
// ones before it (see leasetest.Ledger).
type ledger = leasetest.Ledger

// holder is one tenure of a node ID: a Node from Acquire to its end, or
// one run of the command-line tool.
type holder = leasetest.Holder

// minting mints from n into h in the background until n fails, pausing
// briefly every 64 IDs so that the loop leaves a core for etcd, and returns
// a channel that receives n's error.
func minting(n *nodelease.Node, h *holder) <-chan error { return mintingEvery(n, h, 64) }

// mintingEvery is minting that pauses every batch IDs: 1 for a node that
// must mint on for a while without filling the ledger with millions.
func mintingEvery(n *nodelease.Node, h *holder, batch int) <-chan error {
	return leasetest.Minting(n.Generate, h, batch, nil)
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
