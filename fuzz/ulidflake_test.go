package fuzz

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/fastid/scru128/internal/naive"
	"github.com/fastid/scru128/ulidflake"
)

// FuzzFlakeParse checks that ulidflake.Parse, ParseBytes and UnmarshalText
// accept and reject exactly the byte strings the math/big reference does
// (63 bits: nothing above 7ZZZZZZZZZZZZ), with the same value, the same kind
// of error and, for a bad character, the same offset.
func FuzzFlakeParse(f *testing.F) {
	f.Add([]byte("00CMXB6TAK4SA"))
	f.Add([]byte("7zzzzzzzzzzzz"))
	f.Add([]byte("8000000000000"))
	f.Fuzz(func(t *testing.T, data []byte) {
		n, wantOffset, wantErr := naive.Base32Decode(data, naive.CrockfordAlphabet, 13, 63)
		checkParse(t, data, wantErr, wantOffset, func(got ulidflake.ID) bool { return got.Int64() == n.Int64() && got >= 0 },
			parseErrors{ulidflake.ErrInvalidLength, ulidflake.ErrOutOfRange, ulidflake.ErrInvalidCharacter,
				badByte(func(e *ulidflake.InvalidCharacterError) (int, byte, rune, int) {
					return e.Offset, e.Char, e.Rune, e.Size
				}),
				lengths(func(e *ulidflake.LengthError) (int, int) { return e.Got, e.Want }), 13},
			textParsers(ulidflake.ParseBytes, ulidflake.Parse, ulidflake.Validate))
	})
}

// FuzzFlakeEncode checks the text of any int64: math/big's for a
// non-negative value, parsing back in either case; ErrOutOfRange for a
// negative one.
func FuzzFlakeEncode(f *testing.F) {
	f.Add(int64(0))
	f.Add(int64(1<<63 - 1))
	f.Add(int64(-1))
	f.Fuzz(func(t *testing.T, v int64) {
		id := ulidflake.ID(v)
		if v < 0 {
			if _, err := id.AppendText(nil); !errors.Is(err, ulidflake.ErrOutOfRange) {
				t.Fatalf("%d: error %v", v, err)
			}
			if _, err := ulidflake.FromInt64(v); !errors.Is(err, ulidflake.ErrOutOfRange) {
				t.Fatalf("FromInt64(%d): %v", v, err)
			}
			return
		}
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], uint64(v))
		want := naive.Base32Encode(b[:], 13, naive.CrockfordAlphabet)
		if got := id.String(); got != want {
			t.Fatalf("String(%d) = %s, naive %s", v, got, want)
		}
		if got, err := id.AppendText([]byte("x")); err != nil || string(got) != "x"+want {
			t.Fatalf("AppendText = %q, %v", got, err)
		}
		if back, err := ulidflake.Parse(strings.ToLower(want)); err != nil || back != id {
			t.Fatalf("Parse(lower %s) = %d, %v", want, back, err)
		}
	})
}

