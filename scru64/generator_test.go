package scru64

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fastid/scru128/internal/idtest"
	"github.com/fastid/scru128/internal/naive"
)

// fixedMode renews every counter to the same value and records the calls.
type fixedMode struct {
	value uint32
	calls []RenewContext
	sizes []uint8
}

func (m *fixedMode) Renew(counterSize uint8, ctx RenewContext) uint32 {
	m.calls = append(m.calls, ctx)
	m.sizes = append(m.sizes, counterSize)
	return m.value
}

func mustSpec(t testing.TB, s string) NodeSpec {
	t.Helper()
	spec, err := ParseNodeSpec(s)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

const testMillis = 1_700_000_000_000 // a Unix time in ms, in tick testTick
const testTick = testMillis >> 8

func TestGenerateIncreasesAndHasCurrentTime(t *testing.T) {
	g := NewGenerator(mustSpec(t, "42/8"))
	prev := ID(0)
	for range 100_000 {
		before := uint64(time.Now().UnixMilli()) >> 8
		id, err := g.Generate()
		after := uint64(time.Now().UnixMilli()) >> 8
		if err != nil {
			t.Fatal(err)
		}
		if id <= prev {
			t.Fatalf("%s after %s", id, prev)
		}
		// Overflows may put the timestamp ahead of the clock, never
		// behind it, and never further than the allowance.
		if ts := id.Timestamp(); ts < before || ts > after+DefaultRollbackAllowance>>8 {
			t.Fatalf("timestamp %d outside [%d, %d + allowance]", ts, before, after)
		}
		if id.NodeCtr()>>16 != 42 {
			t.Fatalf("%s: node_id %d, want 42", id, id.NodeCtr()>>16)
		}
		prev = id
	}
}

// TestCounterOverflow runs the core with a fixed timestamp through counter
// overflows: the counter counts up from its renewal, and at its maximum the
// timestamp moves on by one tick and the counter is renewed for that tick.
func TestCounterOverflow(t *testing.T) {
	mode := &fixedMode{value: 1}
	g := NewGeneratorWithCounterMode(mustSpec(t, "0x2a/22"), mode) // 2-bit counter
	node := uint64(0x2a) << 2
	want := []uint64{
		testTick<<24 | node | 1, testTick<<24 | node | 2, testTick<<24 | node | 3,
		(testTick+1)<<24 | node | 1, (testTick+1)<<24 | node | 2, (testTick+1)<<24 | node | 3,
		(testTick+2)<<24 | node | 1,
	}
	for i, w := range want {
		id, err := g.GenerateOrAbortCore(testMillis, DefaultRollbackAllowance)
		if err != nil || uint64(id) != w {
			t.Fatalf("ID %d = %#x, %v; want %#x", i, uint64(id), err, w)
		}
	}
	wantCalls := []RenewContext{{testTick, 0x2a}, {testTick + 1, 0x2a}, {testTick + 2, 0x2a}}
	if !slices.Equal(mode.calls, wantCalls) || !slices.Equal(mode.sizes, []uint8{2, 2, 2}) {
		t.Fatalf("Renew calls %v sizes %v, want %v", mode.calls, mode.sizes, wantCalls)
	}
	// The overflows put the timestamp two ticks ahead of the clock: a
	// later tick within those two continues the stream.
	id, err := g.GenerateOrAbortCore(testMillis+256, DefaultRollbackAllowance)
	if err != nil || uint64(id) != (testTick+2)<<24|node|2 {
		t.Fatalf("after the clock moved one tick: %#x, %v", uint64(id), err)
	}
}

// TestCounterOverflowRunsAheadUntilAllowance keeps a fixed clock while a
// 1-bit counter overflows: the timestamp runs ahead one tick per two IDs
// until it is more than the allowance ahead, and then the abort form
// refuses while the reset form goes back to the clock.
func TestCounterOverflowRunsAheadUntilAllowance(t *testing.T) {
	g := NewGeneratorWithCounterMode(mustSpec(t, "0/23"), &fixedMode{})
	const allowance = 1000 // 3 ticks
	var ids []ID
	for {
		id, err := g.GenerateOrAbortCore(testMillis, allowance)
		if errors.Is(err, ErrClockRollback) {
			break
		}
		if err != nil || len(ids) > 100 {
			t.Fatal(err, len(ids))
		}
		ids = append(ids, id)
	}
	// Ticks testTick .. testTick+3 with two IDs each; the overflow from
	// +3, which is within the allowance, then opens +4.
	if len(ids) != 9 || ids[8].Timestamp() != testTick+4 {
		t.Fatalf("%d IDs before the refusal, last at tick +%d", len(ids), ids[len(ids)-1].Timestamp()-testTick)
	}
	// A clock that catches up by a tick lets it go on.
	if id, err := g.GenerateOrAbortCore(testMillis+256, allowance); err != nil || id <= ids[8] {
		t.Fatalf("after catching up: %s, %v", id, err)
	}
	id, err := g.GenerateOrResetCore(testMillis, allowance)
	if err != nil || id.Timestamp() != testTick || id.NodeCtr() != 0 {
		t.Fatalf("reset: %s (tick +%d), %v", id, id.Timestamp()-testTick, err)
	}
}

func TestRollback(t *testing.T) {
	for _, reset := range []bool{false, true} {
		mode := &fixedMode{value: 5}
		g := NewGeneratorWithCounterMode(mustSpec(t, "3/8"), mode)
		gen := g.GenerateOrAbortCore
		if reset {
			gen = g.GenerateOrResetCore
		}
		const ms = testMillis + 100_000
		first, _ := gen(ms, 10_000)
		// Back by 39 ticks (10_000 >> 8) keeps the last timestamp.
		id, err := gen(ms-39*256, 10_000)
		if err != nil || id != first+1 {
			t.Fatalf("reset=%v: rollback within the allowance gave %s, %v", reset, id, err)
		}
		// Back by 40 ticks is beyond it.
		id, err = gen(ms-40*256, 10_000)
		if !reset {
			if !errors.Is(err, ErrClockRollback) || id != 0 {
				t.Fatalf("abort: %s, %v; want ErrClockRollback", id, err)
			}
			if next, err := gen(ms, 10_000); err != nil || next != first+2 {
				t.Fatalf("abort: the refusal changed the state: %s, %v", next, err)
			}
			continue
		}
		if err != nil || id.Timestamp() != ms>>8-40 || id.NodeCtr() != 3<<16|5 {
			t.Fatalf("reset: %s, %v; want tick -40 with a renewed counter", id, err)
		}
		if next, _ := gen(ms-40*256, 10_000); next != id+1 {
			t.Fatalf("reset: the stream does not go on from the reset: %s", next)
		}
	}
}

func TestInvalidTimestamps(t *testing.T) {
	g := NewGenerator(mustSpec(t, "1/1"))
	for _, ms := range []uint64{0, 255, 256, MinTimestamp<<8 - 1, MaxTimestamp << 8, MaxTimestamp<<8 + 255, (MaxTimestamp + 1) << 8, 1<<64 - 1} {
		if _, err := g.GenerateOrAbortCore(ms, 0); !errors.Is(err, ErrInvalidTimestamp) {
			t.Errorf("abort core(%d) error = %v", ms, err)
		}
		if _, err := g.GenerateOrResetCore(ms, 0); !errors.Is(err, ErrInvalidTimestamp) {
			t.Errorf("reset core(%d) error = %v", ms, err)
		}
	}
	// The first and last usable ticks.
	if id, err := g.GenerateOrAbortCore(MinTimestamp<<8, 0); err != nil || id.Timestamp() != MinTimestamp {
		t.Errorf("tick %d: %s, %v", MinTimestamp, id, err)
	}
	g = NewGeneratorWithCounterMode(mustSpec(t, "1/1"), NewDefaultCounterMode(23)) // counter renews to 0
	if id, err := g.GenerateOrAbortCore((MaxTimestamp-1)<<8, 0); err != nil || id.Timestamp() != MaxTimestamp-1 {
		t.Errorf("last tick: %s, %v", id, err)
	}
	// A counter overflow may not move onto the reserved last tick.
	for range 1<<23 - 1 {
		if _, err := g.GenerateOrAbortCore((MaxTimestamp-1)<<8, 0); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := g.GenerateOrAbortCore((MaxTimestamp-1)<<8, 0); !errors.Is(err, ErrInvalidTimestamp) {
		t.Errorf("overflow onto the reserved tick: %v", err)
	}
	// Nor may a generator count on from a previous ID in that tick.
	g = NewGenerator(mustSpec(t, "zzzzzzzq0em8/8"))
	if _, err := g.GenerateOrAbortCore((MaxTimestamp-1)<<8, 10_000); !errors.Is(err, ErrInvalidTimestamp) {
		t.Errorf("counting on in the reserved tick: %v", err)
	}
}

func TestNodePrevContinues(t *testing.T) {
	g := NewGenerator(mustSpec(t, "7/8"))
	var last ID
	for range 1000 {
		last, _ = g.GenerateOrAbortCore(testMillis, 10_000)
	}
	spec := g.NodeSpec()
	if spec.NodePrev() != last || spec.NodeID() != 7 || spec.String() != last.String()+"/8" {
		t.Fatalf("NodeSpec = %q, last %s", spec, last)
	}
	// A new generator from it, on a clock 5 s behind, continues above last.
	g2 := NewGenerator(spec)
	if g2.NodeID() != 7 || g2.NodeIDSize() != 8 {
		t.Fatalf("node %d/%d", g2.NodeID(), g2.NodeIDSize())
	}
	id, err := g2.GenerateOrAbortCore(testMillis-5000, 10_000)
	if err != nil || id <= last || id.NodeCtr()>>16 != 7 {
		t.Fatalf("continued with %s, %v after %s", id, err, last)
	}
}

// TestDefaultCounterMode checks the range of renewed counters: full-size
// random numbers up to node ID size 19, one guard bit from 20 up, and the
// sizes NewDefaultCounterMode is given.
func TestDefaultCounterMode(t *testing.T) {
	for size := uint8(1); size <= 23; size++ {
		counterSize := 24 - size
		for _, guard := range []int{-1, 0, 1, 2, int(counterSize)} {
			var g *Generator
			effective := uint8(guard)
			if guard < 0 {
				g = NewGenerator(NodeSpec{size: size})
				effective = 0
				if size >= 20 {
					effective = 1
				}
			} else {
				g = NewGeneratorWithCounterMode(NodeSpec{size: size}, NewDefaultCounterMode(uint8(guard)))
			}
			bits := int(counterSize) - int(effective)
			var seen uint32
			for i := range uint64(400) {
				id, err := g.GenerateOrAbortCore(testMillis+i*256, 0)
				if err != nil {
					t.Fatal(err)
				}
				counter := id.NodeCtr()
				if bits <= 0 && counter != 0 || bits > 0 && counter >= 1<<bits {
					t.Fatalf("size %d guard %d: counter %d has more than %d bits", size, guard, counter, bits)
				}
				seen |= counter
			}
			// 400 draws set every bit they may, but for a chance of
			// 23 * 2^-400.
			if bits > 0 && seen != 1<<bits-1 {
				t.Errorf("size %d guard %d: counters use bits %b, want %d bits", size, guard, seen, bits)
			}
			mode := NewDefaultCounterMode(effective)
			for range 100 {
				if c := mode.Renew(counterSize, RenewContext{}); bits <= 0 && c != 0 || bits > 0 && c >= 1<<bits {
					t.Fatalf("Renew(%d) with guard %d = %d", counterSize, effective, c)
				}
			}
		}
	}
}

// TestCustomModeResultIsMasked checks that a counter mode cannot spill into
// the node ID.
func TestCustomModeResultIsMasked(t *testing.T) {
	g := NewGeneratorWithCounterMode(mustSpec(t, "5/8"), &fixedMode{value: 1<<32 - 1})
	id, _ := g.GenerateOrAbortCore(testMillis, 0)
	if id.NodeCtr() != 5<<16|0xffff {
		t.Fatalf("node_ctr %#x", id.NodeCtr())
	}
}

// TestZeroNodeSpec checks that a Generator made from the zero NodeSpec
// reports ErrNoNodeSpec rather than panicking or minting.
func TestZeroNodeSpec(t *testing.T) {
	for _, g := range []*Generator{NewGenerator(NodeSpec{}), NewGeneratorWithCounterMode(NodeSpec{}, NewDefaultCounterMode(1))} {
		if id, err := g.Generate(); !errors.Is(err, ErrNoNodeSpec) || id != 0 {
			t.Fatalf("Generate = %s, %v; want ErrNoNodeSpec", id, err)
		}
	}
}

// streamMode renews counters from a byte stream, 4 bytes each, 0 when it
// runs out, so the generator and the reference can be fed the same values.
type streamMode struct{ data []byte }

func (m *streamMode) next() uint32 {
	if len(m.data) < 4 {
		return 0
	}
	v := binary.BigEndian.Uint32(m.data)
	m.data = m.data[4:]
	return v
}

func (m *streamMode) Renew(uint8, RenewContext) uint32 { return m.next() }

// TestCoreMatchesNaive is the fuzz target's comparison on random inputs.
func TestCoreMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		data := make([]byte, 5+3*64+4*64)
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		size, nodeID, steps, stream := naive.DecodeSCRU64Steps(data)
		spec, err := NewNodeSpecWithNodeID(nodeID, size)
		if err != nil {
			t.Fatal(err)
		}
		g := NewGeneratorWithCounterMode(spec, &streamMode{stream})
		ref := &naive.SCRU64Core{Prev: uint64(spec.prev), NodeIDSize: size}
		refMode := &streamMode{stream}
		ref.Renew = func(uint8, uint64, uint32) uint32 { return refMode.next() }
		for i, s := range steps {
			want, wantErr := ref.Generate(s.Timestamp, s.Allowance, s.Abort)
			gen := g.GenerateOrResetCore
			if s.Abort {
				gen = g.GenerateOrAbortCore
			}
			got, err := gen(s.Timestamp, s.Allowance)
			if !sameError(err, wantErr) || err == nil && uint64(got) != want {
				t.Fatalf("spec %s step %d %+v: %#x, %v; naive %#x, %v", spec, i, s, uint64(got), err, want, wantErr)
			}
		}
	}
}

