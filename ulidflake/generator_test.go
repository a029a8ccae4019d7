package ulidflake

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

type constReader byte

func (c constReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(c)
	}
	return len(p), nil
}

func mustGenerator(t testing.TB, opts ...Option) *Generator {
	t.Helper()
	g, err := NewGenerator(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestOptions(t *testing.T) {
	for _, opt := range []Option{WithScalabilityID(32), WithMaxStep(0), WithMaxStep(1 << 16)} {
		if _, err := NewGenerator(opt); !errors.Is(err, ErrInvalidOption) {
			t.Fatalf("error = %v, want ErrInvalidOption", err)
		}
	}
	epoch := time.Date(2020, 5, 6, 7, 8, 9, 0, time.UTC)
	g := mustGenerator(t, WithEpoch(epoch), WithScalabilityID(9))
	id, err := g.Generate()
	if err != nil || id.ScalabilityID() != 9 || !g.Epoch().Equal(epoch) {
		t.Fatalf("%d, %v", id, err)
	}
	if d := time.Since(g.Time(id)); d < -time.Second || d > time.Second {
		t.Fatalf("Time = %v, now %v", g.Time(id), time.Now())
	}
	// Before the epoch.
	g = mustGenerator(t, WithEpoch(time.Now().Add(time.Hour)))
	if _, err := g.Generate(); !errors.Is(err, ErrInvalidTimestamp) {
		t.Fatalf("before epoch: %v", err)
	}
	if _, err := g.GenerateOrWait(); !errors.Is(err, ErrInvalidTimestamp) {
		t.Fatalf("before epoch (wait): %v", err)
	}
}

func TestGenerateCore(t *testing.T) {
	// Draws 0x00000007: random part 7, then step 1 + 7*255>>32 = 1.
	g := mustGenerator(t, WithRng(bytes.NewReader([]byte{0, 0, 0, 7, 0, 0, 0, 7, 0x80, 0, 0, 0})))
	a, _ := g.GenerateCore(1000)
	b, _ := g.GenerateCore(1000)
	c, _ := g.GenerateCore(1000) // step 1 + 0x80000000*255>>32 = 128
	if a.Randomness() != 7 || b.Randomness() != 8 || c.Randomness() != 8+128 || c.Timestamp() != 1000 {
		t.Fatalf("randomness %d %d %d", a.Randomness(), b.Randomness(), c.Randomness())
	}
	if _, err := g.GenerateCore(999); !errors.Is(err, ErrClockRollback) {
		t.Fatalf("rollback: %v", err)
	}
	if _, err := g.GenerateCore(MaxTimestamp + 1); !errors.Is(err, ErrInvalidTimestamp) {
		t.Fatalf("above max: %v", err)
	}
	if _, err := g.GenerateCore(1001); !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		t.Fatalf("rng error: %v", err)
	}
}

func TestOverflowAndWait(t *testing.T) {
	// 0xff draws: the random part starts at its maximum and overflows at
	// once.
	for _, opts := range [][]Option{nil, {WithScalabilityID(31)}} {
		g := mustGenerator(t, append(opts, WithRng(constReader(0xff)))...)
		first, err := g.GenerateCore(5000)
		if err != nil || first.Randomness()|0x1f != MaxRandomness {
			t.Fatalf("first = %x, %v", first, err)
		}
		if _, err := g.GenerateCore(5000); !errors.Is(err, ErrMonotonicOverflow) {
			t.Fatalf("error = %v, want ErrMonotonicOverflow", err)
		}
		if next, err := g.GenerateCore(5001); err != nil || next.Timestamp() != 5001 {
			t.Fatalf("next ms: %v", err)
		}
	}
	// GenerateOrWait gets past overflows by waiting: with 0xff draws every
	// millisecond holds one ID.
	g := mustGenerator(t, WithRng(constReader(0xff)))
	prev := ID(-1)
	for range 5 {
		id, err := g.GenerateOrWait()
		if err != nil || id <= prev {
			t.Fatalf("%d after %d, %v", id, prev, err)
		}
		if prev >= 0 && id.Timestamp() <= prev.Timestamp() {
			t.Fatal("did not wait for the next millisecond")
		}
		prev = id
	}
}

// TestCoreMatchesNaive drives the core and the reference with the same
// timestamps and bytes in both versions.
func TestCoreMatchesNaive(t *testing.T) {
	stream := make([]byte, 1<<14)
	for i := range stream {
		stream[i] = byte(i*167 + i>>5)
	}
	for _, scalable := range []bool{false, true} {
		opts := []Option{WithRng(bytes.NewReader(stream)), WithMaxStep(4000)}
		ref := naive.FlakeCore{RandomBits: 20, MaxStep: 4000, Rng: bytes.NewReader(stream)}
		if scalable {
			opts = append(opts, WithScalabilityID(21))
			ref.RandomBits, ref.ScalabilityID = 15, 21
		}
		g := mustGenerator(t, opts...)
		ts := uint64(1_000_000)
		for i := range 3000 {
			switch i % 11 {
			case 3:
				ts++
			case 7:
				ts--
			}
			want, wantErr := ref.Generate(ts)
			got, err := g.GenerateCore(ts)
			if (err == nil) != (wantErr == nil) || err == nil && int64(got) != want {
				t.Fatalf("step %d (ts %d): got %d, %v; naive %d, %v", i, ts, got, err, want, wantErr)
			}
		}
	}
}

func TestConcurrentUniqueAndOrdered(t *testing.T) {
	n := 200_000
	if testing.Short() {
		n = 20_000
	}
	// A step of 1 and a synthetic clock that advances every 64 calls keep
	// overflows away, so all 1.6 million IDs are minted quickly.
	g := mustGenerator(t, WithMaxStep(1), WithRng(constReader(0)))
	var calls atomic.Uint64
	idtest.Stress(t, 8, n, func() (ID, error) {
		for {
			id, err := g.GenerateCore(calls.Add(1) / 64)
			if !errors.Is(err, ErrClockRollback) {
				return id, err
			}
			// A goroutine that read the synthetic clock before others
			// minted at a later one: read it again.
		}
	}, ID.Compare)
}

func TestConcurrentWithClock(t *testing.T) {
	const goroutines = 8
	n := 20_000
	g := mustGenerator(t)
	results := make([][]ID, goroutines)
	var wg sync.WaitGroup
	for w := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			prev := ID(-1)
			for range n {
				id, err := g.GenerateOrWait()
				if err != nil || id <= prev {
					t.Errorf("%d after %d, %v", id, prev, err)
					return
				}
				results[w] = append(results[w], id)
				prev = id
			}
		}()
	}
	wg.Wait()
	idtest.SortedUnique(t, results, goroutines*n, ID.Compare)
}

