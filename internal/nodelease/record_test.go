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