func sameError(err, ref error) bool {
	switch {
	case ref == nil:
		return err == nil
	case errors.Is(ref, naive.ErrInvalidTimestamp):
		return errors.Is(err, ErrInvalidTimestamp)
	case errors.Is(ref, naive.ErrClockRollback):
		return errors.Is(err, ErrClockRollback)
	}
	return false
}

// TestGenerateOrSleepWaitsForTheClock drives a 1-bit counter (two IDs per
// tick) until the timestamp runs more than the allowance ahead of the
// clock: Generate then refuses, GenerateOrSleep waits for the clock, and
// GenerateOrReset goes back to it.
func TestGenerateOrSleepWaitsForTheClock(t *testing.T) {
	g := NewGenerator(mustSpec(t, "0/23"))
	var last ID
	var err error
	for n := 0; ; n++ {
		var id ID
		if id, err = g.Generate(); err != nil {
			break
		}
		if id <= last || n > 200 {
			t.Fatalf("ID %d: %s after %s", n, id, last)
		}
		last = id
	}
	if !errors.Is(err, ErrClockRollback) {
		t.Fatalf("error %v, want ErrClockRollback", err)
	}
	lead := last.Timestamp() - uint64(time.Now().UnixMilli())>>8
	if lead < DefaultRollbackAllowance>>8 || lead > DefaultRollbackAllowance>>8+2 {
		t.Fatalf("the timestamp ran %d ticks ahead", lead)
	}
	start := time.Now()
	id, err := g.GenerateOrSleep()
	if waited := time.Since(start); err != nil || id <= last || waited > 2*time.Second {
		t.Fatalf("GenerateOrSleep gave %s, %v after %s, waiting %v", id, err, last, waited)
	}
	// GenerateOrReset never waits: it runs ahead up to the allowance and
	// then goes back to the clock.
	last, resets := id, 0
	start = time.Now()
	for range 300 {
		id, err := g.GenerateOrReset()
		if err != nil {
			t.Fatal(err)
		}
		if id <= last {
			resets++
		}
		if lead := id.Timestamp() - uint64(time.Now().UnixMilli())>>8; int64(lead) > DefaultRollbackAllowance>>8+2 {
			t.Fatalf("GenerateOrReset ran %d ticks ahead", lead)
		}
		last = id
	}
	if resets == 0 || time.Since(start) > time.Second {
		t.Fatalf("GenerateOrReset: %d resets in %v", resets, time.Since(start))
	}
}

