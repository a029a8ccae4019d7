package fuzz

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/fastid/scru128/internal/crockford"
	"github.com/fastid/scru128/internal/naive"
	"github.com/fastid/scru128/ulid"
)

// FuzzCrockford checks the shared Base32 codec against math/big in both
// widths: any 26 or 13 bytes decode exactly as the reference decodes them
// (value, or which byte is invalid), and every value encodes as the
// reference encodes it.
func FuzzCrockford(f *testing.F) {
	f.Add([]byte("7ZZZZZZZZZZZZZZZZZZZZZZZZZ"))
	f.Add([]byte("8zzzzzzzzzzzzzzzzzzzzzzzzz"))
	f.Add([]byte("7ZZZZZZZZZZZZ"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, width := range []struct{ digits, bits int }{{26, 130}, {13, 65}} {
			if len(data) != width.digits {
				continue
			}
			want, offset, err := naive.Base32Decode(data, naive.CrockfordAlphabet, width.digits, width.bits)
			var got *big.Int
			var ok bool
			if width.digits == 26 {
				hi, lo, lead := crockford.Decode128(crockford.Crockford, string(data))
				got = new(big.Int).SetUint64(uint64(lead >> 3))
				got.Lsh(got, 64).Or(got, new(big.Int).SetUint64(hi))
				got.Lsh(got, 64).Or(got, new(big.Int).SetUint64(lo))
				ok = lead&0x80 == 0
			} else {
				v, lead, valid := crockford.Decode64(crockford.Crockford, string(data))
				got = new(big.Int).SetUint64(uint64(lead >> 4))
				got.Lsh(got, 64).Or(got, new(big.Int).SetUint64(v))
				ok = valid
			}
			switch {
			case err == nil:
				if !ok || got.Cmp(want) != 0 {
					t.Fatalf("%q: got %v (ok %v), naive %v", data, got, ok, want)
				}
			case errors.Is(err, naive.ErrInvalidCharacter):
				if ok || crockford.IndexInvalid(crockford.Crockford, string(data)) != offset {
					t.Fatalf("%q: ok %v, invalid at %d, naive at %d", data, ok, crockford.IndexInvalid(crockford.Crockford, string(data)), offset)
				}
			default:
				t.Fatalf("%q: naive error %v", data, err)
			}
		}
		if len(data) >= 16 {
			var dst [26]byte
			hi, lo := binary.BigEndian.Uint64(data[0:8]), binary.BigEndian.Uint64(data[8:16])
			crockford.Encode128(crockford.Crockford, &dst, hi, lo)
			if want := naive.Base32Encode(data[:16], 26, naive.CrockfordAlphabet); string(dst[:]) != want {
				t.Fatalf("Encode128(%x) = %s, naive %s", data[:16], dst, want)
			}
			var dst64 [13]byte
			crockford.Encode64(crockford.Crockford, &dst64, hi)
			if want := naive.Base32Encode(data[:8], 13, naive.CrockfordAlphabet); string(dst64[:]) != want {
				t.Fatalf("Encode64(%x) = %s, naive %s", data[:8], dst64, want)
			}
		}
	})
}

// FuzzULIDParse checks that ulid.Parse, ParseBytes and UnmarshalText accept
// and reject exactly the byte strings the math/big reference does, with the
// same value, the same kind of error and, for a bad character, the same
// offset.
func FuzzULIDParse(f *testing.F) {
	f.Add([]byte("01ARZ3NDEKTSV4RRFFQ69G5FAV"))
	f.Add([]byte("7zzzzzzzzzzzzzzzzzzzzzzzzz"))
	f.Fuzz(func(t *testing.T, data []byte) {
		n, wantOffset, wantErr := naive.Base32Decode(data, naive.CrockfordAlphabet, 26, 128)
		var want ulid.ULID
		if wantErr == nil {
			n.FillBytes(want[:])
		}
		checkParse(t, data, wantErr, wantOffset, func(got ulid.ULID) bool { return got == want },
			parseErrors{ulid.ErrInvalidLength, ulid.ErrOutOfRange, ulid.ErrInvalidCharacter,
				badByte(func(e *ulid.InvalidCharacterError) (int, byte, rune, int) { return e.Offset, e.Char, e.Rune, e.Size }),
				lengths(func(e *ulid.LengthError) (int, int) { return e.Got, e.Want }), 26},
			textParsers(ulid.ParseBytes, ulid.Parse, ulid.Validate))
	})
}

