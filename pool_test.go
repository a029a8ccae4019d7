package scru128

import (
	"bytes"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/fastid/scru128/internal/clock"
	"github.com/fastid/scru128/internal/entropy"
	"github.com/fastid/scru128/internal/idtest"
	"github.com/fastid/scru128/internal/naive"
)

// generate is shardGenerator.next returning an ID, for the tests.
func (g *shardGenerator) generate(timestamp, allowance uint64, abort bool) (ID, error) {
	hi, lo, err := g.next(timestamp, allowance, abort)
	return FromUint64s(hi, lo), err
}

// TestPoolConcurrentUniqueAndTimely takes IDs from 16 goroutines at once
// and checks that none repeats and that each timestamp is the wall-clock
// millisecond of its call, allowing a few ms for counter overflow.
func TestPoolConcurrentUniqueAndTimely(t *testing.T) {
	const goroutines = 16
	perGoroutine := 500_000
	if testing.Short() || idtest.RaceEnabled {
		perGoroutine = 20_000
	}
	const overflowMargin = 5 // ms
	p := NewPool()
	results := make([][]ID, goroutines)
	var wg sync.WaitGroup
	for w := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids := make([]ID, perGoroutine)
			for i := range ids {
				before := uint64(time.Now().UnixMilli())
				ids[i] = p.Generate()
				after := uint64(time.Now().UnixMilli())
				if ts := ids[i].Timestamp(); ts+1 < before || ts > after+overflowMargin {
					t.Errorf("timestamp %d outside [%d, %d]", ts, before, after+overflowMargin)
					return
				}
				if i%100_000 == 0 {
					runtime.GC() // drop shards now and then; their successors must not repeat IDs
				}
			}
			results[w] = ids
		}()
	}
	wg.Wait()
	idtest.SortedUnique(t, results, goroutines*perGoroutine, ID.Compare)
}

// TestShardStreamFollowsSpec checks that one shard, used from one goroutine,
// yields increasing IDs that follow the field rules: within a millisecond
// counter_lo counts up under one counter_hi.
func TestShardStreamFollowsSpec(t *testing.T) {
	s := shardGenerator{src: entropy.NewSource()}
	c := clock.New()
	prev, _ := s.generate(c.Millis(), DefaultRollbackAllowance, false)
	for range 100_000 {
		id, err := s.generate(c.Millis(), DefaultRollbackAllowance, false)
		if err != nil || id.Compare(prev) <= 0 {
			t.Fatalf("%s after %s (%v)", id, prev, err)
		}
		if id.Timestamp() == prev.Timestamp() && id.CounterHi() == prev.CounterHi() && id.CounterLo() != prev.CounterLo()+1 {
			t.Fatalf("counter_lo %d after %d in the same millisecond", id.CounterLo(), prev.CounterLo())
		}
		prev = id
	}
}

func TestPoolPackageLevel(t *testing.T) {
	a, b := NewUnordered(), NewUnordered()
	if a == b || a.IsZero() {
		t.Fatal("NewUnordered repeated or zero")
	}
	if _, err := Parse(NewUnorderedString()); err != nil {
		t.Fatal(err)
	}
	buf := AppendNewUnordered([]byte("id="))
	if _, err := ParseBytes(buf[3:]); err != nil || string(buf[:3]) != "id=" {
		t.Fatalf("AppendNewUnordered = %q", buf)
	}
}

func TestPoolDoesNotAllocate(t *testing.T) {
	idtest.SkipIfInstrumented(t)
	p := NewPool()
	buf := make([]byte, 0, 64)
	p.Generate() // create the first shard
	idtest.CheckAllocs(t, 0, 100_000, map[string]func(){
		"Generate":  func() { sinkID = p.Generate() },
		"AppendNew": func() { buf = p.AppendNew(buf[:0]) },
	})
	// Across collections: sync.Pool drops its shards at the second GC, and
	// rebuilding one allocates; averaged over many calls that rounds to 0.
	n := testing.AllocsPerRun(10, func() {
		runtime.GC()
		for range 10_000 {
			sinkID = p.Generate()
		}
	})
	if perCall := n / 10_000; perCall > 0.01 {
		t.Errorf("%v allocations per call across GCs", perCall)
	}
}

// FuzzShardGenerator drives a Pool shard's generator and the reference
// algorithm with the same timestamps and byte stream, as fuzz.FuzzCore does
// for Generator, and requires the same IDs and errors.
func FuzzShardGenerator(f *testing.F) {
	f.Add([]byte{5, 0, 0, 0, 0, 0, 0, 2, 0, 1, 14, 0, 3, 8, 0x10, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Add(append([]byte{8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9, 1, 0, 8, 0xff, 0xff, 1, 0, 0}, bytes.Repeat([]byte{0xff}, 64)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		steps, stream := naive.DecodeSteps(data)
		g := shardGenerator{rng: bytes.NewReader(stream)}
		ref := naive.Core{Rng: bytes.NewReader(stream)}
		for i, s := range steps {
			want, wantErr := ref.Generate(s.Timestamp, s.Allowance, s.Abort)
			got, err := g.generate(s.Timestamp, s.Allowance, s.Abort)
			if (err == nil) != (wantErr == nil) || err == nil && got != ID(want) ||
				err != nil && !sameErrorKind(err, wantErr) {
				t.Fatalf("step %d %+v: got %x, %v; naive %x, %v", i, s, got, err, want, wantErr)
			}
		}
	})
}

// sameErrorKind reports whether a package error corresponds to the
// reference's.
func sameErrorKind(err, ref error) bool {
	switch ref {
	case naive.ErrInvalidTimestamp:
		return err == ErrInvalidTimestamp
	case naive.ErrClockRollback:
		return err == ErrClockRollback
	}
	return err != ErrInvalidTimestamp && err != ErrClockRollback // the rng failed
}
