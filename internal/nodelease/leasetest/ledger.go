// Package leasetest holds what the fault harnesses of scru64/etcdnode and
// scru64/pgnode share: a ledger of every ID a scenario minted, which checks
// the fleet's two promises, and a loop that mints into it.
package leasetest

import (
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fastid/scru128/scru64"
)

// A Ledger records every ID minted in a scenario, by holder, to check the
// two promises of the fleet: no ID is issued twice, and each holder of a
// node ID mints strictly above every earlier holder of it. The zero Ledger
// is empty and ready for use; it is safe for concurrent use.
type Ledger struct {
	mu      sync.Mutex
	holders []*Holder // in the order they took their node IDs
}

// A Holder is one tenure of a node ID: a node from its acquire to its end,
// or one run of the command-line tool.
type Holder struct {
	name   string
	nodeID uint32
	size   uint8
	ids    []scru64.ID
	l      *Ledger
}

// Node is what HolderOf reads of a leased node.
type Node interface {
	NodeID() uint32
	NodeIDSize() uint8
}

// HolderOf starts the record of n's tenure (see Holder).
func (l *Ledger) HolderOf(name string, n Node) *Holder {
	return l.Holder(name, n.NodeID(), n.NodeIDSize())
}

// Holder starts the record of a tenure. Call it once the holder has its
// node ID and before a later holder of the same node ID can have it.
func (l *Ledger) Holder(name string, nodeID uint32, size uint8) *Holder {
	l.mu.Lock()
	defer l.mu.Unlock()
	h := &Holder{name: name, nodeID: nodeID, size: size, l: l}
	l.holders = append(l.holders, h)
	return h
}

// Add records IDs that h minted.
func (h *Holder) Add(ids ...scru64.ID) {
	h.l.mu.Lock()
	h.ids = append(h.ids, ids...)
	h.l.mu.Unlock()
}

// Max returns the largest ID h minted so far, or 0.
func (h *Holder) Max() scru64.ID {
	h.l.mu.Lock()
	defer h.l.mu.Unlock()
	if len(h.ids) == 0 {
		return 0
	}
	return slices.Max(h.ids)
}

// Check fails the test if an ID was issued twice, if an ID carries another
// node ID than its holder's, or if a holder of a node ID minted an ID not
// above every ID of the holders before it; otherwise it logs how many IDs
// it checked.
func (l *Ledger) Check(t testing.TB) {
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

// Minting calls generate in the background, recording its IDs in h, until
// it returns an error, and returns a channel that receives that error.
// It pauses for a millisecond every batch IDs, so that the loop leaves a
// core for the server. An error matching waitOut (if it is not nil) is
// waited out, as a caller that hears it would: generate is called again
// 10 ms later.
func Minting(generate func() (scru64.ID, error), h *Holder, batch int, waitOut error) <-chan error {
	done := make(chan error, 1)
	go func() {
		ids := make([]scru64.ID, 0, batch)
		for {
			id, err := generate()
			if waitOut != nil && errors.Is(err, waitOut) {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			if err != nil {
				h.Add(ids...)
				done <- err
				return
			}
			if ids = append(ids, id); len(ids) == cap(ids) {
				h.Add(ids...)
				ids = ids[:0]
				time.Sleep(time.Millisecond)
			}
		}
	}()
	return done
}
