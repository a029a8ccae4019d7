package scru128

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fastid/scru128/internal/epoch"
	"github.com/fastid/scru128/internal/idtest"
	"github.com/fastid/scru128/internal/naive"
)

// ffReader is an endless stream of 0xff bytes: every counter draw is
// 2^24-1, the value one increment away from overflow.
type ffReader struct{}

func (ffReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 0xff
	}
	return len(p), nil
}

// counterReader returns 4-byte draws 0, 1, 2, ... so tests can tell which
// draw went where.
type counterReader struct{ n uint32 }

func (c *counterReader) Read(p []byte) (int, error) {
	for i := 0; i+4 <= len(p); i += 4 {
		p[i], p[i+1], p[i+2], p[i+3] = byte(c.n>>24), byte(c.n>>16), byte(c.n>>8), byte(c.n)
		c.n++
	}
	return len(p) / 4 * 4, nil
}

func TestGenerateIncreasesAndHasCurrentTime(t *testing.T) {
	g := NewGenerator()
	prev := ID{}
	for range 100_000 {
		before := uint64(time.Now().UnixMilli())
		id, err := g.Generate()
		after := uint64(time.Now().UnixMilli())
		if err != nil {
			t.Fatal(err)
		}
		if id.Compare(prev) <= 0 {
			t.Fatalf("%s after %s", id, prev)
		}
		if ts := id.Timestamp(); ts < before-1 || ts > after+1 {
			t.Fatalf("timestamp %d outside [%d, %d]", ts, before, after)
		}
		prev = id
	}
}

