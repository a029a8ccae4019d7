package interop

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

var (
	errLength = errors.New("test: invalid length")
	errRange  = errors.New("test: out of range")
	errChar   = errors.New("test: invalid character")
	errType   = errors.New("test: unsupported Scan source type")
	errJSON   = errors.New("test: bad JSON")
)

type charError struct {
	offset int
	c      byte
	r      rune
	size   int
}

func (e *charError) Error() string        { return fmt.Sprintf("test: bad byte %q at %d", e.c, e.offset) }
func (e *charError) Is(target error) bool { return target == errChar }

// lengthError is the test format's length error.
type lengthError struct {
	got  int
	form Form
}

func (e *lengthError) Error() string        { return fmt.Sprintf("test: length %d in form %d", e.got, e.form) }
func (e *lengthError) Is(target error) bool { return target == errLength }

var testErrors = Errors{
	Length: func(got int, form Form) error { return &lengthError{got, form} },
	Range:  errRange, ScanType: errType, JSON: errJSON,
	Char: func(offset int, c byte, r rune, size int) error { return &charError{offset, c, r, size} },
}

// wantLength fails the test unless err is the test format's length error
// for got bytes in form.
func wantLength(t *testing.T, input string, err error, got int, form Form) {
	t.Helper()
	var le *lengthError
	if !errors.As(err, &le) || le.got != got || le.form != form {
		t.Errorf("%q: error %v, want a length error of %d bytes in form %d", input, err, got, form)
	}
}

func wantChar(t *testing.T, input string, err error, offset int) {
	t.Helper()
	var ce *charError
	r, size := utf8.DecodeRuneInString(input[offset:])
	if !errors.As(err, &ce) || ce.offset != offset || ce.c != input[offset] || ce.r != r || ce.size != size {
		t.Errorf("%q: error %v, want a bad character %q at %d", input, err, r, offset)
	}
}

func TestParseUUID(t *testing.T) {
	want := [16]byte{0x01, 0xa2, 0x0a, 0xe5, 0xcd, 0x8b, 0xec, 0x48, 0x3d, 0xa7, 0x86, 0xbb, 0xd7, 0x9a, 0x5a, 0x50}
	for _, s := range []string{
		"01a20ae5-cd8b-ec48-3da7-86bbd79a5a50",
		"01A20AE5-CD8B-EC48-3DA7-86BBD79A5A50",
		"01a20ae5cd8bec483da786bbd79a5a50",
		"01A20ae5CD8bec483DA786bbd79a5A50",
	} {
		got, err := ParseUUID(s, FormScan, &testErrors)
		if err != nil || got != want {
			t.Errorf("%s: %x, %v", s, got, err)
		}
		if got, err := ParseUUID([]byte(s), FormScanBytes, &testErrors); err != nil || got != want {
			t.Errorf("%s as bytes: %x, %v", s, got, err)
		}
	}
	for _, tc := range []struct {
		s      string
		offset int
	}{
		{"01a20ae5-cd8b-ec48-3da7-86bbd79a5a5g", 35},
		{"01a20ae5_cd8b-ec48-3da7-86bbd79a5a50", 8},
		{"01a20ae5-cd8b-ec48-3da786bbd79a5a50-", 23},
		{"-01a20ae5cd8b-ec48-3da7-86bbd79a5a50", 0},
		{"{1a20ae5-cd8b-ec48-3da7-86bbd79a5a5}", 0},
		{"01a20ae5-cd8b-ec48-3da7-86bbd79a5a5\xff", 35},
		{"01a20ae5cd8bec483da786bbd79a5a5-", 31},
		{"01a20ae5-cd8bec483da786bbd79a5a5", 8},
		{" 1a20ae5cd8bec483da786bbd79a5a50", 0},
		{"0x1a20ae5cd8bec483da786bbd79a5a5", 1},
	} {
		_, err := ParseUUID(tc.s, FormScan, &testErrors)
		wantChar(t, tc.s, err, tc.offset)
	}
	for _, s := range []string{"", "01a20ae5-cd8b-ec48-3da7-86bbd79a5a5", "01a20ae5cd8bec483da786bbd79a5a500"} {
		_, err := ParseUUID(s, FormScanBytes, &testErrors)
		wantLength(t, s, err, len(s), FormScanBytes)
	}
	b := []byte("01a20ae5-cd8b-ec48-3da7-86bbd79a5a50")
	if testing.AllocsPerRun(100, func() { _, _ = ParseUUID(b, FormScanBytes, &testErrors) }) != 0 {
		t.Error("ParseUUID allocates")
	}
}

