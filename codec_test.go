package scru128

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/fastid/scru128/internal/base36"
	"github.com/fastid/scru128/internal/naive"
)

var specVectors = []struct{ hex, text string }{
	{"00000000000000000000000000000000", "0000000000000000000000000"},
	{"017fee7fef417e2b3432ac2ec553687c", "0372hg16csmsm50l8dikcvukc"},
	{"017fee7fef427e2b346c0ff414bbcffd", "0372hg16cy3nowracls909wcd"},
	{"017fef39c2641ba56a9483188841e05a", "0372ijojuxuhjsfkeryi2mrtm"},
	{"ffffffffffffffffffffffffffffffff", "f5lxx1zz5pnorynqglhzmsp33"},
}

func mustHex(t testing.TB, s string) ID {
	t.Helper()
	var id ID
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		t.Fatal(err)
	}
	return id
}

func TestSpecVectors(t *testing.T) {
	for _, tc := range specVectors {
		id := mustHex(t, tc.hex)
		if got := id.String(); got != tc.text {
			t.Errorf("String(%s) = %s, want %s", tc.hex, got, tc.text)
		}
		for _, in := range []string{tc.text, strings.ToUpper(tc.text)} {
			got, err := Parse(in)
			if err != nil || got != id {
				t.Errorf("Parse(%s) = %x, %v; want %s", in, got, err, tc.hex)
			}
			got, err = ParseBytes([]byte(in))
			if err != nil || got != id {
				t.Errorf("ParseBytes(%s) = %x, %v; want %s", in, got, err, tc.hex)
			}
		}
	}
}

func TestFieldVectors(t *testing.T) {
	for _, tc := range []struct {
		timestamp                   uint64
		counterHi, counterLo, extra uint32
		text                        string
	}{
		{MaxTimestamp, 0, 0, 0, "f5lxx1zz5k6tp71geeh2db7k0"},
		{0, MaxCounter, 0, 0, "0000000005gv2r2kjwr7n8xs0"},
		{0, 0, MaxCounter, 0, "00000000000000jpia7ql4hs0"},
		{0, 0, 0, 1<<32 - 1, "0000000000000000001z141z3"},
	} {
		id, err := FromFields(tc.timestamp, tc.counterHi, tc.counterLo, tc.extra)
		if err != nil {
			t.Fatal(err)
		}
		if got := id.String(); got != tc.text {
			t.Errorf("fields %+v encode to %s, want %s", tc, got, tc.text)
		}
		back := MustParse(tc.text)
		if back.Timestamp() != tc.timestamp || back.CounterHi() != tc.counterHi ||
			back.CounterLo() != tc.counterLo || back.Entropy() != tc.extra {
			t.Errorf("%s parses to fields %d %d %d %d", tc.text,
				back.Timestamp(), back.CounterHi(), back.CounterLo(), back.Entropy())
		}
	}
}

func TestParseRejects(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		err    error
		offset int
	}{
		{"empty", "", ErrInvalidLength, -1},
		{"one digit", "0", ErrInvalidLength, -1},
		{"26 zeros", strings.Repeat("0", 26), ErrInvalidLength, -1},
		{"plus sign", "f5lxx1zz5pn+rynqglhzmsp33", ErrInvalidCharacter, 11},
		{"one above max", "f5lxx1zz5pnorynqglhzmsp34", ErrOutOfRange, -1},
		{"25 z", strings.Repeat("z", 25), ErrOutOfRange, -1},
		{"leading g", "g000000000000000000000000", ErrOutOfRange, -1},
		{"space first", " 372hg16csmsm50l8dikcvukc", ErrInvalidCharacter, 0},
		{"space last", "0372hg16csmsm50l8dikcvuk ", ErrInvalidCharacter, 24},
		{"minus", "-372hg16csmsm50l8dikcvukc", ErrInvalidCharacter, 0},
		{"underscore", "0372hg16cs_sm50l8dikcvukc", ErrInvalidCharacter, 10},
		{"tab", "0372hg16csmsm50l8dik\tvukc", ErrInvalidCharacter, 20},
		{"non-ASCII", "0372hg16csmsm50l8dikcvuk\xc3", ErrInvalidCharacter, 24},
		{"NUL", "0372hg16csmsm\x0050l8dikcvuk", ErrInvalidCharacter, 13},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, parse := range []func(string) (ID, error){Parse, func(s string) (ID, error) { return ParseBytes([]byte(s)) }} {
				_, err := parse(tc.in)
				if !errors.Is(err, tc.err) {
					t.Fatalf("error = %v, want %v", err, tc.err)
				}
				var ice *InvalidCharacterError
				if errors.As(err, &ice) != (tc.offset >= 0) || tc.offset >= 0 && ice.Offset != tc.offset {
					t.Fatalf("error = %#v, want offset %d", err, tc.offset)
				}
			}
		})
	}
}

func TestEncodeMatchesNaiveOnEdges(t *testing.T) {
	// Values around the limb boundaries, where a wrong carry would show.
	var cases []ID
	for _, hi := range []uint64{0, 1, 3, base36.Radix12 - 1, base36.Radix12, base36.Radix12 + 1, 1 << 63, radix24Hi, radix24Hi + 1, 1<<64 - 1} {
		for _, lo := range []uint64{0, 1, base36.Radix12 - 1, base36.Radix12, radix24Lo, radix24Lo - 1, 1 << 63, 1<<64 - 1} {
			cases = append(cases, FromUint64s(hi, lo))
		}
	}
	for _, id := range cases {
		want := naive.Encode(id)
		if got := id.String(); got != want {
			t.Errorf("%x: String = %s, naive %s", id[:], got, want)
		}
		if back, err := Parse(want); err != nil || back != id {
			t.Errorf("Parse(%s) = %x, %v", want, back, err)
		}
	}
}

func TestInvalidCharacterErrorText(t *testing.T) {
	_, err := Parse("0372hg16csmsm50l8dikcvuk!")
	want := `scru128: invalid character '!' (0x21) at offset 24`
	if err == nil || err.Error() != want {
		t.Fatalf("error text = %v, want %s", err, want)
	}
}
