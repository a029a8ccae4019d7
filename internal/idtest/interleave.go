package idtest

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// Run is one finished schedule of [Explore]: each call's result and when it
// started and finished, counted in scheduling decisions.
type Run[T any] struct {
	Results  []T
	Errs     []error
	Start    []int // the decision that first resumed the call
	Finish   []int // the decision after which the call returned
	Schedule []int // the call resumed at each decision
}

// Before reports whether call a returned before call b started, so that a
// generator that is ordered in real time must give a the smaller ID.
func (r *Run[T]) Before(a, b int) bool { return r.Finish[a] < r.Start[b] }

// Explore runs a few calls on shared state through every interleaving of
// the points where they stop, one schedule at a time, and hands each
// finished schedule to check.
//
// setup builds fresh state for one schedule: it installs a hook that calls
// s.Pause at each of the state's steps (for the generators, the points
// between loading their words and writing one) and returns the calls. Each
// call runs in a goroutine of its own, but only one runs at a time: a call
// runs until it reaches pause or returns, and then the schedule picks which
// call goes on. Every sequence of such choices is tried once (a stateless
// depth-first search that replays a prefix and varies the last choice that
// has alternatives left), so the state must be deterministic given the
// schedule. A call that blocks anywhere but in pause stalls the schedule,
// and Explore fails the test after a minute.
//
// Each call runs on from a pause before the others are tried there, so
// the first schedule runs the calls one after another, and the search
// meets schedules in the order of how often they preempt a call (see
// [ExploreBounded]).
//
// It returns the number of schedules run.
func Explore[T any](t testing.TB, setup func(s *Sched) []func() (T, error), check func(t testing.TB, r *Run[T])) int {
	t.Helper()
	return ExploreBounded(t, -1, setup, check)
}

// ExploreBounded is [Explore] limited to the schedules that preempt a call
// at most bound times (every schedule if bound is negative). A preemption
// is a choice of another call at a point where the running one paused and
// could have gone on; a choice made because the running call returned is
// none. Every serial schedule (no preemption) is among them.
//
// Bounding preemptions is iterative context bounding (Musuvathi and
// Qadeer, PLDI 2007): the schedules with at most b preemptions of n calls
// of k steps each number about (nk)^b, polynomial where all of them are
// exponential, and the defects of concurrent code found in practice, and
// each defect the engine's interleaving tests were written for, show
// within two or three preemptions. A search to a bound is complete up to
// it: a defect that needs at most bound preemptions is found.
func ExploreBounded[T any](t testing.TB, bound int, setup func(s *Sched) []func() (T, error), check func(t testing.TB, r *Run[T])) int {
	t.Helper()
	var prefix []int
	runs := 0
	for {
		r, d := runSchedule(t, setup, prefix)
		runs++
		check(t, r)
		if t.Failed() {
			t.Logf("failing schedule: %v", r.Schedule)
			t.FailNow()
		}
		// The last decision that has a later alternative within the bound.
		// At a decision where the running call could go on, it is listed
		// first, and every alternative to it is a preemption.
		preempted := make([]int, len(r.Schedule)+1) // preemptions before decision i
		for i := range r.Schedule {
			preempted[i+1] = preempted[i]
			if d[i].canGoOn && r.Schedule[i] != d[i].enabled[0] {
				preempted[i+1]++
			}
		}
		i := len(r.Schedule) - 1
		for ; i >= 0; i-- {
			j := slices.Index(d[i].enabled, r.Schedule[i])
			if j+1 < len(d[i].enabled) && (bound < 0 || !d[i].canGoOn || preempted[i]+1 <= bound) {
				prefix = append(r.Schedule[:i:i], d[i].enabled[j+1])
				break
			}
		}
		if i < 0 {
			return runs
		}
	}
}

// decision is what a schedule could choose from at one point: the calls
// that could go on, the one that ran last first if canGoOn is set (it
// paused rather than returned), the others in order.
type decision struct {
	enabled []int
	canGoOn bool
}

// maxSteps bounds one schedule: calls that keep pausing without returning
// are retrying forever.
const maxSteps = 1000

// Sched is the scheduler of one schedule, as the calls see it.
type Sched struct {
	events  chan event
	resume  []chan struct{}
	running int // the one call that may run; written only between events
}

// Pause stops the running call until the schedule picks it again.
func (s *Sched) Pause() {
	me := s.running
	s.events <- event{}
	<-s.resume[me]
}

// Running returns the index of the call that is running, for a hook that
// stops only some calls.
func (s *Sched) Running() int { return s.running }

// event is what a call reports when it stops: at pause, or returning.
type event struct {
	done bool
}