func TestCoreDrawOrder(t *testing.T) {
	g := NewGeneratorWithRng(&counterReader{})
	// First ID: counter_lo = draw 0, counter_hi = draw 1, entropy = draw 2.
	id, err := g.GenerateOrResetCore(1_000_000, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	if want := fromFields(1_000_000, 1, 0, 2); id != want {
		t.Fatalf("first ID fields %d %d %d, want 1 0 2", id.CounterHi(), id.CounterLo(), id.Entropy())
	}
	// Same millisecond: counter_lo + 1, fresh entropy.
	id, _ = g.GenerateOrResetCore(1_000_000, 10_000)
	if want := fromFields(1_000_000, 1, 1, 3); id != want {
		t.Fatalf("second ID fields %d %d %d", id.CounterHi(), id.CounterLo(), id.Entropy())
	}
	// Next millisecond: new counter_lo, same counter_hi.
	id, _ = g.GenerateOrResetCore(1_000_001, 10_000)
	if want := fromFields(1_000_001, 1, 4, 5); id != want {
		t.Fatalf("third ID fields %d %d %d", id.CounterHi(), id.CounterLo(), id.Entropy())
	}
	// A second later: counter_lo then counter_hi renewed.
	id, _ = g.GenerateOrResetCore(1_001_001, 10_000)
	if want := fromFields(1_001_001, 7, 6, 8); id != want {
		t.Fatalf("fourth ID fields %d %d %d", id.CounterHi(), id.CounterLo(), id.Entropy())
	}
}

func TestCounterLoOverflow(t *testing.T) {
	g := NewGeneratorWithRng(ffReader{})
	const ts = 1_000_000
	id1, _ := g.GenerateOrAbortCore(ts, 10_000)
	if id1.CounterHi() != MaxCounter || id1.CounterLo() != MaxCounter {
		t.Fatalf("first ID counters %d %d", id1.CounterHi(), id1.CounterLo())
	}
	// Both counters are at the maximum: the next ID moves the timestamp on.
	id2, err := g.GenerateOrAbortCore(ts, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	if id2.Timestamp() != ts+1 || id2.CounterHi() != 0 || id2.CounterLo() != MaxCounter {
		t.Fatalf("after double overflow: %d %d %d", id2.Timestamp(), id2.CounterHi(), id2.CounterLo())
	}
	// counter_lo is at the maximum again: it overflows into counter_hi.
	id3, _ := g.GenerateOrAbortCore(ts, 10_000)
	if id3.Timestamp() != ts+1 || id3.CounterHi() != 1 || id3.CounterLo() != 0 {
		t.Fatalf("after counter_lo overflow: %d %d %d", id3.Timestamp(), id3.CounterHi(), id3.CounterLo())
	}
	id4, _ := g.GenerateOrAbortCore(ts, 10_000)
	if id4.CounterLo() != 1 || id4.Compare(id3) <= 0 || id3.Compare(id2) <= 0 || id2.Compare(id1) <= 0 {
		t.Fatal("IDs not increasing through the overflows")
	}
}

func TestCounterHiOverflowAtRenewalEdge(t *testing.T) {
	// counter_hi overflowing at the 999th millisecond of an epoch moves the
	// timestamp to exactly one second past the renewal: counter_hi renews.
	g := NewGeneratorWithRng(ffReader{})
	const ts = 5_000_000
	g.GenerateOrAbortCore(ts, 10_000)
	g.GenerateOrAbortCore(ts+999, 10_000) // counter_lo = 2^24-1 again
	id, err := g.GenerateOrAbortCore(ts+999, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	if id.Timestamp() != ts+1000 || id.CounterHi() != MaxCounter {
		t.Fatalf("got %d %d, want renewal at %d", id.Timestamp(), id.CounterHi(), ts+1000)
	}
	checkAgainstNaive(t, ffReader{}, ffReader{}, []uint64{ts, ts + 999, ts + 999, ts + 999})
}

// TestRenewalAfterCounterHiOverflow: counter_hi's overflow begins an
// epoch of its own, but the renewal stays due 1000 ms after the last one,
// as in the specification, not 1000 ms after the overflow.
func TestRenewalAfterCounterHiOverflow(t *testing.T) {
	const ts = 7_000_000
	// Both counters drawn at their maximum; the later draws count up, so a
	// renewal shows as a new counter_hi.
	script := func() io.Reader {
		return io.MultiReader(bytes.NewReader(bytes.Repeat([]byte{0xff}, 12)), &counterReader{})
	}
	steps := []uint64{ts, ts, ts + 1, ts + 500, ts + 999, ts + 999, ts + 1000, ts + 1001}
	checkAgainstNaive(t, script(), script(), steps)
	g := NewGeneratorWithRng(script())
	var ids []ID
	for _, s := range steps {
		id, err := g.GenerateOrResetCore(s, 10_000)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if ids[1].Timestamp() != ts+1 || ids[1].CounterHi() != 0 || ids[5].CounterHi() != 0 {
		t.Fatalf("after the overflow: %d, counter_hi %d ... %d; want %d, 0 ... 0",
			ids[1].Timestamp(), ids[1].CounterHi(), ids[5].CounterHi(), uint64(ts+1))
	}
	if ids[6].CounterHi() == 0 || ids[7].CounterHi() != ids[6].CounterHi() {
		t.Fatalf("counter_hi at the renewal %d, after it %d; want a new one, kept", ids[6].CounterHi(), ids[7].CounterHi())
	}
}

// stateWith returns a snapshot of an engine whose epoch has the given
// first timestamp and cold[1] payload and whose hot word has the per-ID
// part hot.
func stateWith(t *testing.T, startedAt, hiWord, hot uint64) epoch.Snapshot {
	t.Helper()
	var e epoch.Engine
	if r := e.Start(e.Load(coldWords), coldWords, [epoch.MaxCold]uint64{startedAt, hiWord}, 0); !r.Claimed {
		t.Fatal("could not start an epoch")
	}
	if s := e.Load(coldWords); hot != 0 && !e.Advance(s, s.Hot|hot) {
		t.Fatal("could not move the hot word")
	}
	return e.Load(coldWords)
}

// TestNextAtTheEdges pins the plans for the states at counter_hi's
// maximum and past it, where the specification, the epoch layout and the
// adds that land late meet.
func TestNextAtTheEdges(t *testing.T) {
	const s0 = 1_700_000_000_000
	full := uint64(counterMask)
	for _, tc := range []struct {
		name                string
		hiWord, hot, offset uint64 // offset: the timestamp after s0
		want                plan
	}{
		{"counter_lo overflows into counter_hi", hiWordOf(full-1, 1000), perID(5, 0, full), 5,
			plan{move: moveCount}},
		{"both overflow: an epoch at the next millisecond with counter_hi 0", hiWordOf(full-1, 1000), perID(5, 1, full), 5,
			plan{move: moveOverflow, timestamp: s0 + 6, window: 994}},
		{"a late add past counter_hi's maximum stands for it", hiWordOf(full-1, 1000), perID(5, 2, 0), 5,
			plan{move: moveOverflow, timestamp: s0 + 6, window: 994}},
		{"at a new millisecond, both at their maximum keep counter_hi at its maximum", hiWordOf(full-1, 1000), perID(5, 1, full), 7,
			plan{move: moveAdvance, delta: 7, carries: 1}},
		{"a sealed state at counter_hi's maximum overflows, even at a new millisecond", hiWordOf(full-1, 1000), perID(5, 2, 0), 7,
			plan{move: moveOverflow, timestamp: s0 + 6, window: 994}},
		{"a sealed state below counter_hi's maximum advances at a new millisecond", hiWordOf(100, 1000), perID(5, maxCarries, 3), 7,
			plan{move: moveAdvance, delta: 7, carries: maxHeadroom}},
		{"a sealed state at counter_hi's maximum due a renewal renews", hiWordOf(full-1, 1000), perID(5, 2, 0), 1000,
			plan{move: moveStart, timestamp: s0 + 1000}},
		{"counter_hi overflow due a renewal", hiWordOf(full-1, 1000), perID(999, 1, full), 999,
			plan{move: moveStart, timestamp: s0 + 1000}},
		{"an overflow epoch's window", hiWordOf(0, 994), perID(993, 0, 17), 994,
			plan{move: moveStart, timestamp: s0 + 994}},
		{"out of carries below counter_hi's maximum", hiWordOf(100, 994), perID(5, maxHeadroom, full), 5,
			plan{move: moveStart, timestamp: s0 + 994}},
		{"out of carries one below counter_hi's maximum", hiWordOf(full-maxHeadroom-1, 1000), perID(5, maxHeadroom, full), 5,
			plan{move: moveStart, timestamp: s0 + 1000}},
		{"out of carries at counter_hi's maximum is its overflow", hiWordOf(full-maxHeadroom, 1000), perID(5, maxHeadroom, full), 5,
			plan{move: moveOverflow, timestamp: s0 + 6, window: 994}},
	} {
		p, err := next(stateWith(t, s0, tc.hiWord, tc.hot), s0+tc.offset, DefaultRollbackAllowance, false)
		if err != nil || p != tc.want {
			t.Errorf("%s: next = %+v, %v; want %+v", tc.name, p, err, tc.want)
		}
	}
}

func TestRollback(t *testing.T) {
	for _, abort := range []bool{false, true} {
		g := NewGeneratorWithRng(&counterReader{})
		gen := g.GenerateOrResetCore
		if abort {
			gen = g.GenerateOrAbortCore
		}
		const ts = 10_000_000
		first, _ := gen(ts, 10_000)
		// Within the allowance: keeps the last timestamp and counts on.
		id, err := gen(ts-10_000, 10_000)
		if err != nil || id.Timestamp() != ts || id.Compare(first) <= 0 {
			t.Fatalf("abort=%v: rollback within allowance gave %d, %v", abort, id.Timestamp(), err)
		}
		// Beyond it.
		id, err = gen(ts-10_001, 10_000)
		if abort {
			if !errors.Is(err, ErrClockRollback) {
				t.Fatalf("abort: error %v, want ErrClockRollback", err)
			}
			// The state is untouched: the next ID continues the stream.
			next, err := gen(ts, 10_000)
			if err != nil || next.Compare(first) <= 0 || next.Timestamp() != ts {
				t.Fatalf("abort: after refusal got %d, %v", next.Timestamp(), err)
			}
			continue
		}
		if err != nil || id.Timestamp() != ts-10_001 {
			t.Fatalf("reset: got %d, %v; want a reset to %d", id.Timestamp(), err, ts-10_001)
		}
		// After a reset the stream goes on from the new time.
		next, _ := gen(ts-10_001, 10_000)
		if next.Compare(id) <= 0 {
			t.Fatal("reset: stream does not increase after the reset")
		}
	}
}

func TestInvalidTimestamps(t *testing.T) {
	g := NewGeneratorWithRng(&counterReader{})
	for _, tc := range []struct{ ts, allowance uint64 }{
		{0, 0}, {MaxTimestamp + 1, 0}, {1 << 63, 0}, {1, MaxTimestamp + 1},
	} {
		if _, err := g.GenerateOrResetCore(tc.ts, tc.allowance); !errors.Is(err, ErrInvalidTimestamp) {
			t.Errorf("reset core(%d, %d) error = %v", tc.ts, tc.allowance, err)
		}
		if _, err := g.GenerateOrAbortCore(tc.ts, tc.allowance); !errors.Is(err, ErrInvalidTimestamp) {
			t.Errorf("abort core(%d, %d) error = %v", tc.ts, tc.allowance, err)
		}
	}
	// The timestamp cannot pass 2^48-1 on a counter overflow.
	g = NewGeneratorWithRng(ffReader{})
	if _, err := g.GenerateOrAbortCore(MaxTimestamp, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := g.GenerateOrAbortCore(MaxTimestamp, 0); !errors.Is(err, ErrInvalidTimestamp) {
		t.Fatalf("overflow at MaxTimestamp: error %v", err)
	}
}

func TestRngErrorIsWrappedAndStateKept(t *testing.T) {
	stream := bytes.Repeat([]byte{0}, 12+4+2) // one full ID, one entropy, then 2 bytes
	g := NewGeneratorWithRng(bytes.NewReader(stream))
	if _, err := g.GenerateOrAbortCore(1000, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := g.GenerateOrAbortCore(1000, 0); err != nil {
		t.Fatal(err)
	}
	_, err := g.GenerateOrAbortCore(1000, 0)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("error = %v, want wrapped io.ErrUnexpectedEOF", err)
	}
}

// checkAgainstNaive drives the generator and the reference with the same
// timestamps and byte streams and compares every result.
func checkAgainstNaive(t *testing.T, fast, ref io.Reader, timestamps []uint64) {
	t.Helper()
	g := NewGeneratorWithRng(fast)
	core := naive.Core{Rng: ref}
	for i, ts := range timestamps {
		want, wantErr := core.Generate(ts, 10_000, false)
		got, err := g.GenerateOrResetCore(ts, 10_000)
		if (err == nil) != (wantErr == nil) || err == nil && got != ID(want) {
			t.Fatalf("step %d (ts %d): got %x, %v; naive %x, %v", i, ts, [16]byte(got), err, want, wantErr)
		}
	}
}

// TestConcurrentUniqueAndOrdered takes 200k IDs in each of 8 goroutines
// at once from one Generator: none repeats, each goroutine's IDs increase,
// and an ID minted after receiving another over a channel is larger.
func TestConcurrentUniqueAndOrdered(t *testing.T) {
	n := 200_000
	if testing.Short() {
		n = 20_000
	}
	g := NewGenerator()
	idtest.Stress(t, 8, n, g.Generate, ID.Compare)
}

func TestFill(t *testing.T) {
	g := NewGenerator()
	ids := make([]ID, 1000)
	if err := g.Fill(ids); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(ids); i++ {
		if ids[i].Compare(ids[i-1]) <= 0 {
			t.Fatalf("Fill: %s after %s", ids[i], ids[i-1])
		}
		if ids[i].Timestamp() != ids[0].Timestamp() {
			t.Fatalf("Fill used more than one clock reading")
		}
	}
	next, _ := g.Generate()
	if next.Compare(ids[len(ids)-1]) <= 0 {
		t.Fatal("Generate after Fill went backwards")
	}
}

// TestFillRunFollowsTheSpecification: a run taken at once is what one call
// per ID would give, across an overflow of counter_lo into counter_hi.
func TestFillRunFollowsTheSpecification(t *testing.T) {
	const ts = 1_700_000_000_000
	g := NewGenerator()
	first, err := g.GenerateOrResetCore(ts, DefaultRollbackAllowance)
	if err != nil {
		t.Fatal(err)
	}
	// Move counter_lo next to its maximum, as 2^24 IDs would.
	s := g.engine.Load(coldWords)
	if target := s.Hot&^counterMask | (counterMask - 10); target > s.Hot && !g.engine.Advance(s, target) {
		t.Fatal("could not move the hot word")
	}
	ids := make([]ID, 3*maxRun+7)
	if err := g.fill(ids, ts); err != nil {
		t.Fatal(err)
	}
	hi, lo := first.CounterHi(), max(first.CounterLo(), counterMask-10)
	for i, id := range ids {
		// The specification's step: counter_lo + 1, with its overflow
		// into counter_hi.
		if lo++; lo > counterMask {
			lo, hi = 0, hi+1
		}
		if id.Timestamp() != ts || id.CounterHi() != hi || id.CounterLo() != lo {
			t.Fatalf("ID %d = %s (%d, %d, %d); want (%d, %d, %d)", i, id,
				id.Timestamp(), id.CounterHi(), id.CounterLo(), uint64(ts), hi, lo)
		}
	}
	if hi != first.CounterHi()+1 {
		t.Fatal("the run did not cross an overflow of counter_lo")
	}
}

// TestFillWithRngDrawsInOrder: with a caller's rng, Fill draws one ID at a
// time, so its IDs equal those of one call per ID on the same stream.
func TestFillWithRngDrawsInOrder(t *testing.T) {
	const ts = 1_700_000_000_000
	a, b := NewGeneratorWithRng(&counterReader{}), NewGeneratorWithRng(&counterReader{})
	got := make([]ID, 600)
	if err := a.fill(got, ts); err != nil {
		t.Fatal(err)
	}
	for i, id := range got {
		want, err := b.GenerateOrResetCore(ts, DefaultRollbackAllowance)
		if err != nil || id != want {
			t.Fatalf("ID %d: Fill %s, Generate %s (%v)", i, id, want, err)
		}
	}
}

// TestConcurrentFillAndGenerate: runs taken by Fill and single IDs taken by
// Generate from several goroutines are unique, and each goroutine's IDs
// increase.
func TestConcurrentFillAndGenerate(t *testing.T) {
	goroutines, perGoroutine := 8, 200_000
	if idtest.RaceEnabled || testing.Short() {
		perGoroutine = 20_000
	}
	g := NewGenerator()
	results := make([][]ID, goroutines)
	done := make(chan struct{})
	for w := range goroutines {
		go func() {
			defer func() { done <- struct{}{} }()
			mine := make([]ID, perGoroutine)
			for i := 0; i < len(mine); {
				if w%2 == 0 {
					n := min(1+i%(2*maxRun+3), len(mine)-i) // runs of many sizes
					if err := g.Fill(mine[i : i+n]); err != nil {
						t.Error(err)
						return
					}
					i += n
				} else {
					id, err := g.Generate()
					if err != nil {
						t.Error(err)
						return
					}
					mine[i] = id
					i++
				}
			}
			for i := 1; i < len(mine); i++ {
				if mine[i].Compare(mine[i-1]) <= 0 {
					t.Errorf("goroutine %d: %s after %s", w, mine[i], mine[i-1])
					return
				}
			}
			results[w] = mine
		}()
	}
	for range goroutines {
		<-done
	}
	if !t.Failed() {
		idtest.SortedUnique(t, results, goroutines*perGoroutine, ID.Compare)
	}
}

func TestPackageLevel(t *testing.T) {
	a, b := New(), New()
	if b.Compare(a) <= 0 {
		t.Fatal("New not increasing")
	}
	s := NewString()
	if id, err := Parse(s); err != nil || id.Compare(b) <= 0 {
		t.Fatalf("NewString = %s, %v", s, err)
	}
	buf := AppendNew([]byte("id="))
	if len(buf) != 28 || string(buf[:3]) != "id=" {
		t.Fatalf("AppendNew = %q", buf)
	}
}

// TestConcurrentEpochChanges drives the core from 8 goroutines with a
// timestamp that advances every 20 calls, so counter_hi renews every 20,000
// calls: dozens of epoch changes race with other goroutines, which must help
// finish them. IDs must stay unique and each goroutine's IDs increasing.
func TestConcurrentEpochChanges(t *testing.T) {
	const goroutines = 8
	perGoroutine := 100_000
	if testing.Short() {
		perGoroutine = 20_000
	}
	g := NewGenerator()
	var calls atomic.Uint64
	const base = 1_700_000_000_000
	// The allowance is unlimited: a goroutine descheduled for a few ms
	// falls many synthetic seconds behind the others.
	all := idtest.Stress(t, goroutines, perGoroutine, func() (ID, error) {
		return g.GenerateOrAbortCore(base+calls.Add(1)/20, MaxTimestamp)
	}, ID.Compare)
	renewals := 0
	for i := 1; i < len(all); i++ {
		if all[i].CounterHi() != all[i-1].CounterHi() {
			renewals++
		}
	}
	if last, limit := all[len(all)-1].Timestamp(), base+uint64(goroutines*perGoroutine/20); last > limit {
		t.Fatalf("timestamp %d ran ahead of the last one supplied, %d", last, limit)
	}
	if want := goroutines * perGoroutine / 20 / 1000; renewals < want/2 {
		t.Fatalf("counter_hi changed %d times, want about %d", renewals, want)
	}
}

// TestGeneratorWithRngConcurrent checks that a generator reading from a
// caller's io.Reader, which is not safe for concurrent use itself, stays
// safe: reads are serialized, IDs unique and per-goroutine increasing.
func TestGeneratorWithRngConcurrent(t *testing.T) {
	g := NewGeneratorWithRng(&counterReader{}) // races if reads overlap
	idtest.Stress(t, 4, 20_000, g.Generate, ID.Compare)
}

// TestConcurrentEveryCallStartsAnEpoch drives the core from 8 goroutines
// with timestamps a second apart, so every call renews counter_hi and
// starts an epoch. A goroutine that stalls between its loads sees words of
// epochs that have since moved on; finishing an epoch change must never
// write such a word back. A watchdog turns a livelock into a failure.
// TestConcurrentOverflowsWithAllOnesDraws: with every draw at its maximum,
// each renewal puts both counters at their maximum, and the timestamps move
// on by a second every four calls, so calls keep meeting overflows of both
// counters, epoch changes that helpers finish (and take the first ID of),
// and epochs that need another one at once. IDs stay unique and ordered,
// and the calls keep returning.
func TestConcurrentOverflowsWithAllOnesDraws(t *testing.T) {
	g := NewGeneratorWithRng(ffReader{})
	stressCoreCalls(t, func(call uint64) (ID, error) {
		return g.GenerateOrAbortCore(1_700_000_000_000+call/4*1000, MaxTimestamp)
	})
}

func TestConcurrentEveryCallStartsAnEpoch(t *testing.T) {
	g := NewGenerator()
	stressCoreCalls(t, func(call uint64) (ID, error) {
		return g.GenerateOrAbortCore(1_700_000_000_000+call*1000, MaxTimestamp)
	})
}

// stressCoreCalls runs idtest.Stress with 8 goroutines on next, given each
// call's number (from 1), and panics if the calls stop making progress.
func stressCoreCalls(t *testing.T, next func(call uint64) (ID, error)) {
	perGoroutine := 20_000
	if testing.Short() || idtest.RaceEnabled {
		perGoroutine = 2_000
	}
	var calls atomic.Uint64
	watchdog := time.AfterFunc(60*time.Second, func() {
		panic(fmt.Sprintf("no progress after %d calls: the generator livelocked", calls.Load()))
	})
	defer watchdog.Stop()
	idtest.Stress(t, 8, perGoroutine, func() (ID, error) { return next(calls.Add(1)) }, ID.Compare)
}

// TestStressWithChurn takes 100k IDs in each of 64 goroutines at once from
// one Generator while GOMAXPROCS moves between 1, 2 and 8 and garbage
// collections are forced: none repeats, each goroutine's IDs increase, and
// handoffs between goroutines keep real-time order.
func TestStressWithChurn(t *testing.T) {
	n := 100_000
	if testing.Short() {
		n = 5_000
	}
	g := NewGenerator()
	idtest.StressWithChurn(t, 64, n, g.Generate, ID.Compare)
}
