package ulid

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fastid/scru128/internal/idtest"
	"github.com/fastid/scru128/internal/naive"
)

// constReader is an endless stream of one byte value.
type constReader byte

func (c constReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(c)
	}
	return len(p), nil
}

func TestGenerateIncreasesAndHasCurrentTime(t *testing.T) {
	g := NewGenerator()
	prev := ULID{}
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
		if ts := id.Timestamp(); ts+1 < before || ts > after+1 {
			t.Fatalf("timestamp %d outside [%d, %d]", ts, before, after)
		}
		prev = id
	}
}

func TestMonotonicStepAndCarry(t *testing.T) {
	// Random part 00 00 00 00 00 ff ff ff ff ff: the next one carries into
	// the high 32 bits.
	stream := []byte{0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff}
	g := NewGeneratorWithRng(bytes.NewReader(stream))
	first, err := g.GenerateOrAbortCore(1000, 0)
	if err != nil || first.Entropy() != [10]byte(stream) {
		t.Fatalf("first = %x, %v", first, err)
	}
	second, _ := g.GenerateOrAbortCore(1000, 0)
	if second.Entropy() != [10]byte{0, 0, 0, 0, 1, 0, 0, 0, 0, 0} || second.Timestamp() != 1000 {
		t.Fatalf("second = %x", second)
	}
	third, _ := g.GenerateOrAbortCore(1000, 0)
	if third.Entropy() != [10]byte{0, 0, 0, 0, 1, 0, 0, 0, 0, 1} {
		t.Fatalf("third = %x", third)
	}
}

func TestMonotonicOverflow(t *testing.T) {
	g := NewGeneratorWithRng(constReader(0xff))
	first, err := g.GenerateOrAbortCore(1000, 0)
	if err != nil || first != (ULID{0, 0, 0, 0, 0x03, 0xe8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}) {
		t.Fatalf("first = %x, %v", first, err)
	}
	if _, err := g.GenerateOrAbortCore(1000, 0); !errors.Is(err, ErrMonotonicOverflow) {
		t.Fatalf("error = %v, want ErrMonotonicOverflow", err)
	}
	// The next millisecond starts afresh.
	next, err := g.GenerateOrAbortCore(1001, 0)
	if err != nil || next.Timestamp() != 1001 {
		t.Fatalf("next = %x, %v", next, err)
	}
	// Overflow in the high 32 bits after a carry.
	g = NewGeneratorWithRng(bytes.NewReader([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}))
	g.GenerateOrAbortCore(1000, 0)
	if id, err := g.GenerateOrAbortCore(1000, 0); err != nil || id.Entropy() != [10]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff} {
		t.Fatalf("last before overflow = %x, %v", id, err)
	}
	if _, err := g.GenerateOrAbortCore(1000, 0); !errors.Is(err, ErrMonotonicOverflow) {
		t.Fatalf("error = %v", err)
	}
}

func TestRollback(t *testing.T) {
	for _, abort := range []bool{false, true} {
		g := NewGeneratorWithRng(constReader(7))
		gen := g.GenerateOrResetCore
		if abort {
			gen = g.GenerateOrAbortCore
		}
		const ts = 10_000_000
		first, _ := gen(ts, 10_000)
		id, err := gen(ts-10_000, 10_000)
		if err != nil || id.Timestamp() != ts || id.Compare(first) <= 0 {
			t.Fatalf("abort=%v: rollback within allowance gave %d, %v", abort, id.Timestamp(), err)
		}
		id, err = gen(ts-10_001, 10_000)
		if abort {
			if !errors.Is(err, ErrClockRollback) {
				t.Fatalf("abort: error %v", err)
			}
			next, err := gen(ts, 10_000)
			if err != nil || next.Compare(first) <= 0 {
				t.Fatalf("abort: after refusal got %s, %v", next, err)
			}
			continue
		}
		if err != nil || id.Timestamp() != ts-10_001 {
			t.Fatalf("reset: got %d, %v", id.Timestamp(), err)
		}
	}
}

func TestInvalidTimestampsAndRngErrors(t *testing.T) {
	g := NewGeneratorWithRng(constReader(1))
	for _, tc := range []struct{ ts, allowance uint64 }{{0, 0}, {MaxTimestamp + 1, 0}, {1, MaxTimestamp + 1}} {
		if _, err := g.GenerateOrResetCore(tc.ts, tc.allowance); !errors.Is(err, ErrInvalidTimestamp) {
			t.Errorf("core(%d, %d) error = %v", tc.ts, tc.allowance, err)
		}
	}
	g = NewGeneratorWithRng(bytes.NewReader(make([]byte, 15)))
	if _, err := g.GenerateOrAbortCore(1000, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := g.GenerateOrAbortCore(1001, 0); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("error = %v, want wrapped io.ErrUnexpectedEOF", err)
	}
	// The failed call left the state alone.
	if id, err := g.GenerateOrAbortCore(1000, 0); err != nil || id.Timestamp() != 1000 {
		t.Fatalf("after rng error: %s, %v", id, err)
	}
}

