package legacy

import (
	"errors"

	"github.com/fastid/scru128/internal/interop"
)

// Errors returned by this package. Parsing errors are typed values that
// say what was wrong and where, and match these sentinels under errors.Is:
// a [*LengthError] matches [ErrInvalidLength], an [*InvalidCharacterError]
// [ErrInvalidCharacter], and a [*FieldError] or a [*RangeError]
// [ErrOutOfRange].
var (
	// ErrInvalidLength means a text form was not 26 bytes long, a binary
	// form not 16 bytes long, or a Scan source none of the lengths
	// [ID.Scan] accepts. The error returned is a [*LengthError] with the
	// length received and the length expected.
	ErrInvalidLength = errors.New("legacy: invalid length")
	// ErrInvalidCharacter means a text form held a byte outside [0-9A-Va-v],
	// or a UUID form given to Scan a byte that is neither a hexadecimal
	// digit nor a hyphen in its place. The error returned is an
	// [*InvalidCharacterError] with the character and its offset.
	ErrInvalidCharacter = errors.New("legacy: invalid character")
	// ErrOutOfRange means a value does not fit the format: a text form
	// above 2^128-1 (its first digit above 7: a [*RangeError] naming
	// 7VVVVVVVVVVVVVVVVVVVVVVVVV, the largest ID), a field given to [FromFields], [MinAt] or [MaxAt]
	// that does not fit its width (a [*FieldError]), or a time before 2020
	// or more than [MaxTimestamp] ms after it (in the year 2577) given to
	// [MinAtTime], [MaxAtTime] or [NewAt].
	ErrOutOfRange = errors.New("legacy: value out of range")
	// ErrOverflow is the old name of [ErrOutOfRange].
	//
	// Deprecated: use ErrOutOfRange.
	ErrOverflow = ErrOutOfRange
	// ErrInvalidTimestamp means the clock read before 2020 or more than
	// [MaxTimestamp] ms after it, or [Generator.GenerateCore] was given a
	// timestamp above MaxTimestamp.
	ErrInvalidTimestamp = errors.New("legacy: invalid timestamp")
	// ErrMonotonicOverflow means the counter would pass 2^28-1 within one
	// millisecond; the format's generator waits for the clock to move on, which
	// [Generator.Generate] does and [Generator.GenerateCore] reports with this
	// error.
	ErrMonotonicOverflow = errors.New("legacy: counter overflow")
	// ErrCounterOverflow is the old name of [ErrMonotonicOverflow].
	//
	// Deprecated: use ErrMonotonicOverflow.
	ErrCounterOverflow = ErrMonotonicOverflow
	// ErrScanNull means SQL NULL was scanned into an ID; scan nullable
	// columns into a [NullID].
	ErrScanNull = errors.New("legacy: cannot scan NULL into ID (use NullID)")
	// ErrScanType means Scan was given a source type it does not accept.
	// The error returned wraps it and names the type, for example
	// "legacy: unsupported Scan source type int64".
	ErrScanType = errors.New("legacy: unsupported Scan source type")
)

// errJSON is wrapped by the error for JSON that is neither a string nor
// null.
var errJSON = errors.New("legacy: an ID in JSON must be a string or null")

// errBinaryJSON is wrapped by the error for a JSON array that is not the
// 16 bytes of a Binary.
var errBinaryJSON = errors.New("legacy: a Binary in JSON must be a string, null or an array of 16 numbers from 0 to 255")

// layout describes this format to the shared error texts.
var layout = interop.Layout{Name: "legacy", TextLen: 26, BinaryLen: 16}

// errs hands this package's errors to the shared helpers.
var errs = interop.Errors{
	Length: func(got int, form interop.Form) error {
		return &LengthError{Got: got, Want: layout.Want(form), form: form}
	},
	Range: errTextRange,
	Char: func(offset int, c byte, r rune, size int) error {
		return &InvalidCharacterError{Offset: offset, Char: c, Rune: r, Size: size}
	},
	ScanNull: ErrScanNull,
	ScanType: ErrScanType,
	JSON:     errJSON,
}

