package naive

import (
	"bytes"
	"errors"
	"testing"
)

func TestFlakeCoreSteps(t *testing.T) {
	// Draws: random part 5; then n = 2^31 with MaxStep 10: step 1 + 5 = 6.
	c := FlakeCore{RandomBits: 20, MaxStep: 10, Rng: bytes.NewReader([]byte{0, 0, 0, 5, 0x80, 0, 0, 0})}
	if id, _ := c.Generate(3); id != 3<<20|5 {
		t.Fatalf("first = %x", id)
	}
	if id, _ := c.Generate(3); id != 3<<20|11 {
		t.Fatalf("second = %x", id)
	}
	if _, err := c.Generate(2); !errors.Is(err, ErrClockRollback) {
		t.Fatalf("rollback: %v", err)
	}
	s := FlakeCore{RandomBits: 15, ScalabilityID: 9, MaxStep: 1, Rng: bytes.NewReader(bytes.Repeat([]byte{0xff}, 8))}
	if id, _ := s.Generate(1); id != 1<<20|(1<<15-1)<<5|9 {
		t.Fatalf("scalable = %x", id)
	}
	if _, err := s.Generate(1); !errors.Is(err, ErrMonotonicOverflow) {
		t.Fatalf("overflow: %v", err)
	}
}