// TestCoreMatchesNaive runs the core and the reference over the same
// timestamps and bytes, including rollbacks both ways.
func TestCoreMatchesNaive(t *testing.T) {
	stream := make([]byte, 4096)
	for i := range stream {
		stream[i] = byte(i*131 + i>>3)
	}
	g := NewGeneratorWithRng(bytes.NewReader(stream))
	ref := naive.ULIDCore{Rng: bytes.NewReader(stream)}
	ts := uint64(1_700_000_000_000)
	for i := range 2000 {
		switch i % 7 {
		case 1:
			ts++
		case 3:
			ts -= 3
		case 5:
			ts -= 20_000
		case 6:
			ts += 40_000
		}
		abort := i%2 == 0
		want, wantErr := ref.Generate(ts, 10_000, abort)
		var got ULID
		var err error
		if abort {
			got, err = g.GenerateOrAbortCore(ts, 10_000)
		} else {
			got, err = g.GenerateOrResetCore(ts, 10_000)
		}
		if (err == nil) != (wantErr == nil) || err == nil && got != ULID(want) {
			t.Fatalf("step %d (ts %d): got %s, %v; naive %x, %v", i, ts, got, err, want, wantErr)
		}
	}
}

// TestConcurrentUniqueAndOrdered takes IDs from 8 goroutines at once and
// checks that none repeats, that each goroutine's IDs increase, and that
// an ID generated after receiving another over a channel is larger.
func TestConcurrentUniqueAndOrdered(t *testing.T) {
	n := 200_000
	if testing.Short() {
		n = 20_000
	}
	g := NewGenerator()
	idtest.Stress(t, 8, n, g.Generate, ULID.Compare)
}

// TestConcurrentEpochChanges drives the core from 8 goroutines with a
// timestamp that advances every 20 calls, and every 2, so epochs change
// all the time and race with other goroutines, which must help finish
// them. A goroutine that sleeps between its loads of the state words sees
// words of several epochs; none may be moved back, which once left the
// generator spinning.
func TestConcurrentEpochChanges(t *testing.T) {
	for _, callsPerMs := range []uint64{20, 2} {
		const goroutines = 8
		perGoroutine := 100_000
		if testing.Short() {
			perGoroutine = 20_000
		}
		// Fewer than 2^16 epochs in all: the tags wrap after that many,
		// which takes over a minute with a real clock but not here.
		perGoroutine = min(perGoroutine, int(60_000*callsPerMs/goroutines))
		g := NewGenerator()
		var calls atomic.Uint64
		const base = 1_700_000_000_000
		// The allowance is unlimited: a goroutine descheduled for a while
		// falls many synthetic milliseconds behind.
		all := idtest.Stress(t, goroutines, perGoroutine, func() (ULID, error) {
			return g.GenerateOrAbortCore(base+calls.Add(1)/callsPerMs, MaxTimestamp)
		}, ULID.Compare)
		if last, limit := all[len(all)-1].Timestamp(), base+uint64(goroutines*perGoroutine)/callsPerMs; last > limit {
			t.Fatalf("timestamp %d ran ahead of the last one supplied, %d", last, limit)
		}
	}
}

func TestNewUnorderedUniqueAcrossGoroutines(t *testing.T) {
	const goroutines = 8
	n := 200_000
	if testing.Short() || idtest.RaceEnabled {
		n = 20_000
	}
	results := make([][]ULID, goroutines)
	var wg sync.WaitGroup
	for w := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids := make([]ULID, n)
			for i := range ids {
				before := uint64(time.Now().UnixMilli())
				ids[i] = NewUnordered()
				if ts := ids[i].Timestamp(); ts+1 < before || ts > uint64(time.Now().UnixMilli())+1 {
					t.Errorf("timestamp %d, now %d", ts, before)
					return
				}
			}
			results[w] = ids
		}()
	}
	wg.Wait()
	idtest.SortedUnique(t, results, goroutines*n, ULID.Compare)
}

// TestPackageLevel checks the naming ladder: New, Make and their string
// and append forms share one ordered stream; the Unordered forms do not
// repeat.
func TestPackageLevel(t *testing.T) {
	a, b := New(), Make()
	if b.Compare(a) <= 0 {
		t.Fatal("Make not above New")
	}
	c, err := Parse(MakeString())
	if err != nil || c.Compare(b) <= 0 {
		t.Fatalf("MakeString: %s, %v", c, err)
	}
	d, err := Parse(NewString())
	if err != nil || d.Compare(c) <= 0 {
		t.Fatalf("NewString: %s, %v", d, err)
	}
	buf := AppendNew([]byte("id="))
	if e, err := ParseBytes(buf[3:]); err != nil || e.Compare(d) <= 0 || string(buf[:3]) != "id=" {
		t.Fatalf("AppendNew = %q, %v", buf, err)
	}
	if x, y := NewUnordered(), NewUnordered(); x == y {
		t.Fatal("NewUnordered repeated")
	}
	if _, err := Parse(NewUnorderedString()); err != nil {
		t.Fatal(err)
	}
	buf = AppendNewUnordered([]byte("id="))
	if _, err := ParseBytes(buf[3:]); err != nil || string(buf[:3]) != "id=" {
		t.Fatalf("AppendNewUnordered = %q, %v", buf, err)
	}
}

// TestNewIsOrdered checks that New is the ordered stream across
// goroutines, as the ladder promises.
func TestNewIsOrdered(t *testing.T) {
	n := 50_000
	if testing.Short() || idtest.RaceEnabled {
		n = 5_000
	}
	idtest.Stress(t, 4, n, func() (ULID, error) { return New(), nil }, ULID.Compare)
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
	idtest.StressWithChurn(t, 64, n, g.Generate, ULID.Compare)
}
