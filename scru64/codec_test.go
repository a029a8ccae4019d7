package scru64

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/fastid/scru128/internal/naive"
)

// vectors are IDs with known text and fields: the DESIGN vectors, the
// specification's examples and the limits.
var vectors = []struct {
	text      string
	value     uint64
	timestamp uint64
	nodeCtr   uint32
}{
	{"000000000000", 0, 0, 0},
	{"00000009zldr", 0xffffff, 0, 0xffffff},
	{"zzzzzzzq0em8", 0x41c21cb8e0000000, MaxTimestamp, 0},
	{"zzzzzzzzzzzz", 0x41c21cb8e0ffffff, MaxTimestamp, 0xffffff},
	{"0u375nxqh5cq", 0x0186d52bbe2a635a, 6557084606, 2777946},
	{"0u375nxqh5cr", 0x0186d52bbe2a635b, 6557084606, 2777947},
	{"0u375ny0glr0", 0x0186d52bbf2a4a1c, 6557084607, 2771484},
	{"0u375ny0glr3", 0x0186d52bbf2a4a1f, 6557084607, 2771487},
	{"0u2pf62ji4b9", 109959589539758421, 109959589539758421 >> 24, 109959589539758421 & 0xffffff},
	{"jdsf1we3ui4f", 0x2367c8dfb2e6d23f, 152065073074, 15127103},
	{"mkg0fd5p76pp", 0x29391373ab449abd, 177051235243, 4496061},
}

func TestVectors(t *testing.T) {
	for _, v := range vectors {
		id := ID(v.value)
		if got := id.String(); got != v.text {
			t.Errorf("%#x: String = %s, want %s", v.value, got, v.text)
		}
		if id.Timestamp() != v.timestamp || id.NodeCtr() != v.nodeCtr {
			t.Errorf("%s: fields %d %d, want %d %d", v.text, id.Timestamp(), id.NodeCtr(), v.timestamp, v.nodeCtr)
		}
		if fromParts, err := FromParts(v.timestamp, v.nodeCtr); err != nil || fromParts != id {
			t.Errorf("%s: FromParts = %#x, %v", v.text, uint64(fromParts), err)
		}
		for _, text := range []string{v.text, strings.ToUpper(v.text)} {
			if got, err := Parse(text); err != nil || got != id {
				t.Errorf("Parse(%s) = %#x, %v", text, uint64(got), err)
			}
		}
	}
	// 36^12, one above the largest ID, has no ID.
	if _, err := FromUint64(4738381338321616896); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("FromUint64(36^12) error = %v", err)
	}
	if _, err := FromInt64(4738381338321616896); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("FromInt64(36^12) error = %v", err)
	}
}

// TestEncodeAtDigitBoundaries compares the encoder with strconv where a
// digit pair rolls over, the cases a fraction that is slightly off would
// get wrong: d*36^k and the value just below it, for every k and d, at
// the bottom and the top of the range.
func TestEncodeAtDigitBoundaries(t *testing.T) {
	check := func(x uint64) {
		if x > uint64(Max) {
			return
		}
		if got, want := ID(x).String(), naive.EncodeSCRU64(x); got != want {
			t.Fatalf("String(%d) = %s, strconv %s", x, got, want)
		}
	}
	power := uint64(1)
	for range 12 {
		for d := uint64(1); d < 36; d++ {
			for _, base := range []uint64{0, uint64(Max) + 1 - 36*power} {
				x := base + d*power
				check(x - 1)
				check(x)
				check(x + 1)
			}
		}
		power *= 36
	}
	check(uint64(Max))
	r := rand.New(rand.NewPCG(1, 2))
	for range 1_000_000 {
		check(r.Uint64N(uint64(Max) + 1))
	}
}