// LengthError reports an input whose length is not one the parser takes.
// errors.Is(err, [ErrInvalidLength]) reports true for it.
type LengthError struct {
	Got int // the length received, in bytes
	// Want is the length expected: 26, the text form, for Parse,
	// UnmarshalText, UnmarshalJSON and Scan (whose error text lists the
	// other forms it takes), and 16 for UnmarshalBinary.
	Want int
	form interop.Form // where the error was met, for the text
}

// Error describes the length received and the lengths accepted, for
// example `legacy: invalid length 4, want 26`.
func (e *LengthError) Error() string {
	return interop.LengthErrorText(&layout, e.Got, e.Want, e.form)
}

// Is reports whether target is [ErrInvalidLength].
func (e *LengthError) Is(target error) bool { return target == ErrInvalidLength }

// textLengthError is the error for a text form of n bytes. It is kept out
// of line so that the decoder's fast path stays small.
//
//go:noinline
func textLengthError(n int) error { return &LengthError{Got: n, Want: 26} }

// charError is the error for the character of s at offset i. It is kept
// out of line so that the decoder's fast path stays small.
//
//go:noinline
func charError(s string, i int) error {
	c, r, size := interop.CharAt(s, i)
	return &InvalidCharacterError{Offset: i, Char: c, Rune: r, Size: size}
}

// InvalidCharacterError reports a character outside [0-9A-Va-v] and
// where it was. errors.Is(err, [ErrInvalidCharacter]) reports true for it.
type InvalidCharacterError struct {
	Offset int  // index of the character's first byte in the input
	Char   byte // the byte at Offset
	// Rune and Size are the UTF-8 character that begins at Offset and its
	// length in bytes, as utf8.DecodeRune reports them: a byte that begins
	// no valid character gives utf8.RuneError and 1.
	Rune rune
	Size int
}

// Error describes the character and its offset: an ASCII byte quoted and
// in hexadecimal (`legacy: invalid character '_' (0x5f) at offset 10`),
// a longer UTF-8 character quoted with its code point (`'é' (U+00E9)`),
// and a byte that is not UTF-8 in hexadecimal (`0xff (not UTF-8)`).
func (e *InvalidCharacterError) Error() string {
	return interop.CharErrorText("legacy", e.Offset, e.Char, e.Rune, e.Size)
}

// Is reports whether target is [ErrInvalidCharacter].
func (e *InvalidCharacterError) Is(target error) bool { return target == ErrInvalidCharacter }

// FieldError reports a field value that does not fit the field's width,
// given to [FromFields], [MinAt] or [MaxAt]. errors.Is(err,
// [ErrOutOfRange]) reports true for it.
type FieldError struct {
	// Field is the field's name in the specification: "timestamp",
	// "counter" or "per_sec_random".
	Field string
	Value uint64 // the value given
	Max   uint64 // the largest value the field holds
}

// Error names the field, the value and the limit, for example
// `legacy: counter 268435456 out of range (max 268435455)`.
func (e *FieldError) Error() string {
	return interop.FieldErrorText("legacy", e.Field, e.Value, e.Max)
}

// Is reports whether target is [ErrOutOfRange].
func (e *FieldError) Is(target error) bool { return target == ErrOutOfRange }

// RangeError reports a value read from outside that is above the largest
// ID, and names that ID: what [FieldError] does for a field.
// errors.Is(err, [ErrOutOfRange]) reports true for it. The errors returned
// are shared values: read them with errors.As, and do not modify them.
type RangeError struct {
	// Max is the largest ID's text, 7VVVVVVVVVVVVVVVVVVVVVVVVV (2^128-1),
	// which a text given to Parse, ParseBytes, UnmarshalText,
	// UnmarshalJSON, UnmarshalBinary or Scan was above.
	Max string
}

// Error names the largest ID, for example
// `legacy: value out of range (max 7VVVVVVVVVVVVVVVVVVVVVVVVV)`.
func (e *RangeError) Error() string { return interop.RangeErrorText("legacy", e.Max) }

// Is reports whether target is [ErrOutOfRange].
func (e *RangeError) Is(target error) bool { return target == ErrOutOfRange }

// errTextRange is the error for a text above the largest ID.
var errTextRange = &RangeError{Max: "7VVVVVVVVVVVVVVVVVVVVVVVVV"}
