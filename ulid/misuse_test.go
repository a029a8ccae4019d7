package ulid

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/fastid/scru128/internal/idtest"
)

// emptyReader returns no bytes and no error, forever.
type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, nil }

// TestZeroGenerator is the symptom of the zero Generator and of
// NewGeneratorWithRng(nil) panicking on their first ID: both now mint as
// NewGenerator's does, from any number of goroutines.
func TestZeroGenerator(t *testing.T) {
	for name, g := range map[string]*Generator{"zero": new(Generator), "nil rng": NewGeneratorWithRng(nil)} {
		t.Run(name, func(t *testing.T) {
			before := uint64(time.Now().UnixMilli())
			all := idtest.Stress(t, 4, 10_000, g.Generate, ULID.Compare)
			if ts := all[0].Timestamp(); ts+1 < before || ts > uint64(time.Now().UnixMilli())+1 {
				t.Fatalf("first timestamp %d, clock %d", ts, before)
			}
		})
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
			if !errors.Is(err, io.ErrNoProgress) {
				t.Fatalf("Generate with an empty reader: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Generate with an empty reader did not return")
		}
	}
}
