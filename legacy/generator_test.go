package legacy

import (
	"bytes"
	"errors"
	"io"
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

func TestFieldRules(t *testing.T) {
	// Draws 1, 2, 3, ...: counter, per_sec_random, per_gen_random.
	var stream []byte
	for i := range 64 {
		stream = append(stream, 0, 0, 0, byte(i+1))
	}
	g := NewGeneratorWithRng(bytes.NewReader(stream))
	a, _ := g.GenerateCore(5000)
	b, _ := g.GenerateCore(5000)
	c, _ := g.GenerateCore(4000) // moved back: counts on at 5000
	d, _ := g.GenerateCore(5999) // new ms, same second: per_sec_random kept
	e, _ := g.GenerateCore(6000) // a second after the renewal
	check := func(id ID, ts uint64, counter, ps, pg uint32) {
		t.Helper()
		if id.Timestamp() != ts || id.Counter() != counter || id.PerSecRandom() != ps || id.PerGenRandom() != pg {
			t.Fatalf("got %d %d %d %d, want %d %d %d %d", id.Timestamp(), id.Counter(), id.PerSecRandom(), id.PerGenRandom(), ts, counter, ps, pg)
		}
	}
	check(a, 5000, 1, 2, 3)
	check(b, 5000, 2, 2, 4)
	check(c, 5000, 3, 2, 5)
	check(d, 5999, 6, 2, 7)
	check(e, 6000, 8, 9, 10)
}

func TestCounterOverflow(t *testing.T) {
	g := NewGeneratorWithRng(constReader(0xff))
	if id, err := g.GenerateCore(100); err != nil || id.Counter() != MaxCounter {
		t.Fatalf("%v %v", id, err)
	}
	if _, err := g.GenerateCore(100); !errors.Is(err, ErrMonotonicOverflow) {
		t.Fatalf("error = %v", err)
	}
	if id, err := g.GenerateCore(101); err != nil || id.Timestamp() != 101 {
		t.Fatalf("next ms: %v", err)
	}
	// Generate waits the overflow out.
	g = NewGeneratorWithRng(constReader(0xff))
	prev := ID{}
	for range 3 {
		id, err := g.Generate()
		if err != nil || id.Compare(prev) <= 0 {
			t.Fatalf("%s after %s, %v", id, prev, err)
		}
		prev = id
	}
	if _, err := g.GenerateCore(MaxTimestamp + 1); !errors.Is(err, ErrInvalidTimestamp) {
		t.Fatal(err)
	}
}

func TestCoreMatchesNaive(t *testing.T) {
	stream := make([]byte, 1<<15)
	for i := range stream {
		stream[i] = byte(i*193 + i>>4)
	}
	g := NewGeneratorWithRng(bytes.NewReader(stream))
	ref := naive.LegacyCore{Rng: bytes.NewReader(stream)}
	ts := uint64(100_000_000)
	for i := range 3000 {
		switch i % 9 {
		case 2:
			ts++
		case 5:
			ts -= 2
		case 8:
			ts += 700
		}
		want, wantErr := ref.Generate(ts)
		got, err := g.GenerateCore(ts)
		if (err == nil) != (wantErr == nil) || err == nil && got != ID(want) {
			t.Fatalf("step %d: got %s, %v; naive %x, %v", i, got, err, want, wantErr)
		}
	}
}

func TestGenerateHasCurrentTime(t *testing.T) {
	g := NewGenerator()
	prev := ID{}
	for range 10_000 {
		before := time.Now().UnixMilli()
		id, err := g.Generate()
		if err != nil || id.Compare(prev) <= 0 {
			t.Fatalf("%s after %s, %v", id, prev, err)
		}
		if ms := id.Time().UnixMilli(); ms+1 < before || ms > time.Now().UnixMilli()+1 {
			t.Fatalf("time %d, now %d", ms, before)
		}
		prev = id
	}
	if a, b := New(), New(); b.Compare(a) <= 0 {
		t.Fatal("New not increasing")
	}
}

func TestConcurrentUniqueAndOrdered(t *testing.T) {
	n := 200_000
	if testing.Short() || idtest.RaceEnabled {
		n = 20_000
	}
	g := NewGenerator()
	idtest.Stress(t, 8, n, g.Generate, ID.Compare)
}

// emptyReader returns no bytes and no error, forever.
type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, nil }

// TestMisuse covers the symptoms for this package: a nil rng and
// the zero Generator panicked on first use, and a reader that returns
// (0, nil) forever spun while holding the lock.
func TestMisuse(t *testing.T) {
	var zero Generator
	for name, g := range map[string]*Generator{"zero": &zero, "nil rng": NewGeneratorWithRng(nil)} {
		a, err := g.Generate()
		b, err2 := g.Generate()
		if err != nil || err2 != nil || b.Compare(a) <= 0 || time.Since(a.Time()) > time.Minute {
			t.Errorf("%s Generator: %s, %s, %v, %v", name, a, b, err, err2)
		}
	}
	g := NewGeneratorWithRng(emptyReader{})
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
}

func TestPackageLevel(t *testing.T) {
	a := New()
	b, err := Parse(NewString())
	if err != nil || b.Compare(a) <= 0 {
		t.Fatalf("NewString after New: %s, %v", b, err)
	}
}
