package entropy

import (
	"bytes"
	"errors"
	"io"
	"math/bits"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/fastid/scru128/internal/idtest"
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
	s.left = 0
	s.Uint64()
	if !s.seededAt.After(first) {
		t.Fatal("did not reseed after the interval")
	}
}

func TestZeroSourceSeedsItself(t *testing.T) {
	var a, b Source
	a1, b1 := a.Uint64(), b.Uint64()
	if a2, b2 := a.Uint64(), b.Uint64(); a1 == b1 && a2 == b2 {
		t.Fatal("two zero Sources agree: they were not seeded")
	}
	if a.seededAt.IsZero() {
		t.Fatal("a zero Source did not seed on first use")
	}
	var zeros int
	for range 2 * bufferValues {
		if a.Uint32() == 0 {
			zeros++
		}
	}
	if zeros > 2 {
		t.Fatalf("%d zero values in %d: the empty buffer was handed out", zeros, 2*bufferValues)
	}
}

func TestGetPut(t *testing.T) {
	s := Get()
	first := s.Uint64()
	Put(s)
	s = Get()
	if s.Uint64() == first {
		t.Fatal("a pooled Source repeated a value")
	}
	Put(s)
	if testing.CoverMode() == "" && !idtest.RaceEnabled {
		if n := testing.AllocsPerRun(1000, func() { s := Get(); sink = s.Uint64(); Put(s) }); n != 0 {
			t.Fatalf("Get, Uint64, Put: %v allocations", n)
		}
	}
}

// emptyReader returns no bytes and no error, forever.
type emptyReader struct{ calls int }

func (r *emptyReader) Read([]byte) (int, error) { r.calls++; return 0, nil }

// trickleReader returns one byte per call, with an empty read between.
type trickleReader struct{ n int }

func (r *trickleReader) Read(b []byte) (int, error) {
	r.n++
	if r.n%2 == 0 || len(b) == 0 {
		return 0, nil
	}
	b[0] = byte(r.n)
	return 1, nil
}

// badCountReader claims to have read more bytes than it was given room for.
type badCountReader struct{}

func (badCountReader) Read(b []byte) (int, error) { return len(b) + 1, nil }

func TestReadFull(t *testing.T) {
	b := make([]byte, 8)
	if err := ReadFull(bytes.NewReader([]byte("12345678x")), b); err != nil || string(b) != "12345678" {
		t.Fatalf("full read = %q, %v", b, err)
	}
	if err := ReadFull(iotest.OneByteReader(bytes.NewReader([]byte("abcdefgh"))), b); err != nil || string(b) != "abcdefgh" {
		t.Fatalf("one byte at a time = %q, %v", b, err)
	}
	if err := ReadFull(&trickleReader{}, b); err != nil {
		t.Fatalf("empty reads between bytes: %v", err)
	}
	if err := ReadFull(bytes.NewReader(nil), b); err != io.EOF {
		t.Fatalf("no bytes: %v, want io.EOF", err)
	}
	if err := ReadFull(bytes.NewReader([]byte("abc")), b); err != io.ErrUnexpectedEOF {
		t.Fatalf("short: %v, want io.ErrUnexpectedEOF", err)
	}
	if err := ReadFull(iotest.DataErrReader(bytes.NewReader([]byte("abcdefgh"))), b); err != nil {
		t.Fatalf("EOF with the last bytes: %v", err)
	}
	boom := errors.New("boom")
	if err := ReadFull(iotest.ErrReader(boom), b); err != boom {
		t.Fatalf("reader error: %v", err)
	}
	r := &emptyReader{}
	err := ReadFull(r, b)
	if !errors.Is(err, ErrNoProgress) || !errors.Is(err, io.ErrNoProgress) || r.calls != MaxEmptyReads {
		t.Fatalf("empty reader: %v after %d calls", err, r.calls)
	}
	if err := ReadFull(nil, b); err == nil {
		t.Fatal("nil reader accepted")
	}
	if err := ReadFull(badCountReader{}, b); err == nil {
		t.Fatal("impossible count accepted")
	}
	if err := ReadFull(&emptyReader{}, nil); err != nil {
		t.Fatalf("zero-length read: %v", err)
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
