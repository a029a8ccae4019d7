package nodelease

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/fastid/scru128/internal/clock"
	"github.com/fastid/scru128/scru64"
)

// TestNextBoundFollowsThePace pins the arithmetic of the background raise:
// the bound follows the clock at Acquire plus monotonic time, so a wall
// clock a day ahead moves it only once an ID has been minted at it.
func TestNextBoundFollowsThePace(t *testing.T) {
	var offset atomic.Int64
	wall := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	spec, err := scru64.NewNodeSpecWithNodeID(1, 8)
	if err != nil {
		t.Fatal(err)
	}
	n := &Node{gen: scru64.NewGenerator(spec), clock: clock.NewWithWall(wall, time.Millisecond)}
	mono := clock.Mono()
	n.pace = pace{tick: n.clock.MillisAt(mono) >> 8, mono: mono}
	trueTick := func() uint64 { return uint64(time.Now().UnixMilli()) >> 8 }
	near := func(what string, bound uint64) {
		t.Helper()
		if lo, hi := trueTick()+boundLeadTicks-1, trueTick()+boundLeadTicks+1; bound < lo || bound > hi {
			t.Fatalf("%s: bound %d, want the true tick plus the lead, %d..%d", what, bound, lo, hi)
		}
	}

	first, ok := n.nextBound(0, true)
	if !ok {
		t.Fatal("a forced raise did not write")
	}
	near("at Acquire", first)
	if _, ok := n.nextBound(first, false); ok {
		t.Fatal("the loop raised a bound that still had the whole lead left")
	}

	offset.Store(int64(24 * time.Hour)) // the wall clock jumps; nothing is minted
	time.Sleep(5 * time.Millisecond)    // the clock re-anchors every millisecond here
	if _, ok := n.nextBound(first, false); ok {
		t.Fatal("a wall clock a day ahead, nothing minted, made the loop raise the bound")
	}
	forced, _ := n.nextBound(first, true)
	near("forced, the wall clock a day ahead, nothing minted", forced)

	// An ID minted at the jumped clock must be covered, and the pace
	// follows the clock it was minted at.
	id, err := n.gen.GenerateOrAbortCore(n.clock.Millis(), scru64.DefaultRollbackAllowance)
	if err != nil {
		t.Fatal(err)
	}
	raised, ok := n.nextBound(forced, false)
	if !ok || raised < id.Timestamp()+boundLeadTicks {
		t.Fatalf("after a mint a day ahead: bound %d (write %v), want at least %d", raised, ok, id.Timestamp()+boundLeadTicks)
	}
	if n.pace.tick < id.Timestamp() {
		t.Fatalf("the pace stayed at %d below the minted tick %d", n.pace.tick, id.Timestamp())
	}

	// A bound never goes down, whatever the clock does.
	offset.Store(0)
	time.Sleep(5 * time.Millisecond)
	if again, ok := n.nextBound(raised, true); !ok || again < raised {
		t.Fatalf("after the clock went back: bound %d, want at least %d", again, raised)
	}
}

// TestAdoptKnowsItsOwnPendingBounds pins which records a node takes for
// one of its own writes whose answers were lost: a bound in the range of
// the bounds it sent, of its node ID's high-water form, or exactly one of
// its other writes; never a record below the range (etcd took it back),
// above it, of another form, or of another node ID.
func TestAdoptKnowsItsOwnPendingBounds(t *testing.T) {
	const nodeID, size = 5, 8
	text := func(id scru64.ID) string { s, _ := id.AppendText(nil); return string(s) }
	bound := func(tick uint64) string { return text(highWater(tick, nodeID, size)) }
	last, _ := scru64.FromParts(7_000_000_050, nodeID<<16|42)
	for _, tc := range []struct {
		name  string
		found Record
		want  bool
	}{
		{"the lowest bound sent", Record{bound(7_000_000_100), 9}, true},
		{"a bound between", Record{bound(7_000_000_105), 9}, true},
		{"the highest bound sent", Record{bound(7_000_000_120), 9}, true},
		{"a bound below the range", Record{bound(7_000_000_099), 9}, false},
		{"a bound above the range", Record{bound(7_000_000_121), 9}, false},
		{"another node ID's bound", Record{text(highWater(7_000_000_110, nodeID+1, size)), 9}, false},
		{"an ID that is no bound", Record{text(scru64.ID(uint64(highWater(7_000_000_110, nodeID, size)) - 1)), 9}, false},
		{"garbage", Record{"not an ID at all", 9}, false},
		{"Close's last ID", Record{text(last), 9}, true},
		{"absent", Record{}, false},
	} {
		n := &Node{nodeID: nodeID, size: size}
		n.fence = fence{revision: 3, value: bound(7_000_000_090)}
		for _, tick := range []uint64{7_000_000_110, 7_000_000_100, 7_000_000_120} {
			n.fence.pending.add(pendingWrite{value: bound(tick)}, true)
		}
		n.fence.pending.add(pendingWrite{value: text(last)}, false)
		n.fence.pending.add(pendingWrite{value: text(last)}, false) // a retry: kept once
		if len(n.fence.pending.others) != 1 {
			t.Fatalf("other pending writes: %v", n.fence.pending.others)
		}
		if got := n.adopt(tc.found); got != tc.want {
			t.Errorf("%s: adopt(%+v) = %v, want %v", tc.name, tc.found, got, tc.want)
		}
		if tc.want && (n.fence.revision != tc.found.ModRevision || n.fence.value != tc.found.Value || n.fence.pending.any()) {
			t.Errorf("%s: fence after adopting %+v", tc.name, n.fence)
		}
	}
	// A pending delete is found as an absent record.
	n := &Node{nodeID: nodeID, size: size}
	n.fence.pending.add(pendingWrite{delete: true}, false)
	if !n.adopt(Record{}) {
		t.Error("a pending delete was not adopted as an absent record")
	}
}
