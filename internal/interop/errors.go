package interop

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// The texts of the formats' typed errors. Each format declares its own
// error types, so that errors.As tells a scru128 error from a ulid one, and
// their Error methods call these, so that the five formats word every
// failure the same way. Only Error formats: building an error stores
// numbers.

// Layout is what an error text needs to know of a format.
type Layout struct {
	Name      string // the package name, which prefixes every text
	TextLen   int    // the length of the text form
	BinaryLen int    // 16 for a 128-bit format, 8 for a 64-bit one
}

// Form is where a length error was met, which decides the lengths its text
// lists as accepted.
type Form uint8

const (
	// FormText is the text form alone: Parse, UnmarshalText, UnmarshalJSON.
	FormText Form = iota
	// FormBinary is UnmarshalBinary, which takes the binary form or the
	// text.
	FormBinary
	// FormScan is Scan of a string: the text, or a UUID form (128 bits) or
	// decimal digits (64 bits).
	FormScan
	// FormScanBytes is Scan of a []byte, which takes the binary form too.
	FormScanBytes
)

// Want returns the length a length error of form expects: the binary
// form's for [FormBinary], the text form's otherwise (Scan lists its other
// forms in the text only).
func (l *Layout) Want(form Form) int {
	if form == FormBinary {
		return l.BinaryLen
	}
	return l.TextLen
}

// LengthErrorText is the text of a format's LengthError, for example
// `scru128: invalid length 4, want 25`, or for Scan of a []byte
// `scru128: invalid length 4, want 25 (text), 16 (binary), 32 or 36 (UUID)`.
func LengthErrorText(l *Layout, got, want int, form Form) string {
	s := l.Name + ": invalid length " + strconv.Itoa(got) + ", want "
	text, binary := strconv.Itoa(l.TextLen)+" (text)", strconv.Itoa(l.BinaryLen)+" (binary)"
	// The other forms Scan takes: a 128-bit ID's UUID forms, a 64-bit
	// ID's decimal digits.
	other, sep := "32 or 36 (UUID)", ", "
	if l.BinaryLen != 16 {
		other, sep = "decimal digits", " or "
	}
	switch form {
	case FormBinary:
		return s + binary + " or " + text
	case FormScan:
		return s + text + sep + other
	case FormScanBytes:
		return s + text + ", " + binary + sep + other
	}
	return s + strconv.Itoa(want)
}

// CharAt returns the byte at s[i] and the UTF-8 character that begins
// there, as utf8.DecodeRune reports it: a byte that begins no valid
// character gives utf8.RuneError and size 1.
func CharAt[T text](s T, i int) (c byte, r rune, size int) {
	// A character has at most utf8.UTFMax bytes; the conversion of so
	// few bytes needs no allocation.
	r, size = utf8.DecodeRuneInString(string(s[i:min(len(s), i+utf8.UTFMax)]))
	return s[i], r, size
}

// CharErrorText is the text of a format's InvalidCharacterError, which
// names the character as a reader would recognize it, and its offset:
//
//	scru128: invalid character '_' (0x5f) at offset 10
//	scru128: invalid character 'é' (U+00E9) at offset 10
//	scru128: invalid character 0xff (not UTF-8) at offset 10
//
// c is the byte at offset; r and size describe the character it begins, as
// [CharAt] returns them. A size of 0 (an error built without them) is taken
// as a byte alone.
func CharErrorText(pkg string, offset int, c byte, r rune, size int) string {
	return pkg + ": " + CharText(offset, c, r, size)
}

// CharText is [CharErrorText] without the package prefix, for callers that
// put the character in a message of their own.
func CharText(offset int, c byte, r rune, size int) string {
	var what string
	switch {
	case c < utf8.RuneSelf:
		what = strconv.QuoteRune(rune(c)) + " (0x" + hex2(c) + ")"
	case size > 1:
		what = strconv.QuoteRune(r) + " (" + codePoint(r) + ")"
	default:
		what = "0x" + hex2(c) + " (not UTF-8)"
	}
	return "invalid character " + what + " at offset " + strconv.Itoa(offset)
}

// hex2 returns c as two lower-case hexadecimal digits.
func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}

// codePoint returns r in the U+XXXX notation, with at least four digits.
func codePoint(r rune) string {
	h := strings.ToUpper(strconv.FormatUint(uint64(r), 16))
	return "U+" + strings.Repeat("0", max(0, 4-len(h))) + h
}

