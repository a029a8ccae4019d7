package naive

import (
	"errors"
	"testing"
)

func TestBase32ULIDVectors(t *testing.T) {
	// The largest ULID, and the spec's example.
	max := make([]byte, 16)
	for i := range max {
		max[i] = 0xff
	}
	if got := Base32Encode(max, 26, CrockfordAlphabet); got != "7ZZZZZZZZZZZZZZZZZZZZZZZZZ" {
		t.Fatalf("max = %s", got)
	}
	n, _, err := Base32Decode([]byte("7zzzzzzzzzzzzzzzzzzzzzzzzz"), CrockfordAlphabet, 26, 128)
	if err != nil || n.BitLen() != 128 {
		t.Fatalf("decode max: %v, %v", n, err)
	}
	for _, tc := range []struct {
		in     string
		err    error
		offset int
	}{
		{"8ZZZZZZZZZZZZZZZZZZZZZZZZZ", ErrOutOfRange, -1},
		{"7ZZZZZZZZZZZZZZZZZZZZZZZZ", ErrInvalidLength, -1},
		{"01ARZ3NDEKTSV4RRFFQ69G5FAI", ErrInvalidCharacter, 25},
		{"01ARZ3NDEKTSV4RRFFQ69G5FlV", ErrInvalidCharacter, 24},
		{"O1ARZ3NDEKTSV4RRFFQ69G5FAV", ErrInvalidCharacter, 0},
		{"01ARZ3NDEKTSV4RRFFQ69G5FUV", ErrInvalidCharacter, 24},
	} {
		_, off, err := Base32Decode([]byte(tc.in), CrockfordAlphabet, 26, 128)
		if !errors.Is(err, tc.err) || off != tc.offset {
			t.Errorf("%s: %v at %d, want %v at %d", tc.in, err, off, tc.err, tc.offset)
		}
	}
}

func TestBase32FlakeAndLegacyBounds(t *testing.T) {
	if _, _, err := Base32Decode([]byte("7ZZZZZZZZZZZZ"), CrockfordAlphabet, 13, 63); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"8000000000000", "G000000000000", "ZZZZZZZZZZZZZ"} {
		if _, _, err := Base32Decode([]byte(s), CrockfordAlphabet, 13, 63); !errors.Is(err, ErrOutOfRange) {
			t.Errorf("%s: %v", s, err)
		}
	}
	if _, _, err := Base32Decode([]byte("7vvvvvvvvvvvvvvvvvvvvvvvvv"), LegacyAlphabet, 26, 128); err != nil {
		t.Fatal(err)
	}
	if _, off, err := Base32Decode([]byte("7VVVVVVVVVVVVVVVVVVVVVVVVW"), LegacyAlphabet, 26, 128); !errors.Is(err, ErrInvalidCharacter) || off != 25 {
		t.Fatalf("W: %v at %d", err, off)
	}
}
