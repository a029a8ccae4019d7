package naive

import (
	"bytes"
	"errors"
	"testing"
)

func TestULIDCoreIncrementsWithCarry(t *testing.T) {
	stream := []byte{0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xfe}
	c := ULIDCore{Rng: bytes.NewReader(append(stream, bytes.Repeat([]byte{0xff}, 10)...))}
	id, _ := c.Generate(5, 0, false)
	if id[15] != 0xfe || id[5] != 5 {
		t.Fatalf("first = %x", id)
	}
	id, _ = c.Generate(5, 0, false)
	if id[14] != 0xff || id[15] != 0xff {
		t.Fatalf("second = %x", id)
	}
	id, _ = c.Generate(5, 0, false)
	if id[13] != 1 || id[14] != 0 || id[15] != 0 {
		t.Fatalf("carry = %x", id)
	}
	// All ones: the next increment overflows.
	c.Generate(6, 0, false)
	if _, err := c.Generate(6, 0, false); !errors.Is(err, ErrMonotonicOverflow) {
		t.Fatalf("overflow error = %v", err)
	}
	if _, err := c.Generate(1, 0, true); !errors.Is(err, ErrClockRollback) {
		t.Fatalf("rollback error = %v", err)
	}
}
