package idtest

import (
	"cmp"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
)

// recorder is a testing.TB that records failures instead of stopping the
// test, so the checker's own failures can be tested.
type recorder struct {
	testing.TB
	failed atomic.Bool
}

func (r *recorder) Helper()                           {}
func (r *recorder) Errorf(format string, args ...any) { r.failed.Store(true) }
func (r *recorder) Fatalf(format string, args ...any) { r.failed.Store(true); panic(errStop) }
func (r *recorder) Failed() bool                      { return r.failed.Load() }
func (r *recorder) FailNow()                          { panic(errStop) }

var errStop = errors.New("stop")

// run reports whether Stress failed for next.
func run(next func() (int, error)) (failed bool) {
	r := &recorder{}
	defer func() {
		if v := recover(); v != nil && v != errStop {
			panic(v)
		}
		failed = r.failed.Load()
	}()
	Stress(r, 4, 5000, next, cmp.Compare[int])
	return false
}

func TestStressAcceptsAGoodGenerator(t *testing.T) {
	var n atomic.Int64
	all := Stress(t, 4, 5000, func() (int, error) { return int(n.Add(1)), nil }, cmp.Compare[int])
	if len(all) != 20000 || all[0] != 1 || all[len(all)-1] != 20000 {
		t.Fatalf("got %d IDs from %d to %d", len(all), all[0], all[len(all)-1])
	}
}

func TestStressCatchesDuplicates(t *testing.T) {
	var n atomic.Int64
	if !run(func() (int, error) { return int(n.Add(1) / 2), nil }) { // each value twice
		t.Fatal("duplicates not caught")
	}
}

func TestStressCatchesErrorsWithoutHanging(t *testing.T) {
	var n atomic.Int64
	if !run(func() (int, error) {
		if n.Add(1) == 777 {
			return 0, errors.New("boom")
		}
		return int(n.Load()), nil
	}) {
		t.Fatal("error not caught")
	}
}

func TestStressCatchesDecreasing(t *testing.T) {
	var n atomic.Int64
	if !run(func() (int, error) { return -int(n.Add(1)), nil }) {
		t.Fatal("decreasing IDs not caught")
	}
}

var allocSink []byte

func TestCheckAllocsCatchesAnAllocation(t *testing.T) {
	r := &recorder{}
	CheckAllocs(r, 0, 100, map[string]func(){"make": func() { allocSink = make([]byte, 64) }})
	if !r.Failed() {
		t.Fatal("an allocation not caught")
	}
	r = &recorder{}
	CheckAllocs(r, 1, 100, map[string]func(){"make": func() { allocSink = make([]byte, 64) }})
	if r.Failed() {
		t.Fatal("one allocation per call, as wanted, reported as a failure")
	}
}

// TestRealTimeOrder pins what the linearizability check accepts: IDs of
// calls that overlap may come in any order, a call that returned before
// another started must have the smaller ID, and no ID may repeat.
func TestRealTimeOrder(t *testing.T) {
	cmp := func(a, b int) int { return a - b }
	for _, tc := range []struct {
		name   string
		events []Event[int]
		ok     bool
	}{
		{"sequential, increasing", []Event[int]{{1, 2, 10, 0}, {3, 4, 20, 1}, {5, 6, 30, 0}}, true},
		{"overlapping, in either order", []Event[int]{{1, 4, 20, 0}, {2, 3, 10, 1}, {5, 6, 30, 0}}, true},
		{"a later call below an earlier one", []Event[int]{{1, 2, 20, 0}, {3, 4, 10, 1}}, false},
		{"below one that returned two calls earlier", []Event[int]{{1, 2, 30, 0}, {3, 8, 40, 1}, {4, 5, 20, 2}}, false},
		{"equal IDs of sequential calls", []Event[int]{{1, 2, 10, 0}, {3, 4, 10, 1}}, false},
		{"a repeat among overlapping calls", []Event[int]{{1, 4, 10, 0}, {2, 3, 10, 1}}, false},
	} {
		err := RealTimeOrder(tc.events, cmp)
		if (err == nil) != tc.ok {
			t.Errorf("%s: RealTimeOrder = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}

// TestExploreBounded checks the explorer against a plain enumeration: calls
// that pause a given number of times, run through every schedule, and
// through those of at most 0, 1 and 2 preemptions. Each schedule must come
// once, and the counts must be the enumeration's.
func TestExploreBounded(t *testing.T) {
	pauses := []int{1, 2, 2}
	for _, bound := range []int{-1, 0, 1, 2} {
		seen := map[string]bool{}
		n := ExploreBounded(t, bound, func(s *Sched) []func() (int, error) {
			calls := make([]func() (int, error), len(pauses))
			for i, p := range pauses {
				calls[i] = func() (int, error) {
					for range p {
						s.Pause()
					}
					return i, nil
				}
			}
			return calls
		}, func(t testing.TB, r *Run[int]) {
			key := fmt.Sprint(r.Schedule)
			if seen[key] {
				t.Errorf("bound %d: schedule %s explored twice", bound, key)
			}
			seen[key] = true
			if got := preemptions(r.Schedule, pauses); bound >= 0 && got > bound {
				t.Errorf("bound %d: schedule %s has %d preemptions", bound, key, got)
			}
		})
		if want := countSchedules(pauses, bound); n != want {
			t.Errorf("bound %d: %d schedules, want %d", bound, n, want)
		}
	}
}

// countSchedules counts, by plain enumeration, the orders of the calls'
// segments (a call that pauses p times runs in p+1 segments) that preempt
// a call at most bound times (any number if bound is negative): a switch
// away from a call that has segments left.
func countSchedules(pauses []int, bound int) int {
	left := make([]int, len(pauses))
	for i, p := range pauses {
		left[i] = p + 1
	}
	var count func(last, preempted int) int
	count = func(last, preempted int) int {
		if bound >= 0 && preempted > bound {
			return 0
		}
		n, done := 0, true
		for c := range left {
			if left[c] == 0 {
				continue
			}
			done = false
			p := preempted
			if last >= 0 && c != last && left[last] > 0 {
				p++
			}
			left[c]--
			n += count(c, p)
			left[c]++
		}
		if done {
			return 1
		}
		return n
	}
	return count(-1, 0)
}

// preemptions counts the preemptions of a schedule of the calls.
func preemptions(schedule []int, pauses []int) int {
	left := make([]int, len(pauses))
	for i, p := range pauses {
		left[i] = p + 1
	}
	n := 0
	for i, c := range schedule {
		if i > 0 && c != schedule[i-1] && left[schedule[i-1]] > 0 {
			n++
		}
		left[c]--
	}
	return n
}
