package legacy

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
		Pkg:   "legacy",
		Valid: "00PGHAJ3Q9VAJ7IU6PQBHBUAK4",
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
// take more than the text form: each says which lengths it takes.
func TestLengthErrorsOfEveryForm(t *testing.T) {
	for _, tc := range []struct {
		name      string
		err       error
		got, want int
		text      string
	}{
		{"Scan(string)", new(ID).Scan("abc"), 3, 26, "legacy: invalid length 3, want 26 (text), 32 or 36 (UUID)"},
		{"Scan([]byte)", new(ID).Scan([]byte("abc")), 3, 26, "legacy: invalid length 3, want 26 (text), 16 (binary), 32 or 36 (UUID)"},
		{"NullID.Scan", new(NullID).Scan(""), 0, 26, "legacy: invalid length 0, want 26 (text), 32 or 36 (UUID)"},
		{"Binary.Scan", new(Binary).Scan([]byte("0123456789abcde")), 15, 26, "legacy: invalid length 15, want 26 (text), 16 (binary), 32 or 36 (UUID)"},
		{"UnmarshalBinary", new(ID).UnmarshalBinary([]byte{1, 2, 3}), 3, 16, "legacy: invalid length 3, want 16 (binary) or 26 (text)"},
		{"UnmarshalJSON", new(ID).UnmarshalJSON([]byte(`"abc"`)), 3, 26, "legacy: invalid length 3, want 26"},
		{"NullID.UnmarshalJSON", new(NullID).UnmarshalJSON([]byte(`"01AR"`)), 4, 26, "legacy: invalid length 4, want 26"},
	} {
		var e *LengthError
		if !errors.As(tc.err, &e) || e.Got != tc.got || e.Want != tc.want || !errors.Is(tc.err, ErrInvalidLength) || tc.err.Error() != tc.text {
			t.Errorf("%s: %v; want %q", tc.name, tc.err, tc.text)
		}
	}
	err := new(ID).Scan("01563e3a-b5d3-d676-4c61-efb99302bdé")
	var ice *InvalidCharacterError
	if !errors.As(err, &ice) || ice.Offset != 34 || ice.Rune != 'é' || err.Error() != "legacy: invalid character 'é' (U+00E9) at offset 34" {
		t.Errorf("Scan(UUID with é): %v", err)
	}
}

// TestFieldErrorsNameTheField checks that a field too large is named.
func TestFieldErrorsNameTheField(t *testing.T) {
	for _, tc := range []struct {
		err   error
		field string
		value uint64
		max   uint64
	}{
		{second(FromFields(MaxTimestamp+1, MaxCounter+1, 0, 0)), "timestamp", MaxTimestamp + 1, MaxTimestamp},
		{second(FromFields(0, MaxCounter+1, MaxPerSecRandom+1, 0)), "counter", MaxCounter + 1, MaxCounter},
		{second(FromFields(0, 0, 1<<32-1, 0)), "per_sec_random", 1<<32 - 1, MaxPerSecRandom},
		{second(MinAt(MaxTimestamp + 1)), "timestamp", MaxTimestamp + 1, MaxTimestamp},
		{second(MaxAt(MaxTimestamp + 1)), "timestamp", MaxTimestamp + 1, MaxTimestamp},
	} {
		var e *FieldError
		if !errors.As(tc.err, &e) || e.Field != tc.field || e.Value != tc.value || e.Max != tc.max || !errors.Is(tc.err, ErrOutOfRange) {
			t.Errorf("%v: want a FieldError for %s = %d (max %d)", tc.err, tc.field, tc.value, tc.max)
		}
	}
	_, err := FromFields(0, MaxCounter+1, 0, 0)
	if want := "legacy: counter 268435456 out of range (max 268435455)"; err == nil || err.Error() != want {
		t.Errorf("FromFields(counter 2^28): %v, want %q", err, want)
	}
}

func second[T any](_ T, err error) error { return err }

// TestValidateIsParseWithoutTheID checks that Validate returns exactly what
// Parse returns, without allocating on success.
func TestValidateIsParseWithoutTheID(t *testing.T) {
	for _, s := range []string{
		"00PGHAJ3Q9VAJ7IU6PQBHBUAK4", "00pghaj3q9vaj7iu6pqbhbuak4", "7VVVVVVVVVVVVVVVVVVVVVVVVV",
		"", "00PG", "80000000000000000000000000", "00PGHAJ3Q9VAJ7IU6PQBHBUAKW", "00PGHAJ3Q9VAJ7IU6PQBHBUAé",
	} {
		_, want := Parse(s)
		if got := Validate(s); !reflect.DeepEqual(got, want) {
			t.Errorf("Validate(%q) = %v, Parse says %v", s, got, want)
		}
	}
	idtest.SkipIfInstrumented(t)
	if n := testing.AllocsPerRun(1000, func() { _ = Validate("00PGHAJ3Q9VAJ7IU6PQBHBUAK4") }); n != 0 {
		t.Errorf("Validate allocates %v times", n)
	}
}

// TestNilIsTheZeroID pins Nil, the name google/uuid users look for.
func TestNilIsTheZeroID(t *testing.T) {
	if Nil != (ID{}) || !Nil.IsZero() || Nil.String() != "00000000000000000000000000" ||
		MustParse("00000000000000000000000000") != Nil || Nil.Compare(MustParse("7VVVVVVVVVVVVVVVVVVVVVVVVV")) >= 0 {
		t.Fatalf("Nil = %s", Nil)
	}
}

// TestRangeErrorNamesTheBound is the report that a text above the
// largest ID said only "value out of range", where FromFields names the
// limit a field passed.
func TestRangeErrorNamesTheBound(t *testing.T) {
	const max = "7VVVVVVVVVVVVVVVVVVVVVVVVV"
	var cases []idtest.RangeCase
	for _, s := range []string{"80000000000000000000000000", "VVVVVVVVVVVVVVVVVVVVVVVVVV", "8vvvvvvvvvvvvvvvvvvvvvvvvv"} {
		var id ID
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
		if id != (ID{}) {
			t.Errorf("a failed read of %s changed the ID to %v", s, id)
		}
	}
	idtest.CheckRangeErrors(t, idtest.RangeErrors{
		Pkg: "legacy", Range: ErrOutOfRange, Cases: cases,
		MaxOf: func(err error) (string, bool) {
			var e *RangeError
			if !errors.As(err, &e) {
				return "", false
			}
			return e.Max, true
		},
	})
}