// FieldErrorText is the text of a format's FieldError, for example
// `scru128: counter_hi 16777216 out of range (max 16777215)`.
func FieldErrorText(pkg, field string, value, max uint64) string {
	return pkg + ": " + field + " " + strconv.FormatUint(value, 10) +
		" out of range (max " + strconv.FormatUint(max, 10) + ")"
}

// MustError is the value a format's MustParse panics with: the error of
// Parse, with the input it was given.
type MustError struct {
	Pkg   string // the package name, for example "scru128"
	Input string // the argument of MustParse
	Err   error  // the error of Parse
}

// mustQuoteLimit bounds how much of the input a MustError quotes.
const mustQuoteLimit = 64

// Error names the call and its input once, then the reason without a
// second package prefix, for example
// `scru128: MustParse("0372"): invalid length 4, want 25`.
func (e *MustError) Error() string {
	input := e.Input
	if len(input) > mustQuoteLimit {
		input = input[:mustQuoteLimit] + "..."
	}
	return e.Pkg + ": MustParse(" + strconv.Quote(input) + "): " +
		strings.TrimPrefix(e.Err.Error(), e.Pkg+": ")
}

// Unwrap returns the error of Parse, so that errors.Is and errors.As see
// the format's own errors in a recovered panic.
func (e *MustError) Unwrap() error { return e.Err }

// Reading is one way to read an input that has more than one.
type Reading struct {
	As    string // what the input is read as: a form, a format
	Gives string // what it then is
}

// ReadingsText names every reading of an input valid in more than one
// way, for an error that says why none was taken: with kind "formats" and
// verdict "so read as none",
//
//	valid in 2 formats, so read as none: as ulid, 2016-07-30T23:54:10.259Z; as legacy, 2067-07-18T00:59:40.831Z
func ReadingsText(kind string, readings []Reading, verdict string) string {
	var b strings.Builder
	b.WriteString("valid in " + strconv.Itoa(len(readings)) + " " + kind + ", " + verdict + ":")
	for i, r := range readings {
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString(" as " + r.As + ", " + r.Gives)
	}
	return b.String()
}

// Ambiguity is what a 64-bit format's AmbiguousError holds: input of all
// digits that reads as two IDs, as the text form (or, Binary set, the 8
// bytes of the binary form) and as decimal text, and the two IDs, each as
// its text and its integer. Value is set when the input is the decimal
// text Value would have a text column hold, and Value refused it.
type Ambiguity struct {
	Binary                  bool
	Value                   bool
	FormText, DecimalText   string
	FormValue, DecimalValue uint64
}

// AmbiguousText is the text of a 64-bit format's AmbiguousError, which
// quotes the input (its digits are the decimal reading's, padded with
// zeros to the form's length) and names both readings:
//
//	ulidflake: "3774874268538" is valid in 2 forms, so read as none: as text, ID 3774874268538 (integer 3718997170769368168); as decimal digits, ID 00003DVM0MCVT (integer 3774874268538); scan into a string for Parse, or into an int64, to choose
func AmbiguousText(l *Layout, a Ambiguity) string {
	form, width, choose := "text", l.TextLen, "scan into a string for Parse, or into an int64, to choose"
	if a.Binary {
		form, width, choose = "the binary form", l.BinaryLen, "scan into a []byte for UnmarshalBinary, or into an int64, to choose"
	}
	digits := strconv.FormatUint(a.DecimalValue, 10)
	input := strconv.Quote(strings.Repeat("0", max(0, width-len(digits))) + digits)
	readings := []Reading{
		{form, "ID " + a.FormText + " (integer " + strconv.FormatUint(a.FormValue, 10) + ")"},
		{"decimal digits", "ID " + a.DecimalText + " (integer " + digits + ")"},
	}
	if a.Value {
		return l.Name + ": the decimal text of ID " + a.DecimalText + ", " + input + ", is " +
			ReadingsText("forms", readings, "so Value writes none")
	}
	return l.Name + ": " + input + " is " + ReadingsText("forms", readings, "so read as none") + "; " + choose
}

// RangeErrorText is the text of a format's RangeError, which names the
// largest ID in the form that was read, for example
// `scru128: value out of range (max f5lxx1zz5pnorynqglhzmsp33)`.
func RangeErrorText(pkg, max string) string {
	return pkg + ": value out of range (max " + max + ")"
}
