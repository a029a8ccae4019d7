package naive

import (
	"bytes"
	"errors"
	"testing"
)

func TestLegacyFromFieldsMatchesText(t *testing.T) {
	max := LegacyFromFields(LegacyMaxTimestamp, LegacyMaxCounter, 1<<24-1, 1<<32-1)
	if got := Base32Encode(max[:], 26, LegacyAlphabet); got != "7VVVVVVVVVVVVVVVVVVVVVVVVV" {
		t.Fatalf("max = %s", got)
	}
}

func TestLegacyCoreCounterOverflow(t *testing.T) {
	c := LegacyCore{Rng: bytes.NewReader(bytes.Repeat([]byte{0xff}, 12))}
	if _, err := c.Generate(7); err != nil || c.Counter != LegacyMaxCounter {
		t.Fatalf("first: %v, counter %d", err, c.Counter)
	}
	if _, err := c.Generate(7); !errors.Is(err, ErrCounterOverflow) || c.Counter != LegacyMaxCounter {
		t.Fatalf("overflow: %v, counter %d", err, c.Counter)
	}
}