// TestConcurrentUniqueAndOrdered takes 200k IDs in each of 8 goroutines
// from one Generator and checks that none repeats, that each goroutine's
// IDs increase, and that an ID generated after receiving another over a
// channel is larger (the order holds across goroutines in real time).
func TestConcurrentUniqueAndOrdered(t *testing.T) {
	n := 200_000
	if testing.Short() {
		n = 20_000
	}
	g := NewGenerator(mustSpec(t, "0/4")) // 2^20 IDs per tick
	idtest.Stress(t, 8, n, g.Generate, ID.Compare)
}

// countingMode is a custom counter mode safe for concurrent use.
type countingMode struct{ calls atomic.Int64 }

func (m *countingMode) Renew(counterSize uint8, _ RenewContext) uint32 {
	return uint32(m.calls.Add(1)) & (1<<(counterSize-1) - 1)
}

// TestConcurrentCustomMode runs a custom counter mode from several
// goroutines, for the race detector, and checks uniqueness.
func TestConcurrentCustomMode(t *testing.T) {
	g := NewGeneratorWithCounterMode(mustSpec(t, "9/12"), new(countingMode))
	const goroutines, n = 4, 5000
	results := make([][]ID, goroutines)
	var steps atomic.Uint64 // a shared clock that moves on so ticks start often
	var wg sync.WaitGroup
	for w := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n {
				// An allowance beyond any lag: a goroutine preempted
				// after reading the clock is behind by many steps.
				id, err := g.GenerateOrAbortCore(testMillis+steps.Add(1)*64, 1<<40)
				if err != nil {
					t.Error(err)
					return
				}
				results[w] = append(results[w], id)
			}
		}()
	}
	wg.Wait()
	idtest.SortedUnique(t, results, goroutines*n, ID.Compare)
}
