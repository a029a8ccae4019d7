//go:build epochhooks

// The interleaving tests need the engine's step hooks: go test -tags epochhooks.

package scru128

import (
	"errors"
	"io"
	"testing"

	"github.com/fastid/scru128/internal/epoch"
	"github.com/fastid/scru128/internal/idtest"
	"github.com/fastid/scru128/internal/naive"
)

// spreadReader returns 4-byte draws that are far apart: n times a large
// odd constant. Bases of successive epochs then differ by much more than a
// count of overflows, so an ID read with the wrong epoch's words shows.
type spreadReader struct{ n uint32 }

func (r *spreadReader) Read(p []byte) (int, error) {
	for i := 0; i+4 <= len(p); i += 4 {
		r.n++
		v := r.n * 0x9e3779b9
		p[i], p[i+1], p[i+2], p[i+3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
	}
	return len(p) / 4 * 4, nil
}

// constUint32Reader returns the same 4-byte value for every draw.
type constUint32Reader uint32

func (c constUint32Reader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(uint32(c) >> (24 - 8*(i%4)))
	}
	return len(p), nil
}

// scriptReader returns its script's 4-byte draws in turn, and then fill for
// every draw after them.
type scriptReader struct {
	script []uint32
	fill   uint32
}

func (r *scriptReader) Read(p []byte) (int, error) {
	for i := 0; i+4 <= len(p); i += 4 {
		v := r.fill
		if len(r.script) > 0 {
			v, r.script = r.script[0], r.script[1:]
		}
		p[i], p[i+1], p[i+2], p[i+3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
	}
	return len(p) / 4 * 4, nil
}

// coreCall is one call of a core method.
type coreCall struct {
	timestamp, allowance uint64
	abort                bool
}

func (c coreCall) on(g *Generator) (ID, error) {
	if c.abort {
		return g.GenerateOrAbortCore(c.timestamp, c.allowance)
	}
	return g.GenerateOrResetCore(c.timestamp, c.allowance)
}

// interleaving is a test of a few concurrent calls on one Generator that
// has first made the IDs of prime, one after another.
type interleaving struct {
	name  string
	rng   func() io.Reader
	prime []coreCall
	calls []coreCall
	// resets is set when a call may reset the generator: IDs may then be
	// below the primed ones, as the specification allows.
	resets bool
	// loads has bit i set to stop call i between its loads of the words
	// too, not only before each write: it tests the snapshot rule, at the
	// price of many more schedules.
	loads uint8
	// heavy marks a case of hundreds of thousands of schedules or more,
	// which -short explores only up to shortPreemptions preemptions.
	heavy bool
}

const t0 = 1_700_000_000_000

// TestInterleavings runs two and three calls through every interleaving of
// the engine's steps at an epoch change, a new millisecond, overflows of
// counter_lo and counter_hi, and rollbacks, and checks each schedule. The
// cases with loads set also stop between the loads of the words; the
// others load them as one step, which keeps the number of schedules in
// the tens of thousands.
func TestInterleavings(t *testing.T) {
	counting := func() io.Reader { return &spreadReader{} }
	loNearMax := func() io.Reader { return constUint32Reader(MaxCounter - 1) }
	allMax := func() io.Reader { return ffReader{} }
	same := coreCall{t0, 10_000, false}
	for _, tc := range []interleaving{
		{name: "2 epoch change", loads: 0b11, rng: counting, prime: []coreCall{same},
			calls: []coreCall{{t0 + 1000, 10_000, false}, same}},
		{name: "2 epoch change, constant draws", loads: 0b11, rng: func() io.Reader { return constUint32Reader(5) }, prime: []coreCall{same},
			calls: []coreCall{{t0 + 1000, 10_000, false}, same}},
		{name: "2 new millisecond", loads: 0b11, rng: counting, prime: []coreCall{same},
			calls: []coreCall{{t0 + 1, 10_000, false}, same}},
		{name: "2 counter_lo overflow", loads: 0b11, rng: loNearMax, prime: []coreCall{same},
			calls: []coreCall{same, same}},
		{name: "2 counter_hi overflow", loads: 0b11, rng: allMax, prime: []coreCall{same},
			calls: []coreCall{same, same}},
		{name: "2 rollback reset", loads: 0b11, rng: counting, prime: []coreCall{same}, resets: true,
			calls: []coreCall{{t0 - 20_000, 10_000, false}, {t0 - 20_000, 10_000, true}}},
		{name: "epoch change", rng: counting, prime: []coreCall{same},
			calls: []coreCall{{t0 + 1000, 10_000, false}, same, {t0 + 1001, 10_000, false}}},
		// With the same draws in every epoch, a reservation taken in one
		// epoch but read with another's words would repeat an ID.
		{name: "epoch change, constant draws", rng: func() io.Reader { return constUint32Reader(5) }, prime: []coreCall{same},
			calls: []coreCall{{t0 + 1000, 10_000, false}, same, same}},
		{name: "epoch change, two starters", rng: counting, prime: []coreCall{same},
			calls: []coreCall{{t0 + 1000, 10_000, false}, {t0 + 2500, 10_000, true}}},
		{name: "new millisecond", rng: counting, prime: []coreCall{same},
			calls: []coreCall{{t0 + 1, 10_000, false}, same, {t0 + 2, 10_000, true}}},
		{name: "counter_lo overflow", rng: loNearMax, prime: []coreCall{same},
			calls: []coreCall{same, same, same}},
		{name: "counter_hi overflow", heavy: true, rng: allMax, prime: []coreCall{same},
			calls: []coreCall{same, same, same}},
		{name: "counter_hi overflow at the renewal edge", heavy: true, rng: allMax, prime: []coreCall{same, {t0 + 999, 10_000, false}},
			calls: []coreCall{{t0 + 999, 10_000, false}, {t0 + 999, 10_000, false}, {t0 + 1000, 10_000, false}}},
		// counter_hi one below its maximum, counter_lo at it: one overflow
		// puts counter_hi at its maximum. A call that took the fast path
		// there and stops before its add can meet the next millisecond's
		// state, whose counter_lo is drawn at its maximum too: its add
		// would then overflow counter_hi within that millisecond.
		{name: "late add across a new millisecond at counter_hi's maximum", rng: func() io.Reader {
			return &scriptReader{script: []uint32{MaxCounter, MaxCounter - 1}, fill: 0xffffffff}
		}, prime: []coreCall{same},
			calls: []coreCall{same, same, {t0 + 1, 10_000, false}}},
		// Both counters at their maximum: a call at the same millisecond
		// overflows counter_hi into an epoch at the next millisecond, while
		// calls at that next millisecond would keep counter_hi at its
		// maximum. Whichever comes first, the other must go on from it: an
		// advance must not land between the overflow's write of cold[0]
		// and its write of hot.
		{name: "2 counter_hi overflow racing a new millisecond", loads: 0b11, rng: allMax, prime: []coreCall{same},
			calls: []coreCall{same, {t0 + 1, 10_000, false}}},
		{name: "rollback within the allowance", rng: counting, prime: []coreCall{same},
			calls: []coreCall{{t0 - 5000, 10_000, true}, {t0 + 1, 10_000, false}, {t0 - 9000, 10_000, false}}},
		{name: "rollback refused", rng: counting, prime: []coreCall{same},
			calls: []coreCall{{t0 - 20_000, 10_000, true}, same, {t0 + 1000, 10_000, false}}},
		// The clock stepped back 20 s: every call sees the new time. (Calls
		// whose timestamps are more than the allowance apart are outside the
		// core's contract: they can keep resetting each other's epochs.)
		{name: "rollback reset", rng: counting, prime: []coreCall{same, {t0 + 1, 10_000, false}}, resets: true,
			calls: []coreCall{{t0 - 20_000, 10_000, false}, {t0 - 20_000, 10_000, false}, {t0 - 20_000, 10_000, true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bound := -1
			if tc.heavy && testing.Short() {
				bound = shortPreemptions
			}
			n, serial := exploreGenerator(t, tc, bound)
			// Each order of the calls is one serial schedule, checked
			// against the reference.
			if want := idtest.SerialSchedules(len(tc.calls)); serial != want {
				t.Errorf("%d serial schedules, want %d", serial, want)
			}
			t.Logf("%d schedules", n)
		})
	}
}

// shortPreemptions is how many preemptions -short explores the heavy
// cases to: every schedule of up to three preemptions, some thousands,
// where all of them are millions. Each defect these tests were seen to
// catch, planted in the engine and in this format's steps (docs/testing.md
// lists them), shows within two preemptions, in the lighter cases.
const shortPreemptions = 3

// exploreGenerator runs tc through every schedule with at most bound
// preemptions (all of them if bound is negative) and returns how many
// there were and how many of them were serial.
func exploreGenerator(t *testing.T, tc interleaving, bound int) (schedules, serial int) {
	var g *Generator
	var primed []ID
	var epochs map[uint64]epochWords
	schedules = idtest.ExploreBounded(t, bound, func(sched *idtest.Sched) []func() (ID, error) {
		g = NewGeneratorWithRng(tc.rng())
		epochs = map[uint64]epochWords{}
		primed = primed[:0]
		for _, c := range tc.prime {
			id, err := c.on(g)
			if err != nil {
				t.Fatal(err)
			}
			primed = append(primed, id)
			recordEpoch(g, epochs)
		}
		g.engine.SetHook(func(p epoch.Point) {
			if p.Step == epoch.Loading && tc.loads&(1<<sched.Running()) == 0 {
				return
			}
			recordEpoch(g, epochs) // every write is followed by a step or the call's end
			sched.Pause()
		})
		calls := make([]func() (ID, error), len(tc.calls))
		for i, c := range tc.calls {
			calls[i] = func() (ID, error) { return c.on(g) }
		}
		return calls
	}, func(t testing.TB, r *idtest.Run[ID]) {
		g.engine.SetHook(nil)
		recordEpoch(g, epochs)
		for i, id := range r.Results {
			if r.Errs[i] == nil && !inSomeEpoch(id, epochs) {
				t.Errorf("call %d's ID %s (timestamp %d, counter_hi %d) belongs to no epoch the words held: %v",
					i, id, id.Timestamp(), id.CounterHi(), epochs)
			}
		}
		if checkRun(t, tc, primed, r) {
			serial++
		}
		// The state the calls left must go on from the largest ID, at the
		// calls' latest timestamp and in a later epoch.
		latest := uint64(0)
		for _, c := range tc.calls {
			latest = max(latest, c.timestamp)
		}
		for _, ts := range []uint64{latest, tc.calls[0].timestamp + 3000} {
			after, err := g.GenerateOrAbortCore(ts, MaxTimestamp)
			if err != nil {
				t.Errorf("the call after the schedule at %d: %v", ts, err)
			}
			for i, id := range r.Results {
				if r.Errs[i] == nil && id.Compare(after) >= 0 {
					t.Errorf("call %d's ID %s is not below the next one at %d, %s", i, id, ts, after)
				}
			}
		}
	})
	return schedules, serial
}

// epochWords is the cold payloads of one epoch.
type epochWords struct{ startedAt, hiBase uint64 }

// recordEpoch adds the epoch the cold words hold, if they agree, to epochs.
func recordEpoch(g *Generator, epochs map[uint64]epochWords) {
	s := g.engine.Words()
	if s.Cold(0)&epoch.ColdTagMask == s.Cold(1)&epoch.ColdTagMask {
		epochs[s.Cold(0)&epoch.ColdTagMask] = epochWords{s.Payload(0), s.Payload(1) & counterMask}
	}
}

// inSomeEpoch reports whether id can stand for a state of one of the
// epochs: its timestamp within the epoch's second and its counter_hi the
// epoch's base plus a possible count of overflows.
func inSomeEpoch(id ID, epochs map[uint64]epochWords) bool {
	for _, e := range epochs {
		if id.Timestamp()-e.startedAt < 1<<deltaBits && (uint64(id.CounterHi())-e.hiBase)&counterMask <= maxCarries {
			return true
		}
	}
	return false
}

// checkRun checks one schedule: only an OrAbort call may fail, and only
// with ErrClockRollback; IDs are unique, above the primed ones and ordered
// as the calls were in real time; and a schedule that ran the calls one
// after another gives exactly the reference algorithm's IDs. It reports
// whether the schedule was serial.
func checkRun(t testing.TB, tc interleaving, primed []ID, r *idtest.Run[ID]) bool {
	idtest.CheckOrder(t, r, ID.Compare, tc.resets, func(i int, err error) bool {
		return tc.calls[i].abort && errors.Is(err, ErrClockRollback)
	})
	for i, id := range r.Results {
		if last := primed[len(primed)-1]; r.Errs[i] == nil && !tc.resets && id.Compare(last) <= 0 {
			t.Errorf("call %d's ID %s is not above the last primed one, %s", i, id, last)
		}
	}
	ref := naive.Core{Rng: tc.rng()}
	for _, c := range tc.prime {
		ref.Generate(c.timestamp, c.allowance, c.abort)
	}
	return idtest.CheckSerial(t, r, func(i int) (ID, error) {
		c := tc.calls[i]
		id, err := ref.Generate(c.timestamp, c.allowance, c.abort)
		return ID(id), err
	})
}

// TestLateAddPastCounterHiMax: a call that loaded a state with room for
// one overflow of counter_lo, and adds only after other calls have moved
// counter_hi and counter_lo to their maximum in the same millisecond (2^24
// IDs, made here by moving the hot word while the call waits), must refuse
// the state its add makes (counter_hi would wrap to 0 in that millisecond),
// and it and the calls after it must go on above every ID issued.
func TestLateAddPastCounterHiMax(t *testing.T) {
	for _, later := range []uint64{t0, t0 + 1, t0 + 2} {
		// counter_lo and counter_hi one below their maximum: headroom 1.
		g := NewGeneratorWithRng(&scriptReader{script: []uint32{MaxCounter - 1, MaxCounter - 1}, fill: 7})
		if _, err := g.GenerateOrAbortCore(t0, 10_000); err != nil {
			t.Fatal(err)
		}
		var top ID // the last ID the other calls issued
		g.engine.SetHook(func(p epoch.Point) {
			if p.Step != epoch.Reserving {
				return
			}
			g.engine.SetHook(nil)
			s := g.engine.Load(coldWords)
			atMax := s.Hot&^epoch.PerIDMask | perID(0, 1, counterMask)
			if !g.engine.Advance(s, atMax) {
				t.Fatal("could not move the hot word")
			}
			putID(&top, s.Payload(0), s.Payload(1), atMax, ^uint32(0))
		})
		late, err := g.GenerateOrAbortCore(t0, 10_000)
		if err != nil {
			t.Fatal(err)
		}
		if top.CounterHi() != MaxCounter || top.CounterLo() != MaxCounter {
			t.Fatalf("the hook did not run: top = %s", top)
		}
		// The specification's next step from the top: both counters
		// overflow, the timestamp moves on by one and counter_hi is 0.
		if late.Compare(top) <= 0 || late.Timestamp() != t0+1 || late.CounterHi() != 0 {
			t.Errorf("late ID %s (%d, %d, %d) after %s; want timestamp %d, counter_hi 0",
				late, late.Timestamp(), late.CounterHi(), late.CounterLo(), top, uint64(t0+1))
		}
		after, err := g.GenerateOrAbortCore(later, 10_000)
		if err != nil || after.Compare(late) <= 0 {
			t.Errorf("the call after at %d: %s, %v; want above %s", later, after, err, late)
		}
	}
}