// runSchedule runs the calls of a fresh setup, following prefix and then
// always the first call of each decision's list: the one that ran last, if
// it can go on, else the lowest-numbered. It returns the run and, for each
// decision, what could have been chosen.
func runSchedule[T any](t testing.TB, setup func(s *Sched) []func() (T, error), prefix []int) (*Run[T], []decision) {
	t.Helper()
	s := &Sched{events: make(chan event), running: -1}
	calls := setup(s)
	n := len(calls)
	r := &Run[T]{Results: make([]T, n), Errs: make([]error, n), Start: make([]int, n), Finish: make([]int, n)}
	s.resume = make([]chan struct{}, n)
	for i := range calls {
		s.resume[i] = make(chan struct{})
		r.Start[i], r.Finish[i] = -1, -1
		go func() {
			<-s.resume[i]
			r.Results[i], r.Errs[i] = calls[i]()
			s.events <- event{done: true}
		}()
	}
	var decisions []decision
	enabled := make([]int, n)
	for i := range enabled {
		enabled[i] = i
	}
	watchdog := time.NewTimer(time.Minute)
	defer watchdog.Stop()
	last := -1 // the call that ran last, while it can go on
	for step := 0; len(enabled) > 0; step++ {
		if step > maxSteps {
			t.Fatalf("schedule %v: over %d steps without every call returning: a livelock", r.Schedule[:50], maxSteps)
		}
		d := decision{enabled: slices.Clone(enabled), canGoOn: last >= 0}
		if d.canGoOn {
			j := slices.Index(d.enabled, last)
			copy(d.enabled[1:j+1], d.enabled[:j])
			d.enabled[0] = last
		}
		c := d.enabled[0]
		if step < len(prefix) {
			c = prefix[step]
			if !slices.Contains(enabled, c) {
				panic(fmt.Sprintf("idtest: schedule %v is not replayable at step %d: the state is not deterministic", prefix, step))
			}
		}
		decisions = append(decisions, d)
		r.Schedule = append(r.Schedule, c)
		if r.Start[c] < 0 {
			r.Start[c] = step
		}
		s.running = c
		s.resume[c] <- struct{}{}
		select {
		case ev := <-s.events:
			last = c
			if ev.done {
				r.Finish[c] = step
				enabled = slices.DeleteFunc(enabled, func(x int) bool { return x == c })
				last = -1
			}
		case <-watchdog.C:
			t.Fatalf("schedule %v: call %d neither paused nor returned within a minute", r.Schedule, c)
		}
	}
	return r, decisions
}

// Serial returns the order in which the calls ran if the schedule ran them
// one after another, each to its end, and nil otherwise.
func (r *Run[T]) Serial() []int {
	order := slices.Compact(slices.Clone(r.Schedule))
	if len(order) != len(r.Results) || len(slices.Compact(slices.Sorted(slices.Values(order)))) != len(order) {
		return nil
	}
	return order
}

// SerialSchedules returns the number of serial schedules of calls calls,
// one for each order of the calls: calls factorial. [Explore] runs each of
// them once.
func SerialSchedules(calls int) int {
	n := 1
	for i := 2; i <= calls; i++ {
		n *= i
	}
	return n
}

// CheckSerial checks a serial schedule against a reference: if r ran the
// calls one after another (see Run.Serial), it calls ref for each call in
// that order and fails the test unless the call returned the ID ref
// returns, or failed where ref fails. ref must stand for a fresh
// reference in the state the calls started from. CheckSerial reports
// whether the schedule was serial.
func CheckSerial[T comparable](t testing.TB, r *Run[T], ref func(call int) (T, error)) bool {
	t.Helper()
	order := r.Serial()
	if order == nil {
		return false
	}
	for _, i := range order {
		want, wantErr := ref(i)
		if (wantErr == nil) != (r.Errs[i] == nil) || wantErr == nil && want != r.Results[i] {
			t.Errorf("serial schedule %v: call %d got %v, %v; the reference %v, %v", order, i, r.Results[i], r.Errs[i], want, wantErr)
		}
	}
	return true
}

// CheckOrder fails the test unless the schedule's successful results are
// unique and, unless resets is set, ordered as the calls were in real time:
// a call that returned before another started has the smaller ID. mayFail
// says which errors a call may return.
func CheckOrder[T comparable](t testing.TB, r *Run[T], compare func(a, b T) int, resets bool, mayFail func(call int, err error) bool) {
	t.Helper()
	seen := map[T]int{}
	for i, id := range r.Results {
		if err := r.Errs[i]; err != nil {
			if !mayFail(i, err) {
				t.Errorf("call %d: %v", i, err)
			}
			continue
		}
		if j, dup := seen[id]; dup {
			t.Errorf("calls %d and %d both got %v", j, i, id)
		}
		seen[id] = i
		if resets {
			continue
		}
		for j := range r.Results {
			if r.Errs[j] == nil && r.Before(j, i) && compare(r.Results[j], id) >= 0 {
				t.Errorf("call %d returned %v before call %d started, which got %v", j, r.Results[j], i, id)
			}
		}
	}
}
