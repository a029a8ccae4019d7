package fuzz

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/fastid/scru128"
	"github.com/fastid/scru128/internal/naive"
)

// FuzzEncode checks that the text of any 16 bytes is what math/big gives,
// through every text method, and that it parses back.
func FuzzEncode(f *testing.F) {
	f.Add(make([]byte, 16))
	f.Add(bytes.Repeat([]byte{0xff}, 16))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 16 {
			return
		}
		id := scru128.ID(data[:16])
		want := naive.Encode(id)
		if got := id.String(); got != want {
			t.Fatalf("String(%x) = %s, naive %s", data[:16], got, want)
		}
		prefix := []byte("x")
		appended, err := id.AppendText(prefix)
		if err != nil || string(appended) != "x"+want {
			t.Fatalf("AppendText = %q, %v", appended, err)
		}
		text, _ := id.MarshalText()
		if string(text) != want {
			t.Fatalf("MarshalText = %q", text)
		}
		back, err := scru128.Parse(strings.ToUpper(want))
		if err != nil || back != id {
			t.Fatalf("Parse(upper %s) = %x, %v", want, back, err)
		}
	})
}

// FuzzParse checks that Parse and ParseBytes accept and reject exactly the
// byte strings the math/big reference does, with the same value, the same
// kind of error and, for a bad character, the same offset.
func FuzzParse(f *testing.F) {
	f.Add([]byte("0372hg16csmsm50l8dikcvukc"))
	f.Add([]byte("F5LXX1ZZ5PNORYNQGLHZMSP33"))
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantOffset, wantErr := naive.Decode(data)
		checkParse(t, data, wantErr, wantOffset, func(got scru128.ID) bool { return got == scru128.ID(want) },
			parseErrors{scru128.ErrInvalidLength, scru128.ErrOutOfRange, scru128.ErrInvalidCharacter,
				badByte(func(e *scru128.InvalidCharacterError) (int, byte, rune, int) { return e.Offset, e.Char, e.Rune, e.Size }),
				lengths(func(e *scru128.LengthError) (int, int) { return e.Got, e.Want }), 25},
			textParsers(scru128.ParseBytes, scru128.Parse, scru128.Validate))
	})
}

// FuzzCore drives Generator's core methods and the reference algorithm with
// the same timestamps and byte stream and requires the same IDs and errors.
// A stream of 0xff bytes reaches counter overflows in one step.
func FuzzCore(f *testing.F) {
	f.Add([]byte{5, 0, 0, 0, 0, 0, 0, 2, 0, 1, 14, 0, 3, 8, 0x10, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Add(append([]byte{8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9, 1, 0, 8, 0xff, 0xff, 1, 0, 0}, bytes.Repeat([]byte{0xff}, 64)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		steps, stream := naive.DecodeSteps(data)
		g := scru128.NewGeneratorWithRng(bytes.NewReader(stream))
		ref := naive.Core{Rng: bytes.NewReader(stream)}
		for i, s := range steps {
			want, wantErr := ref.Generate(s.Timestamp, s.Allowance, s.Abort)
			var got scru128.ID
			var err error
			if s.Abort {
				got, err = g.GenerateOrAbortCore(s.Timestamp, s.Allowance)
			} else {
				got, err = g.GenerateOrResetCore(s.Timestamp, s.Allowance)
			}
			if !sameError(err, wantErr) || err == nil && got != scru128.ID(want) {
				t.Fatalf("step %d %+v: got %x, %v; naive %x, %v", i, s, got, err, want, wantErr)
			}
		}
	})
}

func sameError(err, ref error) bool {
	switch {
	case ref == nil:
		return err == nil
	case errors.Is(ref, naive.ErrInvalidTimestamp):
		return errors.Is(err, scru128.ErrInvalidTimestamp)
	case errors.Is(ref, naive.ErrClockRollback):
		return errors.Is(err, scru128.ErrClockRollback)
	default: // the rng ran out: both wrap the reader's error
		return err != nil && errors.Unwrap(err) != nil && errors.Is(err, errors.Unwrap(ref))
	}
}

// FuzzScan checks that ID.Scan, given the bytes as a []byte and as a
// string, accepts and rejects exactly what the reference does: the
// 25-digit text, the UUID forms, and 16 raw bytes as a []byte only, with
// the same value or the same kind of error and offset.
func FuzzScan(f *testing.F) {
	f.Add([]byte("01a20ae5-cd8b-ec48-3da7-86bbd79a5a50"))
	f.Add([]byte("01A20AE5CD8BEC483DA786BBD79A5A50"))
	f.Add([]byte("01a20ae5-cd8b-ec48-3da7_86bbd79a5a50"))
	f.Add([]byte("0372hg16csmsm50l8dikcvukc"))
	f.Add(bytes.Repeat([]byte{0xff}, 16))
	f.Fuzz(func(t *testing.T, data []byte) {
		errs := parseErrors{scru128.ErrInvalidLength, scru128.ErrOutOfRange, scru128.ErrInvalidCharacter,
			badByte(func(e *scru128.InvalidCharacterError) (int, byte, rune, int) { return e.Offset, e.Char, e.Rune, e.Size }),
			lengths(func(e *scru128.LengthError) (int, int) { return e.Got, e.Want }), 25}
		for _, isBytes := range []bool{false, true} {
			want, wantOffset, wantErr := naive.Scan128(data, isBytes, 25, naive.Decode)
			checkParse(t, data, wantErr, wantOffset, func(got scru128.ID) bool { return got == scru128.ID(want) },
				errs, scanner[scru128.ID](isBytes))
		}
	})
}
