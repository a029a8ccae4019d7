package fuzz

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/fastid/scru128/internal/naive"
	"github.com/fastid/scru128/legacy"
)

// FuzzLegacyParse checks that legacy.Parse, ParseBytes and UnmarshalText
// accept and reject exactly the byte strings the math/big reference does
// over [0-9A-V], with the same value, the same kind of error and, for a bad
// character, the same offset.
func FuzzLegacyParse(f *testing.F) {
	f.Add([]byte("00PGHAJ3Q9VAJ7IU6PQBHBUAK4"))
	f.Add([]byte("7vvvvvvvvvvvvvvvvvvvvvvvvv"))
	f.Add([]byte("7VVVVVVVVVVVVVVVVVVVVVVVVW"))
	f.Fuzz(func(t *testing.T, data []byte) {
		n, wantOffset, wantErr := naive.Base32Decode(data, naive.LegacyAlphabet, 26, 128)
		var want legacy.ID
		if wantErr == nil {
			n.FillBytes(want[:])
		}
		checkParse(t, data, wantErr, wantOffset, func(got legacy.ID) bool { return got == want },
			parseErrors{legacy.ErrInvalidLength, legacy.ErrOutOfRange, legacy.ErrInvalidCharacter,
				badByte(func(e *legacy.InvalidCharacterError) (int, byte, rune, int) { return e.Offset, e.Char, e.Rune, e.Size }),
				lengths(func(e *legacy.LengthError) (int, int) { return e.Got, e.Want }), 26},
			textParsers(legacy.ParseBytes, legacy.Parse, legacy.Validate))
	})
}

// FuzzLegacyEncode checks that the text of any 16 bytes is what math/big
// gives and that it parses back in either case.
func FuzzLegacyEncode(f *testing.F) {
	f.Add(make([]byte, 16))
	f.Add(bytes.Repeat([]byte{0xff}, 16))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 16 {
			return
		}
		id := legacy.ID(data[:16])
		want := naive.Base32Encode(data[:16], 26, naive.LegacyAlphabet)
		if got := id.String(); got != want {
			t.Fatalf("String(%x) = %s, naive %s", data[:16], got, want)
		}
		if got, _ := id.AppendText([]byte("x")); string(got) != "x"+want {
			t.Fatalf("AppendText = %q", got)
		}
		if back, err := legacy.Parse(strings.ToLower(want)); err != nil || back != id {
			t.Fatalf("Parse(lower %s) = %x, %v", want, back, err)
		}
	})
}

// FuzzLegacyCore drives the legacy Generator's core and the reference with
// the same timestamps and byte stream (naive.DecodeSteps' format; the
// allowance and abort bits are unused) and requires the same IDs and
// errors. A stream of 0xff bytes overflows the counter in one step.
func FuzzLegacyCore(f *testing.F) {
	f.Add([]byte{5, 0, 0, 0, 0, 0, 0, 2, 0, 1, 14, 0, 3, 8, 0x10, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Add(append([]byte{8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 1, 0, 0, 0}, bytes.Repeat([]byte{0xff}, 40)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		steps, stream := naive.DecodeSteps(data)
		g := legacy.NewGeneratorWithRng(bytes.NewReader(stream))
		ref := naive.LegacyCore{Rng: bytes.NewReader(stream)}
		for i, s := range steps {
			// DecodeSteps aims at 48-bit timestamps; fold the top ones
			// onto the 44-bit edge, keeping some above it.
			ts := s.Timestamp
			if ts > naive.LegacyMaxTimestamp+8 {
				ts = ts - naive.MaxTimestamp + naive.LegacyMaxTimestamp
			}
			want, wantErr := ref.Generate(ts)
			got, err := g.GenerateCore(ts)
			if !sameLegacyError(err, wantErr) || err == nil && got != legacy.ID(want) {
				t.Fatalf("step %d (ts %d): got %x, %v; naive %x, %v", i, ts, got, err, want, wantErr)
			}
		}
	})
}

func sameLegacyError(err, ref error) bool {
	switch {
	case ref == nil:
		return err == nil
	case errors.Is(ref, naive.ErrInvalidTimestamp):
		return errors.Is(err, legacy.ErrInvalidTimestamp)
	case errors.Is(ref, naive.ErrCounterOverflow):
		return errors.Is(err, legacy.ErrMonotonicOverflow)
	default: // the rng ran out: both wrap the reader's error
		return err != nil && errors.Unwrap(err) != nil && errors.Is(err, errors.Unwrap(ref))
	}
}

// FuzzLegacyScan checks that legacy.ID.Scan, given the bytes as a []byte
// and as a string, accepts and rejects exactly what the reference does:
// the 26-digit text, the UUID forms, and 16 raw bytes as a []byte only.
func FuzzLegacyScan(f *testing.F) {
	f.Add([]byte("00cc22a9-8f49-faa6-7978-d9d2e2bf2a84"))
	f.Add([]byte("00CC22A98F49FAA67978D9D2E2BF2A84"))
	f.Add([]byte("00PGHAJ3Q9VAJ7IU6PQBHBUAK4"))
	f.Add(bytes.Repeat([]byte{0xff}, 16))
	f.Fuzz(func(t *testing.T, data []byte) {
		errs := parseErrors{legacy.ErrInvalidLength, legacy.ErrOutOfRange, legacy.ErrInvalidCharacter,
			badByte(func(e *legacy.InvalidCharacterError) (int, byte, rune, int) { return e.Offset, e.Char, e.Rune, e.Size }),
			lengths(func(e *legacy.LengthError) (int, int) { return e.Got, e.Want }), 26}
		for _, isBytes := range []bool{false, true} {
			want, wantOffset, wantErr := naive.Scan128(data, isBytes, 26, base32Bytes(naive.LegacyAlphabet))
			checkParse(t, data, wantErr, wantOffset, func(got legacy.ID) bool { return got == legacy.ID(want) },
				errs, scanner[legacy.ID](isBytes))
		}
	})
}