// FuzzFlakeCore drives a Generator's core and the reference with the same
// timestamps and byte stream. The first byte picks the version (bit 0:
// scalable), the scalability ID (bits 1-5) and the step (bits 6-7: 1, 255,
// 4096 or 65535); the rest is naive.DecodeSteps' format (the allowance and
// abort bits are unused, Ulid-Flake has no allowance).
func FuzzFlakeCore(f *testing.F) {
	f.Add([]byte{0x41, 5, 0, 0, 0, 0, 0, 0, 2, 0, 1, 14, 0, 3, 8, 0x10, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Add(append([]byte{0xff, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 1, 0, 0, 0}, bytes.Repeat([]byte{0xff}, 40)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		config := data[0]
		steps, stream := naive.DecodeSteps(data[1:])
		maxStep := [4]uint32{1, 255, 4096, 65535}[config>>6]
		opts := []ulidflake.Option{ulidflake.WithRng(bytes.NewReader(stream)), ulidflake.WithMaxStep(maxStep)}
		ref := naive.FlakeCore{RandomBits: 20, MaxStep: uint64(maxStep), Rng: bytes.NewReader(stream)}
		if config&1 == 1 {
			sid := config >> 1 & 31
			opts = append(opts, ulidflake.WithScalabilityID(sid))
			ref.RandomBits, ref.ScalabilityID = 15, uint64(sid)
		}
		g, err := ulidflake.NewGenerator(opts...)
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range steps {
			// DecodeSteps aims at 48-bit timestamps; fold the top ones
			// onto the 43-bit edge, keeping some above it.
			ts := s.Timestamp
			if ts > naive.FlakeMaxTimestamp+8 {
				ts = ts - naive.MaxTimestamp + naive.FlakeMaxTimestamp
			}
			want, wantErr := ref.Generate(ts)
			got, err := g.GenerateCore(ts)
			if !sameFlakeError(err, wantErr) || err == nil && got.Int64() != want {
				t.Fatalf("step %d (ts %d): got %d, %v; naive %d, %v", i, ts, got, err, want, wantErr)
			}
		}
	})
}

func sameFlakeError(err, ref error) bool {
	switch {
	case ref == nil:
		return err == nil
	case errors.Is(ref, naive.ErrInvalidTimestamp):
		return errors.Is(err, ulidflake.ErrInvalidTimestamp)
	case errors.Is(ref, naive.ErrClockRollback):
		return errors.Is(err, ulidflake.ErrClockRollback)
	case errors.Is(ref, naive.ErrMonotonicOverflow):
		return errors.Is(err, ulidflake.ErrMonotonicOverflow)
	default: // the rng ran out: both wrap the reader's error
		return err != nil && errors.Unwrap(err) != nil && errors.Is(err, errors.Unwrap(ref))
	}
}

// FuzzFlakeScan checks that ID.Scan, given the bytes as a []byte and as a
// string, accepts and rejects exactly what the reference does: 13 bytes
// are the text form, 8 bytes as a []byte the binary form, anything else
// decimal text, with the same value or the same kind of error and offset;
// and digits of the text or binary form's length, which are decimal text
// too, are refused with both readings where both are IDs and differ.
func FuzzFlakeScan(f *testing.F) {
	f.Add([]byte("14246757444195114"))
	f.Add([]byte("9223372036854775807"))
	f.Add([]byte("9223372036854775808"))
	f.Add([]byte("00CMXB6TAK4SA"))
	f.Add([]byte{0x80, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte("3774874268538"))
	f.Add([]byte("0000000000009"))
	f.Add([]byte("9000000000000"))
	f.Add([]byte("12345678"))
	f.Fuzz(func(t *testing.T, data []byte) {
		errs := parseErrors{ulidflake.ErrInvalidLength, ulidflake.ErrOutOfRange, ulidflake.ErrInvalidCharacter,
			badByte(func(e *ulidflake.InvalidCharacterError) (int, byte, rune, int) {
				return e.Offset, e.Char, e.Rune, e.Size
			}),
			lengths(func(e *ulidflake.LengthError) (int, int) { return e.Got, e.Want }), 13}
		text := func(s []byte) (uint64, int, error) {
			n, offset, err := naive.Base32Decode(s, naive.CrockfordAlphabet, 13, 63)
			if err != nil {
				return 0, offset, err
			}
			return n.Uint64(), offset, nil
		}
		ambiguity := func(err error) (string, uint64, uint64, bool) {
			var e *ulidflake.AmbiguousError
			if !errors.As(err, &e) || !errors.Is(err, ulidflake.ErrAmbiguous) {
				return "", 0, 0, false
			}
			return e.Form, uint64(e.AsForm), uint64(e.AsDecimal), true
		}
		for _, isBytes := range []bool{false, true} {
			want, wantOffset, wantErr := naive.Scan64(data, isBytes, 13, text, 1<<63-1, false)
			checkScan64(t, data, want, wantOffset, wantErr, errs, ambiguity, scanner[ulidflake.ID](isBytes))
		}
	})
}
