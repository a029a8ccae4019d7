package idtest

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// Event is one generating call as [Linearize] saw it: when it started and
// when it returned, on one clock of atomic ticks shared by every goroutine,
// and the ID it returned.
type Event[T any] struct {
	Start, End uint64
	ID         T
	Goroutine  int
}

// RealTimeOrder checks that events are consistent with one stream of
// strictly increasing IDs in real-time order: no ID repeats, and whenever
// a call returned before another started, its ID is the smaller. It
// returns an error naming the first pair that breaks this, or nil.
//
// It sorts a copy of the events by start and sweeps them, keeping the
// largest ID among the calls that returned before the current one started
// (a second copy sorted by end supplies those), so it takes O(n log n).
func RealTimeOrder[T any](events []Event[T], compare func(a, b T) int) error {
	byStart := slices.Clone(events)
	slices.SortFunc(byStart, func(a, b Event[T]) int { return cmpUint64(a.Start, b.Start) })
	byEnd := slices.Clone(events)
	slices.SortFunc(byEnd, func(a, b Event[T]) int { return cmpUint64(a.End, b.End) })
	ended, best := 0, -1 // byEnd[:ended] returned before the current start; best is the largest of them
	for _, e := range byStart {
		for ended < len(byEnd) && byEnd[ended].End < e.Start {
			if best < 0 || compare(byEnd[ended].ID, byEnd[best].ID) > 0 {
				best = ended
			}
			ended++
		}
		if best >= 0 && compare(e.ID, byEnd[best].ID) <= 0 {
			b := byEnd[best]
			return fmt.Errorf("goroutine %d's call [%d, %d] returned %v, not above %v, which goroutine %d's call [%d, %d] returned before it started",
				e.Goroutine, e.Start, e.End, e.ID, b.ID, b.Goroutine, b.Start, b.End)
		}
	}
	all := slices.Clone(events)
	slices.SortFunc(all, func(a, b Event[T]) int { return compare(a.ID, b.ID) })
	for i := 1; i < len(all); i++ {
		if compare(all[i].ID, all[i-1].ID) == 0 {
			return fmt.Errorf("duplicate ID %v, from goroutines %d and %d", all[i].ID, all[i-1].Goroutine, all[i].Goroutine)
		}
	}
	return nil
}

func cmpUint64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Linearize calls next n times from each of goroutines goroutines at once,
// records every ID as an [Event] and fails the test unless
// [RealTimeOrder] accepts them. next appends the IDs of one call to dst and
// returns it (a call may mint several, which must then be strictly
// increasing); it gets the goroutine's number. A call whose error skip
// accepts (a clock rollback that a stale reading may cause, say) is left
// out; any other error fails the test. With withChurn set, GOMAXPROCS
// moves between 1, 2 and 8 and garbage collections are forced while the
// calls run (see [StressWithChurn]). It returns the events, so that
// callers can check more.
func Linearize[T any](t testing.TB, goroutines, n int, withChurn bool, next func(goroutine int, dst []T) ([]T, error), skip func(error) bool, compare func(a, b T) int) []Event[T] {
	t.Helper()
	if withChurn {
		stop := make(chan struct{})
		switches := make(chan int)
		go func() { switches <- churn(stop) }()
		defer func() {
			close(stop)
			<-switches
		}()
	}
	var ticks atomic.Uint64
	perGoroutine := make([][]Event[T], goroutines)
	errs := make(chan error, goroutines)
	var wg sync.WaitGroup
	for w := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			events := make([]Event[T], 0, n)
			var ids []T
			for range n {
				start := ticks.Add(1)
				var err error
				ids, err = next(w, ids[:0])
				end := ticks.Add(1)
				if err != nil {
					if skip != nil && skip(err) {
						continue
					}
					errs <- fmt.Errorf("goroutine %d: %w", w, err)
					return
				}
				for i, id := range ids {
					if i > 0 && compare(id, ids[i-1]) <= 0 {
						errs <- fmt.Errorf("goroutine %d: one call returned %v after %v", w, id, ids[i-1])
						return
					}
					events = append(events, Event[T]{start, end, id, w})
				}
			}
			perGoroutine[w] = events
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	all := slices.Concat(perGoroutine...)
	if err := RealTimeOrder(all, compare); err != nil {
		t.Fatal(err)
	}
	return all
}

// One wraps a generating call that returns one ID for [Linearize].
func One[T any](next func() (T, error)) func(goroutine int, dst []T) ([]T, error) {
	return func(_ int, dst []T) ([]T, error) {
		id, err := next()
		if err != nil {
			return dst, err
		}
		return append(dst, id), nil
	}
}

// JumpingClock is a fake clock of Unix milliseconds shared by many
// goroutines: monotonic, so that a reading taken after another is never
// smaller, and fast-moving, so that calls keep meeting new milliseconds,
// renewals and stale readings. Every few readings it jumps forward by 1 to
// MaxJump ms.
type JumpingClock struct {
	now     atomic.Uint64
	Every   uint64 // jump after this many readings, on average
	MaxJump uint64 // the largest jump, in ms
}

// NewJumpingClock returns a clock reading start that jumps forward by 1
// to maxJump ms about once every every readings.
func NewJumpingClock(start, every, maxJump uint64) *JumpingClock {
	c := &JumpingClock{Every: every, MaxJump: maxJump}
	c.now.Store(start)
	return c
}

// Now returns the time, moving it on first if this reading is due a jump.
func (c *JumpingClock) Now() uint64 {
	if rand.Uint64N(c.Every) == 0 {
		return c.now.Add(1 + rand.Uint64N(c.MaxJump))
	}
	return c.now.Load()
}

// HostileReader is an io.Reader of random bytes that a generator reads 4
// bytes at a time, and that hands out, 32 bits at a time, values at and
// near the edges of every counter: all ones, all zeros, 24-bit counters at
// their maximum and just below it, within 255 of 2^24 (where counter_hi's
// overflows begin), and now and then a plain random value. It is safe for
// concurrent use.
type HostileReader struct {
	mu  sync.Mutex
	buf []byte
}

// hostileValues are the 32-bit draws HostileReader picks from.
var hostileValues = [...]uint32{
	0xffff_ffff, 0x0000_0000, 0x00ff_ffff, 0x00ff_fffe, 0xffff_fffe,
	0x00ff_ff00, 0x00ff_ff01, 0x00ff_ff02, 0x00ff_fefe, 0x00ff_feff,
	0x0000_0001, 0x00ff_ffff, 0xffff_ffff, 0x00ff_fffd,
}

// Read fills p with hostile values.
func (r *HostileReader) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for len(r.buf) < len(p) {
		v := hostileValues[rand.IntN(len(hostileValues))]
		if rand.IntN(16) == 0 {
			v = rand.Uint32()
		}
		r.buf = binary.BigEndian.AppendUint32(r.buf, v)
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	if len(r.buf) == 0 {
		r.buf = r.buf[:0:0]
	}
	return n, nil
}
