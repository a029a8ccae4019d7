package entropy

import (
	"math/bits"
	"sync"
	"testing"
)

func TestSourceReseedsOnSchedule(t *testing.T) {
	s := NewSource()
	first := s.seededAt
	for range 3 * bufferValues {
		s.Uint64()
	}
	if s.seededAt != first {
		t.Fatal("reseeded before the interval passed")
	}
	s.seededAt = s.seededAt.Add(-ReseedInterval) // pretend a second went by
	s.pos = bufferValues
	s.Uint64()
	if !s.seededAt.After(first) {
		t.Fatal("did not reseed after the interval")
	}
}

func TestSourcesDiffer(t *testing.T) {
	a, b := NewSource(), NewSource()
	same := 0
	for range 1000 {
		if a.Uint64() == b.Uint64() {
			same++
		}
	}
	if same > 0 {
		t.Fatalf("two sources agreed on %d of 1000 values", same)
	}
}

// TestBitBalance is a smoke test that every output bit is used: over 64k
// draws each bit is set close to half the time.
func TestBitBalance(t *testing.T) {
	for name, next := range map[string]func() uint64{
		"Source": NewSource().Uint64,
		"Shared": NewShared().Uint64,
	} {
		var counts [64]int
		const n = 1 << 16
		for range n {
			v := next()
			for v != 0 {
				i := bits.TrailingZeros64(v)
				counts[i]++
				v &= v - 1
			}
		}
		for i, c := range counts {
			if c < n/2-n/32 || c > n/2+n/32 {
				t.Errorf("%s: bit %d set %d times of %d", name, i, c, n)
			}
		}
	}
}

func TestSharedRekeyChangesStream(t *testing.T) {
	s := NewShared()
	k1 := s.key.Load()
	s.Rekey()
	if s.key.Load() == k1 {
		t.Fatal("Rekey kept the key")
	}
}

func TestSharedConcurrent(t *testing.T) {
	s := NewShared()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10000 {
				s.Uint64()
				if i%1000 == 0 {
					s.Rekey()
				}
			}
		}()
	}
	wg.Wait()
}

func TestSourceAllocsNothing(t *testing.T) {
	s := NewSource()
	if n := testing.AllocsPerRun(10000, func() { s.Uint32() }); n != 0 {
		t.Fatalf("Uint32 allocates %v times", n)
	}
}

var sink uint64

func BenchmarkSourceUint64(b *testing.B) {
	s := NewSource()
	for b.Loop() {
		sink = s.Uint64()
	}
}

func BenchmarkSourceUint32(b *testing.B) {
	s := NewSource()
	for b.Loop() {
		sink = uint64(s.Uint32())
	}
}

func BenchmarkSharedUint64(b *testing.B) {
	s := NewShared()
	for b.Loop() {
		sink = s.Uint64()
	}
}

// BenchmarkPooledSource is the alternative Shared replaces: a Source per P
// taken from a sync.Pool for each value.
func BenchmarkPooledSource(b *testing.B) {
	pool := sync.Pool{New: func() any { return NewSource() }}
	for b.Loop() {
		s := pool.Get().(*Source)
		sink = s.Uint64()
		pool.Put(s)
	}
}
