package scru64

import (
	"errors"
	"reflect"
	"testing"

	"github.com/fastid/scru128/internal/idtest"
)

// TestParseErrorsSayWhatAndWhere is the report that a wrong length
// did not say which, and a multi-byte character showed as its first byte.
func TestParseErrorsSayWhatAndWhere(t *testing.T) {
	idtest.CheckParseErrors(t, idtest.ParseErrors{
		Pkg:   "scru64",
		Valid: "0u375nxqh5cq",
		Parsers: map[string]func(string) error{
			"Parse":         func(s string) error { _, err := Parse(s); return err },
			"ParseBytes":    func(s string) error { _, err := ParseBytes([]byte(s)); return err },
			"UnmarshalText": func(s string) error { return new(ID).UnmarshalText([]byte(s)) },
			"Validate":      Validate,
		},
		MustParse: func(s string) { MustParse(s) },
		Length:    ErrInvalidLength,
		Char:      ErrInvalidCharacter,
		LengthOf: func(err error) (int, int, bool) {
			var e *LengthError
			if !errors.As(err, &e) {
				return 0, 0, false
			}
			return e.Got, e.Want, true
		},
		CharOf: func(err error) (int, byte, rune, int, bool) {
			var e *InvalidCharacterError
			if !errors.As(err, &e) {
				return 0, 0, 0, 0, false
			}
			return e.Offset, e.Char, e.Rune, e.Size, true
		},
	})
}

// TestLengthErrorsOfEveryForm checks the length errors of the methods that
// take more than the text form: each says which lengths it takes. Scan
// reads any length but 12 (and 8 bytes) as decimal digits, so only the
// empty input is too short for it.
func TestLengthErrorsOfEveryForm(t *testing.T) {
	for _, tc := range []struct {
		name      string
		err       error
		got, want int
		text      string
	}{
		{"Scan(string)", new(ID).Scan(""), 0, 12, "scru64: invalid length 0, want 12 (text) or decimal digits"},
		{"Scan([]byte)", new(ID).Scan([]byte{}), 0, 12, "scru64: invalid length 0, want 12 (text), 8 (binary) or decimal digits"},
		{"NullID.Scan", new(NullID).Scan(""), 0, 12, "scru64: invalid length 0, want 12 (text) or decimal digits"},
		{"UnmarshalBinary", new(ID).UnmarshalBinary([]byte{1, 2, 3}), 3, 8, "scru64: invalid length 3, want 8 (binary) or 12 (text)"},
		{"UnmarshalJSON", new(ID).UnmarshalJSON([]byte(`"abc"`)), 3, 12, "scru64: invalid length 3, want 12"},
		{"NullID.UnmarshalJSON", new(NullID).UnmarshalJSON([]byte(`"0u37"`)), 4, 12, "scru64: invalid length 4, want 12"},
	} {
		var e *LengthError
		if !errors.As(tc.err, &e) || e.Got != tc.got || e.Want != tc.want || !errors.Is(tc.err, ErrInvalidLength) || tc.err.Error() != tc.text {
			t.Errorf("%s: %v; want %q", tc.name, tc.err, tc.text)
		}
	}
	// Decimal text with a multi-byte character.
	err := new(ID).Scan("12é4")
	var ice *InvalidCharacterError
	if !errors.As(err, &ice) || ice.Offset != 2 || ice.Rune != 'é' || err.Error() != "scru64: invalid character 'é' (U+00E9) at offset 2" {
		t.Errorf("Scan(decimal with é): %v", err)
	}
}

// TestFieldErrorsNameTheField is the report that a field out of
// range was not named.
func TestFieldErrorsNameTheField(t *testing.T) {
	for _, tc := range []struct {
		err   error
		field string
		value uint64
		max   uint64
	}{
		{second(FromParts(MaxTimestamp+1, MaxNodeCtr+1)), "timestamp", MaxTimestamp + 1, MaxTimestamp},
		{second(FromParts(0, MaxNodeCtr+1)), "node_ctr", MaxNodeCtr + 1, MaxNodeCtr},
		{second(MinAt(MaxTimestamp + 1)), "timestamp", MaxTimestamp + 1, MaxTimestamp},
		{second(MaxAt(1<<64 - 1)), "timestamp", 1<<64 - 1, MaxTimestamp},
	} {
		var e *FieldError
		if !errors.As(tc.err, &e) || e.Field != tc.field || e.Value != tc.value || e.Max != tc.max || !errors.Is(tc.err, ErrOutOfRange) {
			t.Errorf("%v: want a FieldError for %s = %d (max %d)", tc.err, tc.field, tc.value, tc.max)
		}
	}
	_, err := FromParts(0, MaxNodeCtr+1)
	if want := "scru64: node_ctr 16777216 out of range (max 16777215)"; err == nil || err.Error() != want {
		t.Errorf("FromParts(node_ctr 2^24): %v, want %q", err, want)
	}
}

