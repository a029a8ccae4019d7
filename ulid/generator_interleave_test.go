//go:build epochhooks

// The interleaving tests need the engine's step hooks: go test -tags epochhooks.

package ulid

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/fastid/scru128/internal/epoch"
	"github.com/fastid/scru128/internal/idtest"
	"github.com/fastid/scru128/internal/naive"
)

// spreadReader returns bytes of n times a large odd constant, so that the
// random parts of successive epochs are far apart.
type spreadReader struct{ n uint32 }

func (r *spreadReader) Read(p []byte) (int, error) {
	for i := range p {
		r.n++
		p[i] = byte(r.n * 0x9e3779b9 >> 24)
	}
	return len(p), nil
}

type coreCall struct {
	timestamp uint64
	abort     bool
}

func (c coreCall) on(g *Generator) (ULID, error) {
	if c.abort {
		return g.GenerateOrAbortCore(c.timestamp, 10_000)
	}
	return g.GenerateOrResetCore(c.timestamp, 10_000)
}

type interleaving struct {
	name   string
	rng    func() io.Reader
	prime  []coreCall
	calls  []coreCall
	resets bool  // a call may reset the generator below the primed IDs
	loads  uint8 // bit i: stop call i between its loads of the words too
}

const t0 = 1_700_000_000_000

// TestInterleavings runs two and three calls through every interleaving of
// the engine's steps at an epoch change (every new millisecond is one), an
// overflow of the random part and rollbacks, and checks each schedule as
// the root package's test of the same name does.
func TestInterleavings(t *testing.T) {
	spread := func() io.Reader { return &spreadReader{} }
	constant := func() io.Reader { return constReader(5) }
	// A random part two below the largest: one more ID fits, then the
	// millisecond is full.
	nearMax := func() io.Reader {
		return io.MultiReader(bytes.NewReader(bytes.Repeat([]byte{0xff}, 9)), &spreadReader{})
	}
	same := coreCall{t0, false}
	for _, tc := range []interleaving{
		{name: "2 epoch change", loads: 0b10, rng: spread, prime: []coreCall{same},
			calls: []coreCall{{t0 + 1, false}, same}},
		{name: "2 epoch change, constant draws", loads: 0b10, rng: constant, prime: []coreCall{same},
			calls: []coreCall{{t0 + 1, false}, same}},
		{name: "2 epoch change, two starters", rng: spread, prime: []coreCall{same},
			calls: []coreCall{{t0 + 1, false}, {t0 + 1, true}}},
		{name: "2 epoch change, two milliseconds", rng: spread, prime: []coreCall{same},
			calls: []coreCall{{t0 + 1, false}, {t0 + 2, true}}},
		{name: "2 overflow", loads: 0b11, rng: nearMax, prime: []coreCall{same},
			calls: []coreCall{same, same}},
		{name: "2 rollback reset", loads: 0b10, rng: spread, prime: []coreCall{same}, resets: true,
			calls: []coreCall{{t0 - 20_000, false}, {t0 - 20_000, true}}},
		{name: "epoch change", rng: spread, prime: []coreCall{same},
			calls: []coreCall{{t0 + 1, false}, same, same}},
		{name: "epoch change, constant draws", rng: constant, prime: []coreCall{same},
			calls: []coreCall{{t0 + 1, false}, same, same}},
		{name: "overflow", rng: nearMax, prime: []coreCall{same},
			calls: []coreCall{same, same, {t0 + 1, false}}},
		{name: "rollback refused", rng: spread, prime: []coreCall{same},
			calls: []coreCall{{t0 - 20_000, true}, same, {t0 + 1, false}}},
		{name: "rollback reset", rng: spread, prime: []coreCall{same, {t0 + 1, false}}, resets: true,
			calls: []coreCall{{t0 - 20_000, false}, {t0 - 20_000, true}, {t0 - 20_000, true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, serial := explore(t, tc)
			if want := idtest.SerialSchedules(len(tc.calls)); serial != want {
				t.Errorf("%d serial schedules, want %d", serial, want)
			}
			t.Logf("%d schedules", n)
		})
	}
}

// epochWords is the cold payloads of one epoch.
type epochWords struct{ stamp, hi, lo uint64 }

func recordEpoch(g *Generator, epochs map[uint64]epochWords) {
	s := g.engine.Words()
	if tag := s.Cold(0) & epoch.ColdTagMask; s.Cold(1)&epoch.ColdTagMask == tag && s.Cold(2)&epoch.ColdTagMask == tag {
		epochs[tag] = epochWords{s.Payload(0), s.Payload(1), s.Payload(2)}
	}
}

// inSomeEpoch reports whether id can stand for a count of one of the
// epochs: its timestamp the epoch's and its random part the base plus less
// than 2^41, with the random parts as their high 32 and low 48 bits.
func inSomeEpoch(id ULID, epochs map[uint64]epochWords) bool {
	hi, lo := id.Uint64s()
	randHi, randLo := (hi<<16|lo>>48)&hiMask, lo&loMask
	for _, e := range epochs {
		var diff uint64
		switch randHi {
		case e.hi:
			diff = randLo - e.lo // huge if randLo < e.lo
		case e.hi + 1:
			diff = 1<<48 + randLo - e.lo
		default:
			continue
		}
		if id.Timestamp() == e.stamp && diff < countLimit {
			return true
		}
	}
	return false
}

func explore(t *testing.T, tc interleaving) (schedules, serial int) {
	var g *Generator
	var primed []ULID
	var epochs map[uint64]epochWords
	schedules = idtest.Explore(t, func(sched *idtest.Sched) []func() (ULID, error) {
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
			recordEpoch(g, epochs)
			sched.Pause()
		})
		calls := make([]func() (ULID, error), len(tc.calls))
		for i, c := range tc.calls {
			calls[i] = func() (ULID, error) { return c.on(g) }
		}
		return calls
	}, func(t testing.TB, r *idtest.Run[ULID]) {
		g.engine.SetHook(nil)
		recordEpoch(g, epochs)
		idtest.CheckOrder(t, r, ULID.Compare, tc.resets, func(i int, err error) bool {
			return tc.calls[i].abort && errors.Is(err, ErrClockRollback) || errors.Is(err, ErrMonotonicOverflow)
		})
		for i, id := range r.Results {
			if r.Errs[i] != nil {
				continue
			}
			if !inSomeEpoch(id, epochs) {
				t.Errorf("call %d's ID %s belongs to no epoch the words held: %v", i, id, epochs)
			}
			if last := primed[len(primed)-1]; !tc.resets && id.Compare(last) <= 0 {
				t.Errorf("call %d's ID %s is not above the last primed one, %s", i, id, last)
			}
		}
		ref := naive.ULIDCore{Rng: tc.rng()}
		for _, c := range tc.prime {
			ref.Generate(c.timestamp, 10_000, c.abort)
		}
		if idtest.CheckSerial(t, r, func(i int) (ULID, error) {
			c := tc.calls[i]
			id, err := ref.Generate(c.timestamp, 10_000, c.abort)
			return ULID(id), err
		}) {
			serial++
		}
		// The state the calls left must go on from the largest ID.
		after, err := g.GenerateOrAbortCore(tc.calls[0].timestamp+3000, MaxTimestamp)
		if err != nil {
			t.Errorf("the call after the schedule: %v", err)
		}
		for i, id := range r.Results {
			if r.Errs[i] == nil && id.Compare(after) >= 0 {
				t.Errorf("call %d's ID %s is not below the next one, %s", i, id, after)
			}
		}
	})
	return schedules, serial
}
