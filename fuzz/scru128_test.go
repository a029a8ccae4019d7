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
		for _, parse := range []func([]byte) (scru128.ID, error){
			scru128.ParseBytes,
			func(b []byte) (scru128.ID, error) { return scru128.Parse(string(b)) },
			func(b []byte) (id scru128.ID, err error) { err = id.UnmarshalText(b); return id, err },
		} {
			got, err := parse(data)
			switch {
			case wantErr == nil:
				if err != nil || got != scru128.ID(want) {
					t.Fatalf("%q: got %x, %v; naive %x", data, got, err, want)
				}
			case errors.Is(wantErr, naive.ErrInvalidLength):
				if !errors.Is(err, scru128.ErrInvalidLength) {
					t.Fatalf("%q: error %v, want ErrInvalidLength", data, err)
				}
			case errors.Is(wantErr, naive.ErrOutOfRange):
				if !errors.Is(err, scru128.ErrOutOfRange) {
					t.Fatalf("%q: error %v, want ErrOutOfRange", data, err)
				}
			case errors.Is(wantErr, naive.ErrInvalidCharacter):
				var ice *scru128.InvalidCharacterError
				if !errors.As(err, &ice) || !errors.Is(err, scru128.ErrInvalidCharacter) ||
					ice.Offset != wantOffset || ice.Char != data[wantOffset] {
					t.Fatalf("%q: error %v, want invalid character at %d", data, err, wantOffset)
				}
			default:
				t.Fatalf("naive returned unexpected error %v", wantErr)
			}
		}
	})
}

// steps decodes a fuzz input into a sequence of generator calls and the
// random byte stream they draw from. Each call takes three bytes: an
// operation byte (bit 0: abort or reset form; bits 1-3: how the timestamp
// moves; bits 4-6: the allowance) and a 16-bit value v.
type step struct {
	timestamp, allowance uint64
	abort                bool
}

func decodeSteps(data []byte) ([]step, []byte) {
	if len(data) == 0 {
		return nil, nil
	}
	n := int(data[0]%64) + 1
	data = data[1:]
	var steps []step
	prev := uint64(1_700_000_000_000)
	for ; n > 0 && len(data) >= 3; n-- {
		op, v := data[0], uint64(data[1])<<8|uint64(data[2])
		data = data[3:]
		var ts uint64
		switch op >> 1 & 7 {
		case 0:
			ts = prev
		case 1:
			ts = prev + v%4
		case 2:
			ts = prev + v
		case 3:
			ts = prev - v%16
		case 4:
			ts = prev - v*16 // may pass any allowance
		case 5:
			ts = v // includes 0, which is invalid
		case 6:
			ts = naive.MaxTimestamp - v%4 + v>>14 // around the top, past it
		case 7:
			ts = prev + 1000*(v%3) - v>>2%3 // around counter_hi renewal
		}
		allowances := [8]uint64{10_000, 0, 1, 1000, v, naive.MaxTimestamp, naive.MaxTimestamp + 1, 5}
		steps = append(steps, step{ts, allowances[op>>4&7], op&1 == 1})
		if ts != 0 && ts <= naive.MaxTimestamp {
			prev = ts
		}
	}
	return steps, data
}

// FuzzCore drives Generator's core methods and the reference algorithm with
// the same timestamps and byte stream and requires the same IDs and errors.
// A stream of 0xff bytes reaches counter overflows in one step.
func FuzzCore(f *testing.F) {
	f.Add([]byte{5, 0, 0, 0, 0, 0, 0, 2, 0, 1, 14, 0, 3, 8, 0x10, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Add(append([]byte{8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9, 1, 0, 8, 0xff, 0xff, 1, 0, 0}, bytes.Repeat([]byte{0xff}, 64)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		steps, stream := decodeSteps(data)
		g := scru128.NewGeneratorWithRng(bytes.NewReader(stream))
		ref := naive.Core{Rng: bytes.NewReader(stream)}
		for i, s := range steps {
			want, wantErr := ref.Generate(s.timestamp, s.allowance, s.abort)
			var got scru128.ID
			var err error
			if s.abort {
				got, err = g.GenerateOrAbortCore(s.timestamp, s.allowance)
			} else {
				got, err = g.GenerateOrResetCore(s.timestamp, s.allowance)
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
