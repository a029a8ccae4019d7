package idtest

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// ParseErrors describes one format's text parsers and typed errors for
// [CheckParseErrors].
type ParseErrors struct {
	Pkg   string // the package name, which prefixes every error text
	Valid string // a valid text, upper or lower case as the format writes it
	// Parsers are the ways the format parses text (Parse, ParseBytes,
	// UnmarshalText, Validate, ...) by name, each returning only the
	// error.
	Parsers map[string]func(s string) error
	// MustParse is the format's MustParse.
	MustParse func(s string)
	// Length and Char are the sentinels ErrInvalidLength and
	// ErrInvalidCharacter.
	Length, Char error
	// LengthOf returns the Got and Want fields of the format's
	// *LengthError in err's chain.
	LengthOf func(err error) (got, want int, ok bool)
	// CharOf returns the fields of the format's *InvalidCharacterError in
	// err's chain.
	CharOf func(err error) (offset int, c byte, r rune, size int, ok bool)
}

// CheckParseErrors checks that every parser of a format reports a wrong
// length with the length received and expected, and a bad character as a
// reader would recognize it (an ASCII byte, a multi-byte UTF-8 character, a
// byte that is not UTF-8), with its offset, in typed errors that match the
// sentinels and in the shared wording; and that MustParse panics with an
// error that quotes its input and wraps Parse's.
func CheckParseErrors(t *testing.T, c ParseErrors) {
	t.Helper()
	n := len(c.Valid)
	for _, length := range []int{0, 1, n - 1, n + 1, 2 * n} {
		s := strings.Repeat("0", length)
		want := fmt.Sprintf("%s: invalid length %d, want %d", c.Pkg, length, n)
		for name, parse := range c.Parsers {
			err := parse(s)
			got, wantLen, ok := c.LengthOf(err)
			if !ok || got != length || wantLen != n || !errors.Is(err, c.Length) || err.Error() != want {
				t.Errorf("%s(%d bytes) = %v; want %q as a LengthError{Got: %d, Want: %d}", name, length, err, want, length, n)
			}
		}
	}
	// A character of the valid text replaced, keeping the length (for a
	// replacement of one byte) or not (the length error comes first).
	for _, tc := range []struct {
		offset      int
		replacement string
		what        string // how the text names the character
	}{
		{0, "_", `'_' (0x5f)`},
		{n / 2, " ", `' ' (0x20)`},
		{n - 1, "\t", `'\t' (0x09)`},
		{n - 1, "\x00", `'\x00' (0x00)`},
		{n - 2, "é", `'é' (U+00E9)`},
		{n - 3, "€", `'€' (U+20AC)`},
		{n - 4, "😀", `'😀' (U+1F600)`},
		{n - 4, "\u200b\xff", `'\u200b' (U+200B)`},
		{n - 1, "\xff", `0xff (not UTF-8)`},
		{0, "\x80", `0x80 (not UTF-8)`},
		{n - 1, "\xc3", `0xc3 (not UTF-8)`},     // the first byte of é, cut off
		{n - 2, "\xf0\x9f", `0xf0 (not UTF-8)`}, // half an emoji
		{3, "\xed\xa0\x80", `0xed (not UTF-8)`}, // a surrogate, which UTF-8 excludes
	} {
		s := c.Valid[:tc.offset] + tc.replacement + c.Valid[tc.offset+len(tc.replacement):]
		r, size := utf8.DecodeRuneInString(s[tc.offset:])
		want := fmt.Sprintf("%s: invalid character %s at offset %d", c.Pkg, tc.what, tc.offset)
		for name, parse := range c.Parsers {
			err := parse(s)
			offset, char, gotRune, gotSize, ok := c.CharOf(err)
			if !ok || offset != tc.offset || char != s[tc.offset] || gotRune != r || gotSize != size ||
				!errors.Is(err, c.Char) || err.Error() != want {
				t.Errorf("%s(%q) = %v; want %q at offset %d", name, s, err, want, tc.offset)
			}
		}
	}
	for name, parse := range c.Parsers {
		if err := parse(c.Valid); err != nil {
			t.Errorf("%s(%q) = %v", name, c.Valid, err)
		}
	}
	checkMustParse(t, c)
}

func checkMustParse(t *testing.T, c ParseErrors) {
	t.Helper()
	for _, tc := range []struct{ input, want string }{
		{"0", fmt.Sprintf(`%s: MustParse("0"): invalid length 1, want %d`, c.Pkg, len(c.Valid))},
		{c.Valid[:len(c.Valid)-1] + "!", fmt.Sprintf(`%s: MustParse(%q): invalid character '!' (0x21) at offset %d`,
			c.Pkg, c.Valid[:len(c.Valid)-1]+"!", len(c.Valid)-1)},
	} {
		func() {
			defer func() {
				err, ok := recover().(error)
				if !ok || err.Error() != tc.want || !errors.Is(err, c.Length) && !errors.Is(err, c.Char) {
					t.Errorf("MustParse(%q) panicked with %v, want %q", tc.input, err, tc.want)
				}
			}()
			c.MustParse(tc.input)
		}()
	}
	// A long input is quoted in part.
	func() {
		defer func() {
			err, _ := recover().(error)
			if err == nil || len(err.Error()) > 160 || !errors.Is(err, c.Length) {
				t.Errorf("MustParse(long) panicked with %v", err)
			}
		}()
		c.MustParse(strings.Repeat("x", 10_000))
	}()
}

// RangeErrors describes what one format's readers return for values above
// its largest ID, for [CheckRangeErrors].
type RangeErrors struct {
	Pkg   string // the package name, which prefixes every error text
	Range error  // the sentinel ErrOutOfRange
	// MaxOf returns the Max field of the format's *RangeError in err's
	// chain. Nil checks the error's text and sentinel alone.
	MaxOf func(err error) (max string, ok bool)
	Cases []RangeCase
}

// RangeCase is one reader given one value out of range.
type RangeCase struct {
	Name string // the reader and its input, for the failure message
	Err  error  // what the reader returned
	Max  string // the bound the error must name: the largest ID in the form read
	// MustInput is the input of MustParse, for the panic of MustParse,
	// whose text quotes it; empty for other readers.
	MustInput string
}

// PanicOf returns the error f panics with, or nil if it returns.
func PanicOf(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err, _ = r.(error)
			if err == nil {
				err = fmt.Errorf("panic with a %T: %v", r, r)
			}
		}
	}()
	f()
	return nil
}

// CheckRangeErrors checks that every case's error matches the sentinel,
// carries the bound in the format's typed error and reads
// `pkg: value out of range (max MAX)`.
func CheckRangeErrors(t *testing.T, c RangeErrors) {
	t.Helper()
	if len(c.Cases) == 0 {
		t.Fatal("no cases")
	}
	for _, tc := range c.Cases {
		want := fmt.Sprintf("%s: value out of range (max %s)", c.Pkg, tc.Max)
		if tc.MustInput != "" {
			want = fmt.Sprintf("%s: MustParse(%q): value out of range (max %s)", c.Pkg, tc.MustInput, tc.Max)
		}
		if tc.Err == nil || !errors.Is(tc.Err, c.Range) || tc.Err.Error() != want {
			t.Errorf("%s = %v; want %q", tc.Name, tc.Err, want)
			continue
		}
		if c.MaxOf != nil {
			if max, ok := c.MaxOf(tc.Err); !ok || max != tc.Max {
				t.Errorf("%s = %v: RangeError.Max = %q, %v; want %q", tc.Name, tc.Err, max, ok, tc.Max)
			}
		}
	}
}