// FuzzULIDEncode checks that the text of any 16 bytes is what math/big
// gives, through every text method, and that it parses back in either case.
func FuzzULIDEncode(f *testing.F) {
	f.Add(make([]byte, 16))
	f.Add(bytes.Repeat([]byte{0xff}, 16))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 16 {
			return
		}
		id := ulid.ULID(data[:16])
		want := naive.Base32Encode(data[:16], 26, naive.CrockfordAlphabet)
		if got := id.String(); got != want {
			t.Fatalf("String(%x) = %s, naive %s", data[:16], got, want)
		}
		appended, err := id.AppendText([]byte("x"))
		if err != nil || string(appended) != "x"+want {
			t.Fatalf("AppendText = %q, %v", appended, err)
		}
		if text, _ := id.MarshalText(); string(text) != want {
			t.Fatalf("MarshalText = %q", text)
		}
		if back, err := ulid.Parse(strings.ToLower(want)); err != nil || back != id {
			t.Fatalf("Parse(lower %s) = %x, %v", want, back, err)
		}
	})
}

// FuzzULIDCore drives the ULID Generator's core methods and the reference
// monotonic factory with the same timestamps and byte stream and requires
// the same IDs and errors. A stream of 0xff bytes overflows the random part
// in one step.
func FuzzULIDCore(f *testing.F) {
	f.Add([]byte{5, 0, 0, 0, 0, 0, 0, 2, 0, 1, 14, 0, 3, 8, 0x10, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Add(append([]byte{8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 1, 0, 0, 0}, bytes.Repeat([]byte{0xff}, 40)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		steps, stream := naive.DecodeSteps(data)
		g := ulid.NewGeneratorWithRng(bytes.NewReader(stream))
		ref := naive.ULIDCore{Rng: bytes.NewReader(stream)}
		for i, s := range steps {
			want, wantErr := ref.Generate(s.Timestamp, s.Allowance, s.Abort)
			var got ulid.ULID
			var err error
			if s.Abort {
				got, err = g.GenerateOrAbortCore(s.Timestamp, s.Allowance)
			} else {
				got, err = g.GenerateOrResetCore(s.Timestamp, s.Allowance)
			}
			if !sameULIDError(err, wantErr) || err == nil && got != ulid.ULID(want) {
				t.Fatalf("step %d %+v: got %x, %v; naive %x, %v", i, s, got, err, want, wantErr)
			}
		}
	})
}

func sameULIDError(err, ref error) bool {
	switch {
	case ref == nil:
		return err == nil
	case errors.Is(ref, naive.ErrInvalidTimestamp):
		return errors.Is(err, ulid.ErrInvalidTimestamp)
	case errors.Is(ref, naive.ErrClockRollback):
		return errors.Is(err, ulid.ErrClockRollback)
	case errors.Is(ref, naive.ErrMonotonicOverflow):
		return errors.Is(err, ulid.ErrMonotonicOverflow)
	default: // the rng ran out: both wrap the reader's error
		return err != nil && errors.Unwrap(err) != nil && errors.Is(err, errors.Unwrap(ref))
	}
}

// FuzzULIDScan checks that ULID.Scan, given the bytes as a []byte and as a
// string, accepts and rejects exactly what the reference does: the
// 26-digit text, the UUID forms, and 16 raw bytes as a []byte only.
func FuzzULIDScan(f *testing.F) {
	f.Add([]byte("01563e3a-b5d3-d676-4c61-efb99302bd5b"))
	f.Add([]byte("01563E3AB5D3D6764C61EFB99302BD5B"))
	f.Add([]byte("01ARZ3NDEKTSV4RRFFQ69G5FAV"))
	f.Add([]byte("8ZZZZZZZZZZZZZZZZZZZZZZZZZ"))
	f.Add(bytes.Repeat([]byte{0xff}, 16))
	f.Fuzz(func(t *testing.T, data []byte) {
		errs := parseErrors{ulid.ErrInvalidLength, ulid.ErrOutOfRange, ulid.ErrInvalidCharacter,
			badByte(func(e *ulid.InvalidCharacterError) (int, byte, rune, int) { return e.Offset, e.Char, e.Rune, e.Size }),
			lengths(func(e *ulid.LengthError) (int, int) { return e.Got, e.Want }), 26}
		for _, isBytes := range []bool{false, true} {
			want, wantOffset, wantErr := naive.Scan128(data, isBytes, 26, base32Bytes(naive.CrockfordAlphabet))
			checkParse(t, data, wantErr, wantOffset, func(got ulid.ULID) bool { return got == ulid.ULID(want) },
				errs, scanner[ulid.ULID](isBytes))
		}
	})
}
