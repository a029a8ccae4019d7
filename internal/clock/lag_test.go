package clock

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// busy keeps every P spinning until the test ends, so that a goroutine
// descheduled in the middle of a re-anchor waits for a time slice before
// it runs again: the load under which a re-anchor's readings drift apart.
func busy(t *testing.T) {
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
			}
		}()
	}
	t.Cleanup(func() { stop.Store(true); wg.Wait() })
}

// readLead returns how far c reads ahead of the wall clock, in ns, as two
// bounds: the offset applied to one monotonic reading, compared with
// time.Now read just before it (an upper bound of the lead, negative only
// if c is behind) and just after it (a lower bound).
func readLead(c *Clock) (atLeast, atMost int64) {
	before := time.Now().UnixNano()
	at := Mono() + c.offset.Load()
	after := time.Now().UnixNano()
	return at - after, at - before
}

// millisNeverBehind reads c from every P at once, rounds times each, and
// fails if a reading is behind the wall clock read before it, or ahead of
// the wall clock read after it plus MaxLead: the package's promise, at
// Millis's resolution.
func millisNeverBehind(t *testing.T, c *Clock, rounds int) {
	t.Helper()
	var wg sync.WaitGroup
	var failed atomic.Bool
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				before := uint64(time.Now().UnixMilli())
				got := c.Millis()
				after := uint64(time.Now().Add(MaxLead).UnixMilli())
				if (got < before || got > after) && failed.CompareAndSwap(false, true) {
					t.Errorf("Millis = %d, wall clock %d before it and %d (plus MaxLead) after",
						got, before, after)
				}
			}
		}()
	}
	wg.Wait()
}

// TestNeverBehindAStalledReanchor re-anchors on every reading, under load,
// from a wall clock that yields between its reading and its return: a
// re-anchor descheduled between the wall and monotonic readings, which
// time.Now takes one after the other, widened from nanoseconds to a time
// slice. An offset computed from the late monotonic reading is low by the
// stall, and every Millis until the next re-anchor lags by as much.
func TestNeverBehindAStalledReanchor(t *testing.T) {
	busy(t)
	stalling := func() time.Time {
		now := time.Now()
		runtime.Gosched()
		return now
	}
	rounds := 2000
	if testing.Short() {
		rounds = 200
	}
	millisNeverBehind(t, NewWithWall(stalling, time.Microsecond), rounds)
}

// TestNeverBehindTimeNowUnderLoad is the same with time.Now itself, where
// the window between the readings is a few nanoseconds wide: many rounds
// of re-anchoring under load, and each reading checked at nanosecond
// resolution too.
func TestNeverBehindTimeNowUnderLoad(t *testing.T) {
	busy(t)
	c := NewWithWall(nil, time.Microsecond)
	deadline := time.Now().Add(2 * time.Second)
	if testing.Short() {
		deadline = time.Now().Add(200 * time.Millisecond)
	}
	var wg sync.WaitGroup
	var failed atomic.Bool
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !failed.Load(); i++ {
				if i%1024 == 0 && time.Now().After(deadline) {
					return
				}
				c.Millis() // re-anchors
				atLeast, atMost := readLead(c)
				if atMost < 0 && failed.CompareAndSwap(false, true) {
					t.Errorf("the clock read %v behind the wall clock", time.Duration(-atMost))
				}
				if atLeast > int64(MaxLead) && failed.CompareAndSwap(false, true) {
					t.Errorf("the clock read %v ahead of the wall clock, above MaxLead", time.Duration(atLeast))
				}
			}
		}()
	}
	wg.Wait()
	millisNeverBehind(t, c, 1000)
}

// TestLeadIsTheQuickestReadings re-anchors from a wall clock that is slow
// to answer: it sleeps before reading time.Now, as a re-anchor descheduled
// between its first monotonic reading and the wall reading would be. Each
// slow reading must be taken again, up to maxReadings in all, and the
// offset kept must be that of the quickest reading: the clock must be
// ahead of the wall clock by no more than that reading took.
func TestLeadIsTheQuickestReadings(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sleeps []time.Duration // before each reading of a re-anchor, in turn; then none
		reads  int             // at least: more if a quick one took over MaxLead
	}{
		{"the first is quick", []time.Duration{0, 5 * time.Millisecond}, 1},
		{"the second is quick", []time.Duration{5 * time.Millisecond, 0}, 2},
		{"the last is quick", []time.Duration{2 * time.Millisecond, 3 * time.Millisecond, 4 * time.Millisecond, 0}, 4},
		{"none is quick", []time.Duration{6 * time.Millisecond, 2 * time.Millisecond, 8 * time.Millisecond, 4 * time.Millisecond, 0}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var reads int
			quickest := time.Duration(1<<63 - 1)
			slow := func() time.Time {
				var sleep time.Duration
				if reads < len(tc.sleeps) {
					sleep = tc.sleeps[reads]
				}
				reads++
				start := Mono()
				if sleep > 0 {
					time.Sleep(sleep)
				}
				now := time.Now()
				quickest = min(quickest, time.Duration(Mono()-start))
				return now
			}
			c := NewWithWall(slow, time.Hour)
			if reads < tc.reads || reads > maxReadings {
				t.Fatalf("the wall clock was read %d times, want %d to %d", reads, tc.reads, maxReadings)
			}
			atLeast, atMost := readLead(c)
			if atMost < 0 {
				t.Fatalf("the clock reads %v behind the wall clock", time.Duration(-atMost))
			}
			// The quickest reading's own bracket is wider than what the
			// wall function measured by a call and a return, normally
			// nanoseconds; the sleeps differ by 2 ms, so that keeping a
			// slower reading cannot pass.
			if lead := time.Duration(atLeast); lead > quickest+time.Millisecond {
				t.Fatalf("the clock reads %v ahead of the wall clock; the quickest reading took %v", lead, quickest)
			}
		})
	}
}
