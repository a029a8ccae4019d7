package naive

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"
)

func TestEncodeSpecVectors(t *testing.T) {
	for _, tc := range []struct{ hex, text string }{
		{"00000000000000000000000000000000", "0000000000000000000000000"},
		{"017fee7fef417e2b3432ac2ec553687c", "0372hg16csmsm50l8dikcvukc"},
		{"017fee7fef427e2b346c0ff414bbcffd", "0372hg16cy3nowracls909wcd"},
		{"017fef39c2641ba56a9483188841e05a", "0372ijojuxuhjsfkeryi2mrtm"},
		{"ffffffffffffffffffffffffffffffff", "f5lxx1zz5pnorynqglhzmsp33"},
	} {
		var id [16]byte
		hex.Decode(id[:], []byte(tc.hex))
		if got := Encode(id); got != tc.text {
			t.Errorf("Encode(%s) = %s, want %s", tc.hex, got, tc.text)
		}
		back, _, err := Decode([]byte(tc.text))
		if err != nil || back != id {
			t.Errorf("Decode(%s) = %x, %v", tc.text, back, err)
		}
	}
}

func TestFieldVectors(t *testing.T) {
	for _, tc := range []struct {
		ts         uint64
		hi, lo, en uint32
		text       string
	}{
		{MaxTimestamp, 0, 0, 0, "f5lxx1zz5k6tp71geeh2db7k0"},
		{0, MaxCounter, 0, 0, "0000000005gv2r2kjwr7n8xs0"},
		{0, 0, MaxCounter, 0, "00000000000000jpia7ql4hs0"},
		{0, 0, 0, 1<<32 - 1, "0000000000000000001z141z3"},
	} {
		if got := Encode(FromFields(tc.ts, tc.hi, tc.lo, tc.en)); got != tc.text {
			t.Errorf("fields %v = %s, want %s", tc, got, tc.text)
		}
	}
}

func TestDecodeRejects(t *testing.T) {
	for _, tc := range []struct {
		in  string
		err error
	}{
		{"", ErrInvalidLength},
		{"0", ErrInvalidLength},
		{"00000000000000000000000000", ErrInvalidLength},
		{"f5lxx1zz5pn+rynqglhzmsp33", ErrInvalidCharacter},
		{"f5lxx1zz5pnorynqglhzmsp34", ErrOutOfRange},
		{"zzzzzzzzzzzzzzzzzzzzzzzzz", ErrOutOfRange},
	} {
		if _, _, err := Decode([]byte(tc.in)); !errors.Is(err, tc.err) {
			t.Errorf("Decode(%q) error = %v, want %v", tc.in, err, tc.err)
		}
	}
}

func TestCoreDrawOrder(t *testing.T) {
	// Draws: counter_lo, counter_hi, entropy for the first ID; then only
	// entropy within the same millisecond.
	stream := []byte{
		0xaa, 0x00, 0x00, 0x05, // counter_lo = 5
		0xbb, 0x00, 0x00, 0x07, // counter_hi = 7
		0x01, 0x02, 0x03, 0x04, // entropy
		0x05, 0x06, 0x07, 0x08, // entropy
	}
	c := Core{Rng: bytes.NewReader(stream)}
	id, err := c.Generate(1000, 10000, false)
	if err != nil || id != FromFields(1000, 7, 5, 0x01020304) {
		t.Fatalf("first = %x, %v", id, err)
	}
	id, err = c.Generate(1000, 10000, false)
	if err != nil || id != FromFields(1000, 7, 6, 0x05060708) {
		t.Fatalf("second = %x, %v", id, err)
	}
	if _, err := c.Generate(1000, 10000, false); err == nil {
		t.Fatal("exhausted rng gave no error")
	}
	if c.CounterLo != 6 {
		t.Fatalf("failed call changed state: %+v", c)
	}
}