func TestParseRejects(t *testing.T) {
	for _, tc := range []struct {
		in     string
		err    error
		offset int
	}{
		{"", ErrInvalidLength, 0},
		{"0", ErrInvalidLength, 0},
		{"0u375nxqh5c", ErrInvalidLength, 0},
		{"0u375nxqh5cq0", ErrInvalidLength, 0},
		{"0u375nxqh5cqq", ErrInvalidLength, 0},
		{" 0u375nxqh5c", ErrInvalidCharacter, 0},
		{"0u375nxqh5c ", ErrInvalidCharacter, 11},
		{"+0u375nxqh5c", ErrInvalidCharacter, 0},
		{"-00000000001", ErrInvalidCharacter, 0},
		{"0u375_xqh5cq", ErrInvalidCharacter, 5},
		{"0u375nxq\th5c", ErrInvalidCharacter, 8},
		{"0u375nxqh5c\x00", ErrInvalidCharacter, 11},
		{"0u375nxqh5\xffq", ErrInvalidCharacter, 10},
		{"0u375nx\xc3\xa9h5c", ErrInvalidCharacter, 7},
		{"0u375nxqh5c/", ErrInvalidCharacter, 11},
		{"0u375nxqh5c:", ErrInvalidCharacter, 11},
		{"0u375nxqh5c@", ErrInvalidCharacter, 11},
		{"0u375nxqh5c[", ErrInvalidCharacter, 11},
		{"0u375nxqh5c`", ErrInvalidCharacter, 11},
		{"0u375nxqh5c{", ErrInvalidCharacter, 11},
	} {
		for name, parse := range map[string]func(string) (ID, error){
			"Parse":         Parse,
			"ParseBytes":    func(s string) (ID, error) { return ParseBytes([]byte(s)) },
			"UnmarshalText": func(s string) (id ID, err error) { id = 7; err = id.UnmarshalText([]byte(s)); return id, err },
		} {
			id, err := parse(tc.in)
			if !errors.Is(err, tc.err) {
				t.Errorf("%s(%q) error = %v, want %v", name, tc.in, err, tc.err)
				continue
			}
			if name == "UnmarshalText" && id != 7 {
				t.Errorf("UnmarshalText(%q) changed the ID on error", tc.in)
			}
			var ice *InvalidCharacterError
			if errors.As(err, &ice) && (ice.Offset != tc.offset || ice.Char != tc.in[tc.offset]) {
				t.Errorf("%s(%q): %v, want offset %d", name, tc.in, err, tc.offset)
			}
		}
	}
}

func TestInvalidCharacterErrorText(t *testing.T) {
	_, err := Parse("0u375_xqh5cq")
	if want := `scru64: invalid character '_' (0x5f) at offset 5`; err == nil || err.Error() != want {
		t.Fatalf("error text %q, want %q", err, want)
	}
}

// TestParseEveryByte puts every byte value at every position of a valid
// text and checks that Parse accepts exactly the Base36 digits, with the
// value strconv gives.
func TestParseEveryByte(t *testing.T) {
	base := []byte("0u375nxqh5cq")
	for pos := range base {
		for c := range 256 {
			in := append([]byte(nil), base...)
			in[pos] = byte(c)
			want, wantOffset, wantErr := naive.DecodeSCRU64(in)
			got, err := ParseBytes(in)
			if wantErr == nil {
				if err != nil || uint64(got) != want {
					t.Fatalf("%q: %#x, %v; want %#x", in, uint64(got), err, want)
				}
				continue
			}
			var ice *InvalidCharacterError
			if !errors.As(err, &ice) || ice.Offset != wantOffset {
				t.Fatalf("%q: error %v, want invalid character at %d", in, err, wantOffset)
			}
		}
	}
}

func TestMustParsePanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("MustParse accepted a bad text")
		}
	}()
	MustParse("0u375nxqh5c")
}

// TestEncodeAboveMax is the symptom of an ID above Max (made by
// converting a larger integer) marshalling as another, valid ID: Max+1
// became 000000000000, while Value rejected it. Every encoder now refuses
// it, and String shows the number in a form Parse rejects.
func TestEncodeAboveMax(t *testing.T) {
	for _, x := range []uint64{uint64(Max) + 1, 1 << 63, 1<<64 - 1} {
		id := ID(x)
		s := id.String()
		if want := "!OUTOFRANGE(" + strconv.FormatUint(x, 10) + ")"; s != want {
			t.Errorf("String(%d) = %q, want %q", x, s, want)
		}
		if _, err := Parse(s); err == nil {
			t.Errorf("Parse(String(%d)) accepted %q", x, s)
		}
		if b, err := id.AppendText([]byte("x")); !errors.Is(err, ErrOutOfRange) || string(b) != "x" {
			t.Errorf("AppendText(%d) = %q, %v", x, b, err)
		}
		if b, err := id.MarshalText(); !errors.Is(err, ErrOutOfRange) || b != nil {
			t.Errorf("MarshalText(%d) = %q, %v", x, b, err)
		}
		if b, err := id.MarshalJSON(); !errors.Is(err, ErrOutOfRange) || b != nil {
			t.Errorf("MarshalJSON(%d) = %q, %v", x, b, err)
		}
		if _, err := json.Marshal(struct{ ID ID }{id}); !errors.Is(err, ErrOutOfRange) {
			t.Errorf("json.Marshal(%d): %v", x, err)
		}
		if _, err := json.Marshal(NullID{id, true}); !errors.Is(err, ErrOutOfRange) {
			t.Errorf("json.Marshal(NullID %d): %v", x, err)
		}
		if _, err := id.Value(); !errors.Is(err, ErrOutOfRange) {
			t.Errorf("Value(%d): %v", x, err)
		}
	}
	if b, err := Max.MarshalJSON(); err != nil || string(b) != `"zzzzzzzzzzzz"` {
		t.Fatalf("MarshalJSON(Max) = %s, %v", b, err)
	}
}
