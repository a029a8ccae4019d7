package clock

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestFollowsTimeNow checks the package's promise: never behind the wall
// clock read before, and at most MaxLead ahead of the one read after.
func TestFollowsTimeNow(t *testing.T) {
	c := New()
	for range 100 {
		before := uint64(time.Now().UnixMilli())
		got := c.Millis()
		after := uint64(time.Now().Add(MaxLead).UnixMilli())
		if got < before || got > after {
			t.Fatalf("Millis = %d, outside [%d, %d]", got, before, after)
		}
	}
}

// fakeWall is a wall clock that runs with real time from a base that a test
// can step forward and back.
type fakeWall struct {
	start time.Time
	base  atomic.Int64 // Unix ms at start
}

func (f *fakeWall) now() time.Time {
	return time.UnixMilli(f.base.Load()).Add(time.Since(f.start))
}

func TestFollowsSteppedWallClock(t *testing.T) {
	const base = 1_700_000_000_000
	w := &fakeWall{start: time.Now()}
	w.base.Store(base)
	const interval = 5 * time.Millisecond
	c := NewWithWall(w.now, interval)

	near := func(want int64) {
		t.Helper()
		// Within one interval of a step the clock must follow it.
		deadline := time.Now().Add(time.Second)
		for {
			got := int64(c.Millis())
			wantNow := w.now().UnixMilli()
			if d := got - wantNow; d >= -1 && d <= 1 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("Millis = %d, wall = %d (step to %d not followed)", got, wantNow, want)
			}
			time.Sleep(time.Millisecond)
		}
	}
	near(base)
	stepped := time.Now()
	w.base.Add(3_600_000) // forward an hour
	near(base + 3_600_000)
	w.base.Add(-7_200_000) // back two hours
	near(base - 3_600_000)
	if time.Since(stepped) > time.Second/2 {
		t.Logf("following the steps took %v", time.Since(stepped))
	}
}

func TestDoesNotFollowStepBeforeInterval(t *testing.T) {
	w := &fakeWall{start: time.Now()}
	w.base.Store(1_700_000_000_000)
	c := NewWithWall(w.now, time.Hour)
	before := c.Millis()
	w.base.Add(-60_000)
	if got := c.Millis(); got < before {
		t.Fatalf("clock stepped back to %d before its interval (was %d)", got, before)
	}
}

func TestBeforeEpochIsZero(t *testing.T) {
	c := NewWithWall(func() time.Time { return time.Unix(-10, 0) }, time.Hour)
	if got := c.Millis(); got != 0 {
		t.Fatalf("Millis before 1970 = %d, want 0", got)
	}
}

func TestConcurrentReanchor(t *testing.T) {
	c := NewWithWall(nil, time.Microsecond)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10000 {
				before := uint64(time.Now().UnixMilli())
				got := c.Millis()
				after := uint64(time.Now().UnixMilli())
				if got+1 < before || got > after+1 {
					t.Errorf("Millis = %d, outside [%d, %d]", got, before, after)
					return
				}
			}
		}()
	}
	wg.Wait()
}

var sink uint64

func BenchmarkMillis(b *testing.B) {
	c := New()
	for b.Loop() {
		sink = c.Millis()
	}
}

// BenchmarkMillisReanchoring is Millis re-anchoring at every call: what a
// re-anchor costs, once per interval.
func BenchmarkMillisReanchoring(b *testing.B) {
	c := NewWithWall(nil, time.Nanosecond)
	for b.Loop() {
		sink = c.Millis()
	}
}

func BenchmarkTimeNow(b *testing.B) {
	for b.Loop() {
		sink = uint64(time.Now().UnixMilli())
	}
}

// TestZeroClock checks that a zero Clock follows the wall clock from its
// first reading, even when many goroutines take that reading at once: none
// may see the offset before the first anchor has set it.
func TestZeroClock(t *testing.T) {
	for range 20 {
		var c Clock
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				before := uint64(time.Now().UnixMilli())
				got := c.Millis()
				after := uint64(time.Now().UnixMilli())
				if got+1 < before || got > after+1 {
					t.Errorf("zero Clock: Millis = %d, outside [%d, %d]", got, before, after)
				}
			}()
		}
		wg.Wait()
		if d := c.deadline.Load() - int64(time.Since(origin)); d <= 0 || d > int64(DefaultInterval) {
			t.Fatalf("zero Clock re-anchors in %v, want within DefaultInterval", time.Duration(d))
		}
	}
}

// TestReanchorsDoNotOverlap re-anchors on every reading from 64 goroutines
// while the wall clock steps forward by an hour at each read of it. Each
// goroutine's readings must never go back: a re-anchor that stalled
// before storing its offset must not store it over a later one's, which
// would take the clock back across the steps made meanwhile.
func TestReanchorsDoNotOverlap(t *testing.T) {
	var steps atomic.Int64
	base := time.Now()
	c := NewWithWall(func() time.Time { return base.Add(time.Duration(steps.Add(1)) * time.Hour) }, time.Nanosecond)
	var wg sync.WaitGroup
	var failed atomic.Bool
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := uint64(0)
			for range 50_000 {
				now := c.Millis()
				if now < last {
					if failed.CompareAndSwap(false, true) {
						t.Errorf("the clock went back from %d to %d", last, now)
					}
					return
				}
				last = now
			}
		}()
	}
	wg.Wait()
}
