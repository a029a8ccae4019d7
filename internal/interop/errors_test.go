package interop

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCharAt(t *testing.T) {
	for _, tc := range []struct {
		s    string
		i    int
		r    rune
		size int
	}{
		{"ab_", 2, '_', 1},
		{"aé", 1, 'é', 2},
		{"a😀b", 1, '😀', 4},
		{"a\xf0\x9f\x98", 1, utf8.RuneError, 1}, // cut off at the end
		{"a\x80", 1, utf8.RuneError, 1},
		{"\xffé", 0, utf8.RuneError, 1},
		{"€€", 3, '€', 3},
	} {
		for _, got := range [][3]any{
			func() [3]any { c, r, n := CharAt(tc.s, tc.i); return [3]any{c, r, n} }(),
			func() [3]any { c, r, n := CharAt([]byte(tc.s), tc.i); return [3]any{c, r, n} }(),
		} {
			if got != [3]any{tc.s[tc.i], tc.r, tc.size} {
				t.Errorf("CharAt(%q, %d) = %v, want %q, %d", tc.s, tc.i, got, tc.r, tc.size)
			}
		}
	}
	b := []byte("0123456789é")
	if n := testing.AllocsPerRun(100, func() { CharAt(b, 10) }); n != 0 {
		t.Errorf("CharAt of a []byte allocates %v times", n)
	}
}

func TestErrorTexts(t *testing.T) {
	l128 := &Layout{Name: "x128", TextLen: 25, BinaryLen: 16}
	l64 := &Layout{Name: "x64", TextLen: 12, BinaryLen: 8}
	for _, tc := range []struct{ got, want string }{
		{LengthErrorText(l128, 4, l128.Want(FormText), FormText), "x128: invalid length 4, want 25"},
		{LengthErrorText(l128, 4, l128.Want(FormBinary), FormBinary), "x128: invalid length 4, want 16 (binary) or 25 (text)"},
		{LengthErrorText(l128, 4, l128.Want(FormScan), FormScan), "x128: invalid length 4, want 25 (text), 32 or 36 (UUID)"},
		{LengthErrorText(l128, 4, l128.Want(FormScanBytes), FormScanBytes), "x128: invalid length 4, want 25 (text), 16 (binary), 32 or 36 (UUID)"},
		{LengthErrorText(l64, 0, l64.Want(FormText), FormText), "x64: invalid length 0, want 12"},
		{LengthErrorText(l64, 3, l64.Want(FormBinary), FormBinary), "x64: invalid length 3, want 8 (binary) or 12 (text)"},
		{LengthErrorText(l64, 0, l64.Want(FormScan), FormScan), "x64: invalid length 0, want 12 (text) or decimal digits"},
		{LengthErrorText(l64, 0, l64.Want(FormScanBytes), FormScanBytes), "x64: invalid length 0, want 12 (text), 8 (binary) or decimal digits"},
		{CharErrorText("x", 3, '\n', '\n', 1), `x: invalid character '\n' (0x0a) at offset 3`},
		{CharErrorText("x", 3, 0x7f, 0x7f, 1), `x: invalid character '\x7f' (0x7f) at offset 3`},
		{CharErrorText("x", 3, 0xc3, 'é', 2), `x: invalid character 'é' (U+00E9) at offset 3`},
		{CharErrorText("x", 3, 0xf4, 0x10ffff, 4), `x: invalid character '\U0010ffff' (U+10FFFF) at offset 3`},
		{CharErrorText("x", 3, 0xef, utf8.RuneError, 3), `x: invalid character '�' (U+FFFD) at offset 3`}, // U+FFFD itself
		{CharErrorText("x", 3, 0xef, utf8.RuneError, 1), `x: invalid character 0xef (not UTF-8) at offset 3`},
		{CharErrorText("x", 3, 0xc3, 0, 0), `x: invalid character 0xc3 (not UTF-8) at offset 3`}, // built without Rune and Size
		{FieldErrorText("x", "counter", 1<<64-1, 7), "x: counter 18446744073709551615 out of range (max 7)"},
	} {
		if tc.got != tc.want {
			t.Errorf("%q, want %q", tc.got, tc.want)
		}
	}
}

func TestMustError(t *testing.T) {
	cause := errors.New("x: invalid length 3, want 25")
	err := &MustError{Pkg: "x", Input: "abc", Err: cause}
	if err.Error() != `x: MustParse("abc"): invalid length 3, want 25` || !errors.Is(err, cause) {
		t.Errorf("%v", err)
	}
	long := &MustError{Pkg: "x", Input: strings.Repeat("é", 100), Err: cause}
	if want := `x: MustParse("` + strings.Repeat("é", 32) + `..."): invalid length 3, want 25`; long.Error() != want {
		t.Errorf("%v, want %s", long, want)
	}
}
