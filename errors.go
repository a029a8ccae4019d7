package scru128

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
	// ErrInvalidLength means a text form was not 25 bytes long, a binary
	// form not 16 bytes long, or a Scan source none of the lengths
	// [ID.Scan] accepts. The error returned is a [*LengthError] with the
	// length received and the length expected.
	ErrInvalidLength = errors.New("scru128: invalid length")
	// ErrInvalidCharacter means a text form held a byte outside [0-9a-zA-Z],
	// or a UUID form given to Scan a byte that is neither a hexadecimal
	// digit nor a hyphen in its place. The error returned is an
	// [*InvalidCharacterError] with the character and its offset.
	ErrInvalidCharacter = errors.New("scru128: invalid character")
	// ErrOutOfRange means a value does not fit the format: a text form
	// above 2^128-1 (a [*RangeError] naming f5lxx1zz5pnorynqglhzmsp33, the
	// largest text), a field passed to
	// [FromFields] or a timestamp passed to [MinAt] or [MaxAt] that does not
	// fit its width (a [*FieldError] naming the field), or a time before
	// 1970 or after [MaxTimestamp] (in the year 10889) passed to
	// [MinAtTime], [MaxAtTime] or [NewAt].
	ErrOutOfRange = errors.New("scru128: value out of range")
	// ErrInvalidTimestamp means a timestamp or rollback allowance was 0 or
	// above 2^48-1 where a generator needs one inside that range, or that the
	// timestamp could not advance past 2^48-1 on a counter overflow.
	ErrInvalidTimestamp = errors.New("scru128: invalid timestamp")
	// ErrClockRollback means the clock moved back further than the rollback
	// allowance and the caller asked for an error instead of a reset.
	ErrClockRollback = errors.New("scru128: clock rollback beyond the allowance")
	// ErrScanNull means SQL NULL was scanned into an ID; scan nullable
	// columns into a [NullID].
	ErrScanNull = errors.New("scru128: cannot scan NULL into ID (use NullID)")
	// ErrScanType means Scan was given a source type it does not accept.
	// The error returned wraps it and names the type, for example
	// "scru128: unsupported Scan source type int64".
	ErrScanType = errors.New("scru128: unsupported Scan source type")
)

// errJSON is wrapped by the error for JSON that is neither a string nor
// null.
var errJSON = errors.New("scru128: an ID in JSON must be a string or null")

// errBinaryJSON is wrapped by the error for a JSON array that is not the
// 16 bytes of a Binary.
var errBinaryJSON = errors.New("scru128: a Binary in JSON must be a string, null or an array of 16 numbers from 0 to 255")

// layout describes this format to the shared error texts.
var layout = interop.Layout{Name: "scru128", TextLen: 25, BinaryLen: 16}

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
	// Want is the length expected: 25, the text form, for Parse,
	// UnmarshalText, UnmarshalJSON and Scan (whose error text lists the
	// other forms it takes), and 16 for UnmarshalBinary.
	Want int
	form interop.Form // where the error was met, for the text
}

// Error describes the length received and the lengths accepted, for
// example `scru128: invalid length 4, want 25`.
func (e *LengthError) Error() string {
	return interop.LengthErrorText(&layout, e.Got, e.Want, e.form)
}

// Is reports whether target is [ErrInvalidLength].
func (e *LengthError) Is(target error) bool { return target == ErrInvalidLength }

// textLengthError is the error for a text form of n bytes. It is kept out
// of line so that the decoder's fast path stays small.
//
//go:noinline
func textLengthError(n int) error { return &LengthError{Got: n, Want: 25} }

// InvalidCharacterError reports a character outside the Base36 alphabet and
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
// in hexadecimal (`scru128: invalid character '_' (0x5f) at offset 10`),
// a longer UTF-8 character quoted with its code point (`'é' (U+00E9)`),
// and a byte that is not UTF-8 in hexadecimal (`0xff (not UTF-8)`).
func (e *InvalidCharacterError) Error() string {
	return interop.CharErrorText("scru128", e.Offset, e.Char, e.Rune, e.Size)
}

// Is reports whether target is [ErrInvalidCharacter].
func (e *InvalidCharacterError) Is(target error) bool { return target == ErrInvalidCharacter }

// FieldError reports a field value that does not fit the field's width,
// given to [FromFields], [MinAt] or [MaxAt]. errors.Is(err,
// [ErrOutOfRange]) reports true for it.
type FieldError struct {
	// Field is the field's name in the specification: "timestamp",
	// "counter_hi" or "counter_lo".
	Field string
	Value uint64 // the value given
	Max   uint64 // the largest value the field holds
}

// Error names the field, the value and the limit, for example
// `scru128: counter_hi 16777216 out of range (max 16777215)`.
func (e *FieldError) Error() string {
	return interop.FieldErrorText("scru128", e.Field, e.Value, e.Max)
}

// Is reports whether target is [ErrOutOfRange].
func (e *FieldError) Is(target error) bool { return target == ErrOutOfRange }

// RangeError reports a value read from outside that is above the largest
// ID, and names that ID: what [FieldError] does for a field.
// errors.Is(err, [ErrOutOfRange]) reports true for it. The errors returned
// are shared values: read them with errors.As, and do not modify them.
type RangeError struct {
	// Max is the largest ID's text, f5lxx1zz5pnorynqglhzmsp33 (2^128-1),
	// which a text given to Parse, ParseBytes, UnmarshalText,
	// UnmarshalJSON, UnmarshalBinary or Scan was above.
	Max string
}

// Error names the largest ID, for example
// `scru128: value out of range (max f5lxx1zz5pnorynqglhzmsp33)`.
func (e *RangeError) Error() string { return interop.RangeErrorText("scru128", e.Max) }

// Is reports whether target is [ErrOutOfRange].
func (e *RangeError) Is(target error) bool { return target == ErrOutOfRange }

// errTextRange is the error for a text above the largest ID.
var errTextRange = &RangeError{Max: "f5lxx1zz5pnorynqglhzmsp33"}
