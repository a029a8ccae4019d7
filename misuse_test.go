package scru128

import (
	"errors"
	"io"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/fastid/scru128/internal/entropy"
	"github.com/fastid/scru128/internal/idtest"
)

// emptyReader returns no bytes and no error, forever.
type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, nil }

// farTimes are times no ID can hold, some of which wrap around in
// time.Time.UnixMilli's int64 to a value that looks valid.
var farTimes = []time.Time{
	time.Unix(-1, 0),
	time.UnixMilli(MaxTimestamp + 1),
	time.Unix(1<<62, 0),                // UnixMilli wraps to a time in 1970-2262
	time.Unix(math.MaxInt64/1000+1, 0), // UnixMilli wraps negative
	time.Date(292277026, 1, 1, 0, 0, 0, 0, time.UTC),
	time.Unix(-1<<62, 0),
	{},
}

// TestFarTimesAreOutOfRange is the symptom of MinAtTime and
// MaxAtTime wrapping far-future times round to 1970.
func TestFarTimesAreOutOfRange(t *testing.T) {
	for _, tm := range farTimes {
		for name, fn := range map[string]func(time.Time) (ID, error){
			"MinAtTime": MinAtTime, "MaxAtTime": MaxAtTime, "NewAt": NewAt,
		} {
			if id, err := fn(tm); !errors.Is(err, ErrOutOfRange) || !id.IsZero() {
				t.Errorf("%s(%v) = %s, %v; want ErrOutOfRange", name, tm, id, err)
			}
		}
	}
	edge := time.UnixMilli(MaxTimestamp).Add(999 * time.Microsecond)
	if id, err := MaxAtTime(edge); err != nil || id != Max {
		t.Fatalf("MaxAtTime(last instant) = %s, %v", id, err)
	}
	if id, err := MinAtTime(time.Unix(0, 0)); err != nil || !id.IsZero() {
		t.Fatalf("MinAtTime(1970) = %s, %v", id, err)
	}
}

func TestNewAt(t *testing.T) {
	at := time.Date(2022, 4, 3, 8, 17, 16, 97_500_000, time.UTC)
	seen := make(map[ID]bool)
	lo, _ := MinAtTime(at)
	hi, _ := MaxAtTime(at)
	for range 1000 {
		id, err := NewAt(at)
		if err != nil || id.Timestamp() != 1648973836097 || id.Compare(lo) < 0 || id.Compare(hi) > 0 {
			t.Fatalf("NewAt = %s (ts %d), %v", id, id.Timestamp(), err)
		}
		if seen[id] {
			t.Fatalf("NewAt repeated %s", id)
		}
		seen[id] = true
	}
	// Different milliseconds sort by time.
	a, _ := NewAt(at)
	b, _ := NewAt(at.Add(time.Millisecond))
	if a.Compare(b) >= 0 {
		t.Fatalf("NewAt(t) = %s is not below NewAt(t+1ms) = %s", a, b)
	}
	// The random fields are not stuck: over many IDs each bit varies.
	var or, and [2]uint64
	and = [2]uint64{math.MaxUint64, math.MaxUint64}
	for id := range seen {
		hi, lo := id.Uint64s()
		or[0], or[1], and[0], and[1] = or[0]|hi, or[1]|lo, and[0]&hi, and[1]&lo
	}
	if or[0]&0xffff != 0xffff || or[1] != math.MaxUint64 || and[0]&0xffff != 0 || and[1] != 0 {
		t.Fatalf("random bits do not vary: or %x %x, and %x %x", or[0], or[1], and[0], and[1])
	}
}

// TestZeroPool is the symptom of the zero Pool panicking on use.
func TestZeroPool(t *testing.T) {
	var p Pool
	var wg sync.WaitGroup
	ids := make([][]ID, 4)
	for w := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				ids[w] = append(ids[w], p.Generate())
			}
		}()
	}
	wg.Wait()
	now := uint64(time.Now().UnixMilli())
	seen := make(map[ID]bool)
	for _, list := range ids {
		for _, id := range list {
			if seen[id] || id.Timestamp() > now+5 || id.Timestamp()+60_000 < now {
				t.Fatalf("zero Pool gave %s (ts %d, now %d, repeat %v)", id, id.Timestamp(), now, seen[id])
			}
			seen[id] = true
		}
	}
	if b := p.AppendNew(nil); len(b) != 25 {
		t.Fatalf("zero Pool AppendNew = %q", b)
	}
}

// TestEmptyReaderIsAnError is the symptom of an rng that returns
// (0, nil) forever: the generator spun while holding its rng lock. Now the
// call fails, and the lock is free for the next.
func TestEmptyReaderIsAnError(t *testing.T) {
	g := NewGeneratorWithRng(emptyReader{})
	for range 2 { // the second call must not block on the lock
		done := make(chan error, 1)
		go func() { _, err := g.GenerateOrAbortCore(1000, 0); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, io.ErrNoProgress) || !errors.Is(err, entropy.ErrNoProgress) {
				t.Fatalf("Generate with an empty reader: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Generate with an empty reader did not return")
		}
	}
	s := shardGenerator{rng: emptyReader{}}
	if _, _, err := s.next(1000, 0, true); !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("shard generator with an empty reader: %v", err)
	}
}

// TestZeroGenerator is the symptom of the zero Generator and of
// NewGeneratorWithRng(nil) panicking on their first ID: both now mint as
// NewGenerator's does, from any number of goroutines.
func TestZeroGenerator(t *testing.T) {
	for name, g := range map[string]*Generator{"zero": new(Generator), "nil rng": NewGeneratorWithRng(nil)} {
		t.Run(name, func(t *testing.T) {
			before := uint64(time.Now().UnixMilli())
			all := idtest.Stress(t, 4, 10_000, g.Generate, ID.Compare)
			if ts := all[0].Timestamp(); ts+1 < before || ts > uint64(time.Now().UnixMilli())+1 {
				t.Fatalf("first timestamp %d, clock %d", ts, before)
			}
			ids := make([]ID, 100)
			if err := g.Fill(ids); err != nil || ids[0].Compare(all[len(all)-1]) <= 0 {
				t.Fatalf("Fill after Generate: %s, %v", ids[0], err)
			}
		})
	}
}
