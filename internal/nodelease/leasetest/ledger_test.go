package leasetest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/fastid/scru128/scru64"
)

// recorder is a testing.TB that keeps what Check reports.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper()             {}
func (r *recorder) Logf(string, ...any) {}
func (r *recorder) Failed() bool        { return len(r.errs) > 0 }
func (r *recorder) Errorf(format string, a ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, a...))
}

// id is the ID of node nodeID (of size 8) at timestamp ts with counter c.
func id(ts uint64, nodeID uint32, c uint32) scru64.ID {
	return scru64.ID(ts<<24 | uint64(nodeID)<<16 | uint64(c))
}

// TestCheck feeds the ledger each way the fleet's promises can break, and
// one way they hold.
func TestCheck(t *testing.T) {
	for _, c := range []struct {
		name string
		fill func(l *Ledger)
		want string // in the one error reported; "" for none
	}{
		{"holders in order", func(l *Ledger) {
			l.Holder("a", 3, 8).Add(id(100, 3, 0), id(100, 3, 1))
			l.Holder("b", 4, 8).Add(id(100, 4, 0))
			l.Holder("c", 3, 8).Add(id(101, 3, 0))
		}, ""},
		{"an ID issued twice", func(l *Ledger) {
			l.Holder("a", 3, 8).Add(id(100, 3, 0), id(100, 3, 0))
		}, "1 of 2 IDs were issued twice"},
		{"a later holder not above", func(l *Ledger) {
			l.Holder("a", 3, 8).Add(id(100, 3, 5))
			l.Holder("b", 3, 8).Add(id(100, 3, 4), id(101, 3, 0))
		}, "b, holder of node ID 3 after a, minted"},
		{"another node ID", func(l *Ledger) {
			l.Holder("a", 3, 8).Add(id(100, 4, 0))
		}, "a (node ID 3) issued"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var l Ledger
			c.fill(&l)
			r := &recorder{TB: t}
			l.Check(r)
			switch {
			case c.want == "" && len(r.errs) > 0:
				t.Errorf("Check reported %q", r.errs)
			case c.want != "" && (len(r.errs) != 1 || !strings.Contains(r.errs[0], c.want)):
				t.Errorf("Check reported %q, want one error with %q", r.errs, c.want)
			}
		})
	}
}

// TestMinting: the loop records every ID before the error that ends it,
// and waits out the error it is told to.
func TestMinting(t *testing.T) {
	var l Ledger
	h := l.Holder("a", 3, 8)
	stalled, lost := errors.New("stalled"), errors.New("lost")
	calls := 0
	generate := func() (scru64.ID, error) {
		calls++
		switch {
		case calls == 5:
			return 0, stalled
		case calls > 10:
			return 0, lost
		}
		return id(100, 3, uint32(calls)), nil
	}
	if err := <-Minting(generate, h, 4, stalled); err != lost {
		t.Fatalf("Minting ended with %v, want %v", err, lost)
	}
	if got := len(h.ids); got != 9 {
		t.Errorf("the holder has %d IDs, want 9 (10 calls less the stall)", got)
	}
	if h.Max() != id(100, 3, 10) {
		t.Errorf("Max = %v, want %v", h.Max(), id(100, 3, 10))
	}
}
