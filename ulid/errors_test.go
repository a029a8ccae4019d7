package ulid

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
		Pkg:   "ulid",
		Valid: "01ARZ3NDEKTSV4RRFFQ69G5FAV",
		Parsers: map[string]func(string) error{
			"Parse":         func(s string) error { _, err := Parse(s); return err },
			"ParseBytes":    func(s string) error { _, err := ParseBytes([]byte(s)); return err },
			"UnmarshalText": func(s string) error { return new(ULID).UnmarshalText([]byte(s)) },
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
// take more than the text form: each says which lengths it takes.
func TestLengthErrorsOfEveryForm(t *testing.T) {
	for _, tc := range []struct {
		name      string
		err       error
		got, want int
		text      string
	}{
		{"Scan(string)", new(ULID).Scan("abc"), 3, 26, "ulid: invalid length 3, want 26 (text), 32 or 36 (UUID)"},
		{"Scan([]byte)", new(ULID).Scan([]byte("abc")), 3, 26, "ulid: invalid length 3, want 26 (text), 16 (binary), 32 or 36 (UUID)"},
		{"NullULID.Scan", new(NullULID).Scan(""), 0, 26, "ulid: invalid length 0, want 26 (text), 32 or 36 (UUID)"},
		{"Binary.Scan", new(Binary).Scan([]byte("0123456789abcde")), 15, 26, "ulid: invalid length 15, want 26 (text), 16 (binary), 32 or 36 (UUID)"},
		{"UnmarshalBinary", new(ULID).UnmarshalBinary([]byte{1, 2, 3}), 3, 16, "ulid: invalid length 3, want 16 (binary) or 26 (text)"},
		{"UnmarshalJSON", new(ULID).UnmarshalJSON([]byte(`"abc"`)), 3, 26, "ulid: invalid length 3, want 26"},
		{"NullULID.UnmarshalJSON", new(NullULID).UnmarshalJSON([]byte(`"01AR"`)), 4, 26, "ulid: invalid length 4, want 26"},
	} {
		var e *LengthError
		if !errors.As(tc.err, &e) || e.Got != tc.got || e.Want != tc.want || !errors.Is(tc.err, ErrInvalidLength) || tc.err.Error() != tc.text {
			t.Errorf("%s: %v; want %q", tc.name, tc.err, tc.text)
		}
	}
	err := new(ULID).Scan("01563e3a-b5d3-d676-4c61-efb99302bdé")
	var ice *InvalidCharacterError
	if !errors.As(err, &ice) || ice.Offset != 34 || ice.Rune != 'é' || err.Error() != "ulid: invalid character 'é' (U+00E9) at offset 34" {
		t.Errorf("Scan(UUID with é): %v", err)
	}
}

// TestFieldErrorsNameTheField checks that a timestamp too large says so.
func TestFieldErrorsNameTheField(t *testing.T) {
	for _, err := range []error{
		second(FromFields(MaxTimestamp+1, [10]byte{})),
		second(MinAt(MaxTimestamp + 1)),
		second(MaxAt(MaxTimestamp + 1)),
	} {
		var e *FieldError
		if !errors.As(err, &e) || e.Field != "timestamp" || e.Value != MaxTimestamp+1 || e.Max != MaxTimestamp || !errors.Is(err, ErrOutOfRange) ||
			err.Error() != "ulid: timestamp 281474976710656 out of range (max 281474976710655)" {
			t.Errorf("%v: want a FieldError for the timestamp", err)
		}
	}
}

func second[T any](_ T, err error) error { return err }

// TestValidateIsParseWithoutTheID checks that Validate returns exactly what
// Parse returns, without allocating on success.
func TestValidateIsParseWithoutTheID(t *testing.T) {
	for _, s := range []string{
		"01ARZ3NDEKTSV4RRFFQ69G5FAV", "01arz3ndektsv4rrffq69g5fav", "7ZZZZZZZZZZZZZZZZZZZZZZZZZ",
		"", "01AR", "8ZZZZZZZZZZZZZZZZZZZZZZZZZ", "01ARZ3NDEKTSV4RRFFQ69G5FAU", "01ARZ3NDEKTSV4RRFFQ69G5Fé",
	} {
		_, want := Parse(s)
		if got := Validate(s); !reflect.DeepEqual(got, want) {
			t.Errorf("Validate(%q) = %v, Parse says %v", s, got, want)
		}
	}
	idtest.SkipIfInstrumented(t)
	if n := testing.AllocsPerRun(1000, func() { _ = Validate("01ARZ3NDEKTSV4RRFFQ69G5FAV") }); n != 0 {
		t.Errorf("Validate allocates %v times", n)
	}
}

// TestZeroIsTheZeroULID pins Zero, the name oklog/ulid users look for.
func TestZeroIsTheZeroULID(t *testing.T) {
	if Zero != (ULID{}) || !Zero.IsZero() || Zero.String() != "00000000000000000000000000" ||
		MustParse("00000000000000000000000000") != Zero || Zero.Compare(Max) >= 0 {
		t.Fatalf("Zero = %s", Zero)
	}
}

// TestRangeErrorNamesTheBound is the report that a text above the
// largest ULID said only "value out of range", where FromFields names the
// limit a field passed.
func TestRangeErrorNamesTheBound(t *testing.T) {
	const max = "7ZZZZZZZZZZZZZZZZZZZZZZZZZ"
	var cases []idtest.RangeCase
	for _, s := range []string{"80000000000000000000000000", "ZZZZZZZZZZZZZZZZZZZZZZZZZZ", "8zzzzzzzzzzzzzzzzzzzzzzzzz"} {
		var id ULID
		cases = append(cases,
			idtest.RangeCase{Name: "Parse(" + s + ")", Err: second(Parse(s)), Max: max},
			idtest.RangeCase{Name: "ParseBytes(" + s + ")", Err: second(ParseBytes([]byte(s))), Max: max},
			idtest.RangeCase{Name: "Validate(" + s + ")", Err: Validate(s), Max: max},
			idtest.RangeCase{Name: "UnmarshalText(" + s + ")", Err: id.UnmarshalText([]byte(s)), Max: max},
			idtest.RangeCase{Name: "UnmarshalBinary(" + s + ")", Err: id.UnmarshalBinary([]byte(s)), Max: max},
			idtest.RangeCase{Name: "UnmarshalJSON(" + s + ")", Err: id.UnmarshalJSON([]byte(`"` + s + `"`)), Max: max},
			idtest.RangeCase{Name: "Scan(string " + s + ")", Err: id.Scan(s), Max: max},
			idtest.RangeCase{Name: "Scan([]byte " + s + ")", Err: id.Scan([]byte(s)), Max: max},
			idtest.RangeCase{Name: "MustParse(" + s + ")", Err: idtest.PanicOf(func() { MustParse(s) }), Max: max, MustInput: s},
		)
		if id != (ULID{}) {
			t.Errorf("a failed read of %s changed the ULID to %v", s, id)
		}
	}
	idtest.CheckRangeErrors(t, idtest.RangeErrors{
		Pkg: "ulid", Range: ErrOutOfRange, Cases: cases,
		MaxOf: func(err error) (string, bool) {
			var e *RangeError
			if !errors.As(err, &e) {
				return "", false
			}
			return e.Max, true
		},
	})
}