func second[T any](_ T, err error) error { return err }

// TestNodeSpecKeepsTheParseError checks that a node spec whose previous ID
// does not parse says why once, and hands the parse error to errors.As.
func TestNodeSpecKeepsTheParseError(t *testing.T) {
	for _, tc := range []struct {
		spec   string
		offset int
		text   string
	}{
		{"0u375nxqh5c_/8", 11, `scru64: invalid node spec "0u375nxqh5c_/8": 12-character node "0u375nxqh5c_" is not a previous ID: ` +
			`invalid character '_' (0x5f) at offset 11 (want <node ID>/<size> such as "42/8", "0xb00/12" or "0u2r85hm2pt3/16")`},
		{"0u375nxqh5é/8", 10, `scru64: invalid node spec "0u375nxqh5é/8": 12-character node "0u375nxqh5é" is not a previous ID: ` +
			`invalid character 'é' (U+00E9) at offset 10 (want <node ID>/<size> such as "42/8", "0xb00/12" or "0u2r85hm2pt3/16")`},
	} {
		_, err := ParseNodeSpec(tc.spec)
		var ice *InvalidCharacterError
		var nse *NodeSpecError
		if !errors.Is(err, ErrInvalidNodeSpec) || !errors.Is(err, ErrInvalidCharacter) || !errors.As(err, &ice) || ice.Offset != tc.offset ||
			!errors.As(err, &nse) || nse.Err == nil || err.Error() != tc.text {
			t.Errorf("ParseNodeSpec(%q) = %v; want %s", tc.spec, err, tc.text)
		}
	}
}

// TestValidateIsParseWithoutTheID checks that Validate returns exactly what
// Parse returns, without allocating on success.
func TestValidateIsParseWithoutTheID(t *testing.T) {
	for _, s := range []string{"0u375nxqh5cq", "0U375NXQH5CQ", "zzzzzzzzzzzz", "", "0u37", "0u375nxqh5c_", "0u375nxqh5é"} {
		_, want := Parse(s)
		if got := Validate(s); !reflect.DeepEqual(got, want) {
			t.Errorf("Validate(%q) = %v, Parse says %v", s, got, want)
		}
	}
	idtest.SkipIfInstrumented(t)
	if n := testing.AllocsPerRun(1000, func() { _ = Validate("0u375nxqh5cq") }); n != 0 {
		t.Errorf("Validate allocates %v times", n)
	}
}

// TestNilIsTheZeroID pins Nil, the name google/uuid users look for.
func TestNilIsTheZeroID(t *testing.T) {
	if Nil != 0 || !Nil.IsZero() || Nil.String() != "000000000000" || MustParse("000000000000") != Nil || Nil.Compare(Max) >= 0 {
		t.Fatalf("Nil = %s", Nil)
	}
}

// TestRangeErrorNamesTheBound is the report that a value above the
// largest ID said only "value out of range", where FromFields names the
// limit a field passed. Every 12-digit text is in range; an integer,
// decimal digits and 8 bytes name the largest integer.
func TestRangeErrorNamesTheBound(t *testing.T) {
	const max = "4738381338321616895"
	var id ID
	above := []byte{0x41, 0xc2, 0x1c, 0xb8, 0xe1, 0, 0, 0} // 36^12
	cases := []idtest.RangeCase{
		{Name: "Scan(int64 -1)", Err: id.Scan(int64(-1)), Max: max},
		{Name: "Scan(int64 36^12)", Err: id.Scan(int64(Max) + 1), Max: max},
		{Name: "Scan(uint64 2^64-1)", Err: id.Scan(uint64(1<<64 - 1)), Max: max},
		{Name: "Scan(decimal 36^12)", Err: id.Scan("4738381338321616896"), Max: max},
		{Name: "Scan(decimal 2^64)", Err: id.Scan([]byte("18446744073709551616")), Max: max},
		{Name: "Scan(8 bytes 36^12)", Err: id.Scan(above), Max: max},
		{Name: "UnmarshalBinary(8 bytes 36^12)", Err: id.UnmarshalBinary(above), Max: max},
		{Name: "UnmarshalJSON(36^12)", Err: id.UnmarshalJSON([]byte("4738381338321616896")), Max: max},
		{Name: "FromUint64(36^12)", Err: second(FromUint64(uint64(Max) + 1)), Max: max},
		{Name: "FromInt64(-1)", Err: second(FromInt64(-1)), Max: max},
	}
	if id != 0 {
		t.Errorf("a failed read changed the ID to %v", id)
	}
	idtest.CheckRangeErrors(t, idtest.RangeErrors{
		Pkg: "scru64", Range: ErrOutOfRange, Cases: cases,
		MaxOf: func(err error) (string, bool) {
			var e *RangeError
			if !errors.As(err, &e) {
				return "", false
			}
			return e.Max, true
		},
	})
}