func TestPackageLevelNew(t *testing.T) {
	a := New()
	b, err := Parse(NewString())
	if err != nil || b <= a || time.Since(a.Time()) > time.Minute {
		t.Fatalf("%d %d %v", a, b, err)
	}
}

// emptyReader returns no bytes and no error, forever.
type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, nil }

// TestMisuse covers the symptoms for this package: the zero
// Generator panicked, and an rng that returns (0, nil) forever spun while
// holding the lock. WithRng(nil) means the default source.
func TestMisuse(t *testing.T) {
	var zero Generator
	withNil := mustGenerator(t, WithRng(nil))
	for name, g := range map[string]*Generator{"zero": &zero, "WithRng(nil)": withNil} {
		a, err := g.Generate()
		b, err2 := g.GenerateOrWait()
		if err != nil || err2 != nil || b <= a || time.Since(g.Time(a)) > time.Minute || a.Randomness() == b.Randomness() {
			t.Errorf("%s Generator: %d, %d, %v, %v", name, a, b, err, err2)
		}
	}
	if !zero.Epoch().Equal(DefaultEpoch()) {
		t.Errorf("zero Generator epoch %v", zero.Epoch())
	}
	g := mustGenerator(t, WithRng(emptyReader{}))
	for range 2 { // the second call must find the lock free
		done := make(chan error, 1)
		go func() { _, err := g.GenerateCore(5); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, io.ErrNoProgress) {
				t.Fatalf("empty reader: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("empty reader: GenerateCore did not return")
		}
	}
	for _, epoch := range []time.Time{time.Unix(-1, 0), time.Unix(1<<62, 0), time.UnixMilli(1 << 48)} {
		if _, err := NewGenerator(WithEpoch(epoch)); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("WithEpoch(%v): %v", epoch, err)
		}
	}
}

// TestGenerateOrWaitWaitsThroughRollback checks that GenerateOrWait, and
// so New, waits for a clock that moved back instead of failing.
func TestGenerateOrWaitWaitsThroughRollback(t *testing.T) {
	g := mustGenerator(t)
	now, _ := g.now()
	// An ID 150 ms ahead of the clock stands for a clock that moved back.
	ahead, err := g.GenerateCore(now + 150)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Generate(); !errors.Is(err, ErrClockRollback) {
		t.Fatalf("Generate after a rollback: %v", err)
	}
	start := time.Now()
	id, err := g.GenerateOrWait()
	if waited := time.Since(start); err != nil || id <= ahead || waited < 100*time.Millisecond || waited > 2*time.Second {
		t.Fatalf("GenerateOrWait = %d after %d, %v, waiting %v", id, ahead, err, waited)
	}
}
