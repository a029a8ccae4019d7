package ulidflake

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/fastid/scru128/internal/idtest"
)

// TestParseErrorsSayWhatAndWhere is the report that a wrong length
// did not say which, and a multi-byte character showed as its first byte.
func TestParseErrorsSayWhatAndWhere(t *testing.T) {
	idtest.CheckParseErrors(t, idtest.ParseErrors{
		Pkg:   "ulidflake",
		Valid: "00CMXB6TAK4SA",
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
// reads any length but 13 (and 8 bytes) as decimal digits, so only the
// empty input is too short for it.
func TestLengthErrorsOfEveryForm(t *testing.T) {
	for _, tc := range []struct {
		name      string
		err       error
		got, want int
		text      string
	}{
		{"Scan(string)", new(ID).Scan(""), 0, 13, "ulidflake: invalid length 0, want 13 (text) or decimal digits"},
		{"Scan([]byte)", new(ID).Scan([]byte{}), 0, 13, "ulidflake: invalid length 0, want 13 (text), 8 (binary) or decimal digits"},
		{"NullID.Scan", new(NullID).Scan(""), 0, 13, "ulidflake: invalid length 0, want 13 (text) or decimal digits"},
		{"UnmarshalBinary", new(ID).UnmarshalBinary([]byte{1, 2, 3}), 3, 8, "ulidflake: invalid length 3, want 8 (binary) or 13 (text)"},
		{"UnmarshalJSON", new(ID).UnmarshalJSON([]byte(`"abc"`)), 3, 13, "ulidflake: invalid length 3, want 13"},
		{"NullID.UnmarshalJSON", new(NullID).UnmarshalJSON([]byte(`"00CM"`)), 4, 13, "ulidflake: invalid length 4, want 13"},
	} {
		var e *LengthError
		if !errors.As(tc.err, &e) || e.Got != tc.got || e.Want != tc.want || !errors.Is(tc.err, ErrInvalidLength) || tc.err.Error() != tc.text {
			t.Errorf("%s: %v; want %q", tc.name, tc.err, tc.text)
		}
	}
	// Decimal text with a multi-byte character.
	err := new(ID).Scan("12é4")
	var ice *InvalidCharacterError
	if !errors.As(err, &ice) || ice.Offset != 2 || ice.Rune != 'é' || err.Error() != "ulidflake: invalid character 'é' (U+00E9) at offset 2" {
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
		{second(FromFields(MaxTimestamp+1, MaxRandomness+1)), "timestamp", MaxTimestamp + 1, MaxTimestamp},
		{second(FromFields(0, MaxRandomness+1)), "randomness", MaxRandomness + 1, MaxRandomness},
		{second(FromScalableFields(MaxTimestamp+1, 0, 0)), "timestamp", MaxTimestamp + 1, MaxTimestamp},
		{second(FromScalableFields(0, MaxScalableRandomness+1, MaxScalabilityID+1)), "randomness", MaxScalableRandomness + 1, MaxScalableRandomness},
		{second(FromScalableFields(0, 0, 255)), "scalability_id", 255, MaxScalabilityID},
		{second(MinAt(MaxTimestamp + 1)), "timestamp", MaxTimestamp + 1, MaxTimestamp},
		{second(MaxAt(MaxTimestamp + 1)), "timestamp", MaxTimestamp + 1, MaxTimestamp},
	} {
		var e *FieldError
		if !errors.As(tc.err, &e) || e.Field != tc.field || e.Value != tc.value || e.Max != tc.max || !errors.Is(tc.err, ErrOutOfRange) {
			t.Errorf("%v: want a FieldError for %s = %d (max %d)", tc.err, tc.field, tc.value, tc.max)
		}
	}
	_, err := FromFields(0, MaxRandomness+1)
	if want := "ulidflake: randomness 1048576 out of range (max 1048575)"; err == nil || err.Error() != want {
		t.Errorf("FromFields(randomness 2^20): %v, want %q", err, want)
	}
}

func second[T any](_ T, err error) error { return err }

// TestValidateIsParseWithoutTheID checks that Validate returns exactly what
// Parse returns, without allocating on success.
func TestValidateIsParseWithoutTheID(t *testing.T) {
	for _, s := range []string{"00CMXB6TAK4SA", "00cmxb6tak4sa", "7ZZZZZZZZZZZZ", "8000000000000", "", "00CM", "00CMXB6TAK4SU", "00CMXB6TAK4é"} {
		_, want := Parse(s)
		if got := Validate(s); !reflect.DeepEqual(got, want) {
			t.Errorf("Validate(%q) = %v, Parse says %v", s, got, want)
		}
	}
	idtest.SkipIfInstrumented(t)
	if n := testing.AllocsPerRun(1000, func() { _ = Validate("00CMXB6TAK4SA") }); n != 0 {
		t.Errorf("Validate allocates %v times", n)
	}
}

// TestZeroIsTheZeroID pins Zero, the name oklog/ulid users look for.
func TestZeroIsTheZeroID(t *testing.T) {
	if Zero != 0 || !Zero.IsZero() || Zero.String() != "0000000000000" || MustParse("0000000000000") != Zero || Zero.Compare(Max) >= 0 {
		t.Fatalf("Zero = %s", Zero)
	}
}

// TestRangeErrorNamesTheBound is the report that a value above the
// largest ID said only "value out of range", where FromFields names the
// limit a field passed. Text names the largest text; an integer, decimal
// digits and 8 bytes name the largest integer.
func TestRangeErrorNamesTheBound(t *testing.T) {
	const maxText, maxInt = "7ZZZZZZZZZZZZ", "9223372036854775807"
	var cases []idtest.RangeCase
	for _, s := range []string{"8000000000000", "ZZZZZZZZZZZZZ", "8zzzzzzzzzzzz"} {
		var id ID
		cases = append(cases,
			idtest.RangeCase{Name: "Parse(" + s + ")", Err: second(Parse(s)), Max: maxText},
			idtest.RangeCase{Name: "ParseBytes(" + s + ")", Err: second(ParseBytes([]byte(s))), Max: maxText},
			idtest.RangeCase{Name: "Validate(" + s + ")", Err: Validate(s), Max: maxText},
			idtest.RangeCase{Name: "UnmarshalText(" + s + ")", Err: id.UnmarshalText([]byte(s)), Max: maxText},
			idtest.RangeCase{Name: "UnmarshalBinary(" + s + ")", Err: id.UnmarshalBinary([]byte(s)), Max: maxText},
			idtest.RangeCase{Name: "UnmarshalJSON(" + s + ")", Err: id.UnmarshalJSON([]byte(`"` + s + `"`)), Max: maxText},
			idtest.RangeCase{Name: "MustParse(" + s + ")", Err: idtest.PanicOf(func() { MustParse(s) }), Max: maxText, MustInput: s},
		)
		// Scan reads 13 digits as decimal text too, and takes the one
		// reading that is an ID (8000000000000 is one as an integer).
		if strings.Trim(s, "0123456789") != "" {
			cases = append(cases,
				idtest.RangeCase{Name: "Scan(string " + s + ")", Err: id.Scan(s), Max: maxText},
				idtest.RangeCase{Name: "Scan([]byte " + s + ")", Err: id.Scan([]byte(s)), Max: maxText},
			)
		}
		if id != 0 {
			t.Errorf("a failed read of %s changed the ID to %v", s, id)
		}
	}
	var id ID
	above := []byte{0x80, 0, 0, 0, 0, 0, 0, 0}
	cases = append(cases,
		idtest.RangeCase{Name: "Scan(int64 -1)", Err: id.Scan(int64(-1)), Max: maxInt},
		idtest.RangeCase{Name: "Scan(uint64 2^63)", Err: id.Scan(uint64(1 << 63)), Max: maxInt},
		idtest.RangeCase{Name: "Scan(decimal 2^63)", Err: id.Scan("9223372036854775808"), Max: maxInt},
		idtest.RangeCase{Name: "Scan(decimal 2^64)", Err: id.Scan([]byte("18446744073709551616")), Max: maxInt},
		idtest.RangeCase{Name: "Scan(8 bytes 2^63)", Err: id.Scan(above), Max: maxInt},
		idtest.RangeCase{Name: "UnmarshalBinary(8 bytes 2^63)", Err: id.UnmarshalBinary(above), Max: maxInt},
		idtest.RangeCase{Name: "UnmarshalJSON(2^63)", Err: id.UnmarshalJSON([]byte("9223372036854775808")), Max: maxInt},
		idtest.RangeCase{Name: "FromUint64(2^63)", Err: second(FromUint64(1 << 63)), Max: maxInt},
		idtest.RangeCase{Name: "FromInt64(-1)", Err: second(FromInt64(-1)), Max: maxInt},
	)
	if id != 0 {
		t.Errorf("a failed read changed the ID to %v", id)
	}
	idtest.CheckRangeErrors(t, idtest.RangeErrors{
		Pkg: "ulidflake", Range: ErrOutOfRange, Cases: cases,
		MaxOf: func(err error) (string, bool) {
			var e *RangeError
			if !errors.As(err, &e) {
				return "", false
			}
			return e.Max, true
		},
	})
}