func TestParseDecimal(t *testing.T) {
	for _, tc := range []struct {
		s    string
		max  uint64
		want uint64
	}{
		{"0", 10, 0}, {"7", 10, 7}, {"10", 10, 10}, {"000123", 1000, 123},
		{"18446744073709551615", math.MaxUint64, math.MaxUint64},
		{"4738381338321616895", 4738381338321616895, 4738381338321616895},
	} {
		if got, err := ParseDecimal(tc.s, FormScan, tc.max, &testErrors); err != nil || got != tc.want {
			t.Errorf("%q: %d, %v", tc.s, got, err)
		}
		if got, err := ParseDecimal([]byte(tc.s), FormScanBytes, tc.max, &testErrors); err != nil || got != tc.want {
			t.Errorf("%q as bytes: %d, %v", tc.s, got, err)
		}
	}
	for _, s := range []string{"11", "18446744073709551616", "99999999999999999999", "100000000000000000000000"} {
		if _, err := ParseDecimal(s, FormScan, 10, &testErrors); err != errRange {
			t.Errorf("%q: %v, want the range error", s, err)
		}
	}
	for _, tc := range []struct {
		s      string
		offset int
	}{{"-1", 0}, {"+1", 0}, {"1 ", 1}, {"1.5", 1}, {"1e3", 1}, {"99999999999999999999999x", 23}, {"١", 0}} {
		_, err := ParseDecimal(tc.s, FormScan, math.MaxUint64, &testErrors)
		wantChar(t, tc.s, err, tc.offset)
	}
	_, err := ParseDecimal("", FormScanBytes, 10, &testErrors)
	wantLength(t, "", err, 0, FormScanBytes)
}

func TestUnixMillis(t *testing.T) {
	const lo, hi = 1000, 5000
	for _, tc := range []struct {
		t  time.Time
		ms int64
		ok bool
	}{
		{time.UnixMilli(lo), lo, true},
		{time.UnixMilli(hi), hi, true},
		{time.UnixMilli(hi).Add(999 * time.Microsecond), hi, true},
		{time.UnixMilli(hi + 1), 0, false},
		{time.UnixMilli(lo).Add(-time.Nanosecond), 0, false},
		{time.UnixMilli(3000).Add(500 * time.Microsecond), 3000, true},
		// UnixMilli of these overflows int64 and wraps into the range.
		{time.Unix(1<<62, 0), 0, false},
		{time.Unix(math.MaxInt64/1000+1, 0), 0, false},
		{time.Unix(-1<<62, 0), 0, false},
		{time.Time{}, 0, false},
	} {
		ms, ok := UnixMillis(tc.t, lo, hi)
		if ms != tc.ms || ok != tc.ok {
			t.Errorf("UnixMillis(%v) = %d, %v; want %d, %v", tc.t, ms, ok, tc.ms, tc.ok)
		}
	}
	// Negative bounds, as for a format whose epoch is after 1970.
	if ms, ok := UnixMillis(time.UnixMilli(-5).Add(-time.Nanosecond), -10, 0); !ok || ms != -6 {
		t.Errorf("before 1970: %d, %v", ms, ok)
	}
}

