package ulid

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
	// [ULID.Scan] accepts. The error returned is a [*LengthError] with the
	// length received and the length expected. (github.com/oklog/ulid/v2
	// calls it ErrDataSize.)
	ErrInvalidLength = errors.New("ulid: invalid length")
	// ErrInvalidCharacter means a text form held a byte outside the
	// Crockford Base32 alphabet 0-9 A-Z without I L O U, in either case, or
	// a UUID form given to Scan a byte that is neither a hexadecimal digit
	// nor a hyphen in its place. The error returned is an
	// [*InvalidCharacterError] with the character and its offset.
	ErrInvalidCharacter = errors.New("ulid: invalid character")
	// ErrOutOfRange means a value does not fit the format: a text form
	// above 2^128-1 (a first digit above 7: a [*RangeError] naming
	// 7ZZZZZZZZZZZZZZZZZZZZZZZZZ, the largest ULID), a timestamp above [MaxTimestamp] given to
	// [FromFields], [MinAt] or [MaxAt] (a [*FieldError]), or a time before
	// 1970 or after MaxTimestamp (in the year 10889) given to [MinAtTime],
	// [MaxAtTime] or [NewAt].
	ErrOutOfRange = errors.New("ulid: value out of range")
	// ErrOverflow is [ErrOutOfRange] under the name github.com/oklog/ulid/v2
	// gives a text above 7ZZZZZZZZZZZZZZZZZZZZZZZZZ, so that code written
	// against it compiles.
	//
	// Deprecated: use ErrOutOfRange.
	ErrOverflow = ErrOutOfRange
	// ErrInvalidTimestamp means a generator's clock read 0 or before 1970
	// or after [MaxTimestamp], or a Core method was given a timestamp or an
	// allowance of 0 or above MaxTimestamp.
	ErrInvalidTimestamp = errors.New("ulid: invalid timestamp")
	// ErrMonotonicOverflow means a [Generator] could not add one to the
	// 80-bit random part within the current millisecond; an ID can be
	// minted again once the clock moves to the next millisecond.
	ErrMonotonicOverflow = errors.New("ulid: monotonic random part overflow")
	// ErrClockRollback means the clock moved back further than the
	// rollback allowance and the caller asked for an error instead of a
	// reset.
	ErrClockRollback = errors.New("ulid: clock rollback beyond the allowance")
	// ErrScanNull means SQL NULL was scanned into a ULID; scan nullable
	// columns into a [NullULID].
	ErrScanNull = errors.New("ulid: cannot scan NULL into ULID (use NullULID)")
	// ErrScanType means Scan was given a source type it does not accept.
	// The error returned wraps it and names the type, for example
	// "ulid: unsupported Scan source type int64".
	ErrScanType = errors.New("ulid: unsupported Scan source type")
)

// errJSON is wrapped by the error for JSON that is neither a string nor
// null.
var errJSON = errors.New("ulid: a ULID in JSON must be a string or null")

// errBinaryJSON is wrapped by the error for a JSON array that is not the
// 16 bytes of a Binary.
var errBinaryJSON = errors.New("ulid: a Binary in JSON must be a string, null or an array of 16 numbers from 0 to 255")

// layout describes this format to the shared error texts.
var layout = interop.Layout{Name: "ulid", TextLen: 26, BinaryLen: 16}

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
// example `ulid: invalid length 4, want 26`.
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

// InvalidCharacterError reports a character outside the Crockford Base32 alphabet and
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
// in hexadecimal (`ulid: invalid character '_' (0x5f) at offset 10`),
// a longer UTF-8 character quoted with its code point (`'é' (U+00E9)`),
// and a byte that is not UTF-8 in hexadecimal (`0xff (not UTF-8)`).
func (e *InvalidCharacterError) Error() string {
	return interop.CharErrorText("ulid", e.Offset, e.Char, e.Rune, e.Size)
}

// Is reports whether target is [ErrInvalidCharacter].
func (e *InvalidCharacterError) Is(target error) bool { return target == ErrInvalidCharacter }

// FieldError reports a field value that does not fit the field's width,
// given to [FromFields], [MinAt] or [MaxAt]. errors.Is(err,
// [ErrOutOfRange]) reports true for it.
type FieldError struct {
	// Field is the field's name in the specification: "timestamp".
	Field string
	Value uint64 // the value given
	Max   uint64 // the largest value the field holds
}

// Error names the field, the value and the limit, for example
// `ulid: timestamp 281474976710656 out of range (max 281474976710655)`.
func (e *FieldError) Error() string {
	return interop.FieldErrorText("ulid", e.Field, e.Value, e.Max)
}

// Is reports whether target is [ErrOutOfRange].
func (e *FieldError) Is(target error) bool { return target == ErrOutOfRange }

// RangeError reports a value read from outside that is above the largest
// ULID, and names that ULID: what [FieldError] does for a field.
// errors.Is(err, [ErrOutOfRange]) reports true for it. The errors returned
// are shared values: read them with errors.As, and do not modify them.
type RangeError struct {
	// Max is the largest ULID's text, 7ZZZZZZZZZZZZZZZZZZZZZZZZZ
	// (2^128-1), which a text given to Parse, ParseBytes, UnmarshalText,
	// UnmarshalJSON, UnmarshalBinary or Scan was above.
	Max string
}

// Error names the largest ULID, for example
// `ulid: value out of range (max 7ZZZZZZZZZZZZZZZZZZZZZZZZZ)`.
func (e *RangeError) Error() string { return interop.RangeErrorText("ulid", e.Max) }

// Is reports whether target is [ErrOutOfRange].
func (e *RangeError) Is(target error) bool { return target == ErrOutOfRange }

// errTextRange is the error for a text above the largest ULID.
var errTextRange = &RangeError{Max: "7ZZZZZZZZZZZZZZZZZZZZZZZZZ"}