func TestJSONString(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{`"abc"`, "abc", true},
		{`""`, "", true},
		{`"\u0061bc"`, "abc", true},
		{`"a\/b"`, "a/b", true},
		{`"\ud83d\ude00"`, "\U0001F600", true},
		{"\"\xff\"", "\uFFFD", true},
		{`"é"`, "é", true},
		{`"a"b"`, "", false},
		{`"abc`, "", false},
		{`abc"`, "", false},
		{`"`, "", false},
		{`12`, "", false},
		{"\"a\tb\"", "", false},
		{`"\x"`, "", false},
	} {
		got, ok := JSONString([]byte(tc.in))
		if ok != tc.ok || string(got) != tc.want {
			t.Errorf("JSONString(%s) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	plain := []byte(`"0372hg16csmsm50l8dikcvukc"`)
	if testing.AllocsPerRun(100, func() { JSONString(plain) }) != 0 {
		t.Error("JSONString allocates on plain text")
	}
}

func TestDecodeJSON(t *testing.T) {
	for _, tc := range []struct {
		in       string
		allowInt bool
		kind     JSONKind
		text     string
		n        uint64
		err      error
	}{
		{`null`, true, JSONNull, "", 0, nil},
		{`"x\u0079"`, true, JSONText, "xy", 0, nil},
		{`42`, true, JSONInt, "", 42, nil},
		{`0`, true, JSONInt, "", 0, nil},
		{`100`, true, JSONInt, "", 100, nil},
		{`101`, true, JSONInvalid, "", 0, errRange},
		{`99999999999999999999999`, true, JSONInvalid, "", 0, errRange},
		{`42`, false, JSONInvalid, "", 0, errJSON},
		{`01`, true, JSONInvalid, "", 0, errJSON},
		{`-1`, true, JSONInvalid, "", 0, errJSON},
		{`1.0`, true, JSONInvalid, "", 0, errJSON},
		{`1e2`, true, JSONInvalid, "", 0, errJSON},
		{`true`, true, JSONInvalid, "", 0, errJSON},
		{`{}`, true, JSONInvalid, "", 0, errJSON},
		{``, true, JSONInvalid, "", 0, errJSON},
	} {
		text, n, kind, err := DecodeJSON([]byte(tc.in), tc.allowInt, 100, &testErrors)
		if kind != tc.kind || string(text) != tc.text || n != tc.n || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
			t.Errorf("DecodeJSON(%s, %v) = %q, %d, %v, %v", tc.in, tc.allowInt, text, n, kind, err)
		}
	}
	_, _, _, err := DecodeJSON([]byte(`[`+strings.Repeat("1,", 50)+`1]`), true, 100, &testErrors)
	if err == nil || len(err.Error()) > 120 {
		t.Errorf("long input: error %q", err)
	}
}

// testID is a minimal ID type for the Null helpers.
type testID uint64

func (id *testID) Scan(src any) error {
	switch src := src.(type) {
	case int64:
		*id = testID(src)
		return nil
	}
	return ScanTypeError(src, &testErrors)
}

func (id testID) Value() (driver.Value, error) { return int64(id), nil }

func (id testID) AppendText(b []byte) ([]byte, error) {
	if id > 100 {
		return b, errRange
	}
	return fmt.Appendf(b, "%03d", uint64(id)), nil
}

func (id *testID) UnmarshalJSON(data []byte) error {
	text, _, kind, err := DecodeJSON(data, false, 0, &testErrors)
	if kind == JSONText {
		_, err = fmt.Sscanf(string(text), "%d", (*uint64)(id))
	}
	return err
}

func TestNullHelpers(t *testing.T) {
	id, valid := testID(5), true
	if err := ScanNull(&id, &valid, nil); err != nil || id != 0 || valid {
		t.Fatalf("ScanNull(nil) = %d, %v, %v", id, valid, err)
	}
	if err := ScanNull(&id, &valid, int64(7)); err != nil || id != 7 || !valid {
		t.Fatalf("ScanNull(7) = %d, %v, %v", id, valid, err)
	}
	id, valid = 3, false
	err := ScanNull(&id, &valid, "x")
	if !errors.Is(err, errType) || err.Error() != "test: unsupported Scan source type string" || id != 3 || valid {
		t.Fatalf("ScanNull(string) = %d, %v, %v", id, valid, err)
	}
	if v, err := NullValue(testID(9), false); v != nil || err != nil {
		t.Fatalf("NullValue(invalid) = %v, %v", v, err)
	}
	if v, err := NullValue(testID(9), true); v != int64(9) || err != nil {
		t.Fatalf("NullValue(9) = %v, %v", v, err)
	}
	for _, tc := range []struct {
		id    testID
		valid bool
		want  string
		err   error
	}{{9, true, `"009"`, nil}, {9, false, `null`, nil}, {101, true, ``, errRange}} {
		got, err := MarshalNullJSON(tc.id, tc.valid)
		if string(got) != tc.want || err != tc.err {
			t.Errorf("MarshalNullJSON(%d, %v) = %s, %v", tc.id, tc.valid, got, err)
		}
	}
	for _, in := range []string{`null`, `""`} {
		id, valid = 5, true
		if err := UnmarshalNullJSON(&id, &valid, []byte(in)); err != nil || id != 0 || valid {
			t.Errorf("UnmarshalNullJSON(%s) = %d, %v, %v", in, id, valid, err)
		}
	}
	if err := UnmarshalNullJSON(&id, &valid, []byte(`"\u0034\u0032"`)); err != nil || id != 42 || !valid {
		t.Errorf("UnmarshalNullJSON(escaped 42) = %d, %v, %v", id, valid, err)
	}
	id, valid = 5, false
	if err := UnmarshalNullJSON(&id, &valid, []byte(`7`)); !errors.Is(err, errJSON) || id != 5 || valid {
		t.Errorf("UnmarshalNullJSON(7) = %d, %v, %v", id, valid, err)
	}
}

func TestDigits(t *testing.T) {
	for _, tc := range []struct {
		s  string
		v  uint64
		ok bool
	}{
		{"0", 0, true}, {"0000000000009", 9, true}, {"3774874268538", 3774874268538, true},
		{"9999999999999999999", 9999999999999999999, true},
		{"", 0, false}, {"12345678901234567890", 0, false}, {"12a", 0, false}, {"-1", 0, false}, {"1 ", 0, false},
	} {
		if v, ok := Digits(tc.s); v != tc.v || ok != tc.ok {
			t.Errorf("Digits(%q) = %d, %v", tc.s, v, ok)
		}
		if v, ok := Digits([]byte(tc.s)); v != tc.v || ok != tc.ok {
			t.Errorf("Digits([]byte %q) = %d, %v", tc.s, v, ok)
		}
	}
}

func TestReadingsText(t *testing.T) {
	got := ReadingsText("formats", []Reading{{"ulid", "2016-07-30T23:54:10.259Z"}, {"legacy", "2067-07-18T00:59:40.831Z"}}, "so read as none")
	want := "valid in 2 formats, so read as none: as ulid, 2016-07-30T23:54:10.259Z; as legacy, 2067-07-18T00:59:40.831Z"
	if got != want {
		t.Errorf("%q, want %q", got, want)
	}
}
