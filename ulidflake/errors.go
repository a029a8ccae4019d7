package ulidflake

import (
	"errors"
	"strconv"

	"github.com/fastid/scru128/internal/interop"
)

// Errors returned by this package. Parsing errors are typed values that
// say what was wrong and where, and match these sentinels under errors.Is:
// a [*LengthError] matches [ErrInvalidLength], an [*InvalidCharacterError]
// [ErrInvalidCharacter], and a [*FieldError] or a [*RangeError]
// [ErrOutOfRange].
var (
	// ErrInvalidLength means a text form was not 13 bytes long, a binary
	// form not 8 bytes long, or decimal text given to Scan was empty. The
	// error returned is a [*LengthError] with the length received and the
	// length expected.
	ErrInvalidLength = errors.New("ulidflake: invalid length")
	// ErrInvalidCharacter means a text form held a byte outside the
	// Crockford Base32 alphabet 0-9 A-Z without I L O U, in either case,
	// or decimal text given to Scan a byte other than 0-9. The error
	// returned is an [*InvalidCharacterError] with the character and its
	// offset.
	ErrInvalidCharacter = errors.New("ulidflake: invalid character")
	// ErrOutOfRange means a value does not fit the format: text above
	// 7ZZZZZZZZZZZZ (2^63-1), a negative integer (or 8 bytes with the sign
	// bit set, or decimal text above 2^63-1), each a [*RangeError] naming
	// the largest ID, a field passed to [FromFields],
	// [FromScalableFields], [MinAt] or [MaxAt] that does not fit its width
	// (a [*FieldError]), a time before the default epoch or more than
	// [MaxTimestamp] ms after it passed to [MinAtTime], [MaxAtTime] or
	// [NewAt], or a negative ID given to [ID.AppendText], [ID.MarshalText]
	// or Value.
	ErrOutOfRange = errors.New("ulidflake: value out of range")
	// ErrOverflow is the old name of [ErrOutOfRange]. A [Generator]'s overflow
	// within a millisecond, which it also named, is [ErrMonotonicOverflow].
	//
	// Deprecated: use ErrOutOfRange.
	ErrOverflow = ErrOutOfRange
	// ErrInvalidTimestamp means a [Generator]'s clock read before its epoch or
	// more than [MaxTimestamp] ms after it, or [Generator.GenerateCore] was
	// given a timestamp above MaxTimestamp.
	ErrInvalidTimestamp = errors.New("ulidflake: invalid timestamp")
	// ErrClockRollback means the clock read an earlier millisecond than the
	// last ID's.
	ErrClockRollback = errors.New("ulidflake: clock moved backwards")
	// ErrMonotonicOverflow means a [Generator]'s random part would pass its
	// width within the current millisecond; an ID can be minted again at
	// the next millisecond ([Generator.GenerateOrWait] waits for it).
	ErrMonotonicOverflow = errors.New("ulidflake: random part overflow within the millisecond")
	// ErrInvalidOption means an option given to [NewGenerator] was out of
	// range.
	ErrInvalidOption = errors.New("ulidflake: invalid option")
	// ErrAmbiguous means Scan was given digits that read as two different
	// IDs: 13 digits are the text form and decimal text, and 8 digits
	// given as a []byte the binary form and decimal text. The error
	// returned is an [*AmbiguousError] with both.
	ErrAmbiguous = errors.New("ulidflake: input reads as two IDs")
	// ErrScanNull means SQL NULL was scanned into an ID; scan nullable
	// columns into a [NullID].
	ErrScanNull = errors.New("ulidflake: cannot scan NULL into ID (use NullID)")
	// ErrScanType means Scan was given a source type it does not accept.
	// The error returned wraps it and names the type, for example
	// "ulidflake: unsupported Scan source type float64".
	ErrScanType = errors.New("ulidflake: unsupported Scan source type")
)

// errJSON is wrapped by the error for JSON that is neither a string, nor a
// non-negative integer, nor null.
var errJSON = errors.New("ulidflake: an ID in JSON must be a 13-digit string, a non-negative integer or null")

// layout describes this format to the shared error texts.
var layout = interop.Layout{Name: "ulidflake", TextLen: 13, BinaryLen: 8}

// errs hands this package's errors to the shared helpers.
var errs = interop.Errors{
	Length: func(got int, form interop.Form) error {
		return &LengthError{Got: got, Want: layout.Want(form), form: form}
	},
	Range: errIntRange,
	Char: func(offset int, c byte, r rune, size int) error {
		return &InvalidCharacterError{Offset: offset, Char: c, Rune: r, Size: size}
	},
	ScanNull: ErrScanNull,
	ScanType: ErrScanType,
	JSON:     errJSON,
	Ambiguous: func(binary bool, asForm, asDecimal uint64) error {
		form := "text"
		if binary {
			form = "binary"
		}
		return &AmbiguousError{Form: form, AsForm: ID(asForm), AsDecimal: ID(asDecimal)}
	},
}

// LengthError reports an input whose length is not one the parser takes.
// errors.Is(err, [ErrInvalidLength]) reports true for it.
type LengthError struct {
	Got int // the length received, in bytes
	// Want is the length expected: 13, the text form, for Parse,
	// UnmarshalText, UnmarshalJSON and Scan (whose error text lists the
	// other forms it takes), and 8 for UnmarshalBinary.
	Want int
	form interop.Form // where the error was met, for the text
}

// Error describes the length received and the lengths accepted, for
// example `ulidflake: invalid length 4, want 13`.
func (e *LengthError) Error() string {
	return interop.LengthErrorText(&layout, e.Got, e.Want, e.form)
}

// Is reports whether target is [ErrInvalidLength].
func (e *LengthError) Is(target error) bool { return target == ErrInvalidLength }

// textLengthError is the error for a text form of n bytes. It is kept out
// of line so that the decoder's fast path stays small.
//
//go:noinline
func textLengthError(n int) error { return &LengthError{Got: n, Want: 13} }

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
// in hexadecimal (`ulidflake: invalid character '_' (0x5f) at offset 10`),
// a longer UTF-8 character quoted with its code point (`'é' (U+00E9)`),
// and a byte that is not UTF-8 in hexadecimal (`0xff (not UTF-8)`).
func (e *InvalidCharacterError) Error() string {
	return interop.CharErrorText("ulidflake", e.Offset, e.Char, e.Rune, e.Size)
}

// Is reports whether target is [ErrInvalidCharacter].
func (e *InvalidCharacterError) Is(target error) bool { return target == ErrInvalidCharacter }

// FieldError reports a field value that does not fit the field's width,
// given to [FromFields], [FromScalableFields], [MinAt] or [MaxAt].
// errors.Is(err, [ErrOutOfRange]) reports true for it.
type FieldError struct {
	// Field is the field's name in the specification: "timestamp",
	// "randomness" or "scalability_id".
	Field string
	Value uint64 // the value given
	Max   uint64 // the largest value the field holds
}

// Error names the field, the value and the limit, for example
// `ulidflake: randomness 1048576 out of range (max 1048575)`.
func (e *FieldError) Error() string {
	return interop.FieldErrorText("ulidflake", e.Field, e.Value, e.Max)
}

// Is reports whether target is [ErrOutOfRange].
func (e *FieldError) Is(target error) bool { return target == ErrOutOfRange }

// AmbiguousError reports digits given to Scan that read as two different
// IDs, of which Scan takes neither: 13 digits are the text form and
// decimal text (an ID of the first 15m53.674s to 2h38m56.743s after its
// epoch has a 13-digit decimal, which a text column holds after Value),
// and 8 digits given as a []byte are the binary form and decimal text.
// Neither a string nor a []byte says which form the column holds; an
// int64 does. Where one reading is no ID, or both give the same ID, Scan
// takes it without this error. errors.Is(err, [ErrAmbiguous]) reports true
// for it, and errors.As gives both readings to a caller that knows the
// column's form; to read such a column, scan into a string and [Parse] it
// (text), or scan into an int64 (decimal).
type AmbiguousError struct {
	// Form is the form besides decimal text that the input has the
	// length of: "text" (13 characters) or "binary" (8 bytes).
	Form string
	// AsForm is the ID the input is in Form, AsDecimal the ID it is as
	// decimal text.
	AsForm, AsDecimal ID
}

// Error quotes the input and names both readings, for example
//
//	ulidflake: "3774874268538" is valid in 2 forms, so read as none: as text, ID 3774874268538 (integer 3718997170769368168); as decimal digits, ID 00003DVM0MCVT (integer 3774874268538); scan into a string for Parse, or into an int64, to choose
func (e *AmbiguousError) Error() string {
	return interop.AmbiguousText(&layout, interop.Ambiguity{
		Binary: e.Form == "binary", Value: false,
		FormText: e.AsForm.String(), DecimalText: e.AsDecimal.String(),
		FormValue: uint64(e.AsForm), DecimalValue: uint64(e.AsDecimal),
	})
}

// Is reports whether target is [ErrAmbiguous].
func (e *AmbiguousError) Is(target error) bool { return target == ErrAmbiguous }

// RangeError reports a value read from outside that is negative or above
// the largest ID, and names that ID: what [FieldError] does for a field.
// errors.Is(err, [ErrOutOfRange]) reports true for it. The errors returned
// are shared values: read them with errors.As, and do not modify them.
type RangeError struct {
	// Max is the largest ID in the form that was read: its text,
	// 7ZZZZZZZZZZZZ, for a text given to Parse, ParseBytes,
	// UnmarshalText, UnmarshalJSON, UnmarshalBinary or Scan; and
	// 9223372036854775807 (2^63-1) for an integer, decimal text or 8
	// bytes given to Scan, UnmarshalBinary, UnmarshalJSON, [FromInt64] or
	// [FromUint64].
	Max string
}

// Error names the largest ID, for example
// `ulidflake: value out of range (max 7ZZZZZZZZZZZZ)`.
func (e *RangeError) Error() string { return interop.RangeErrorText("ulidflake", e.Max) }

// Is reports whether target is [ErrOutOfRange].
func (e *RangeError) Is(target error) bool { return target == ErrOutOfRange }

// errTextRange and errIntRange are the errors for a text above the
// largest ID and for an integer outside 0 to Max.
var (
	errTextRange = &RangeError{Max: "7ZZZZZZZZZZZZ"}
	errIntRange  = &RangeError{Max: strconv.FormatInt(int64(Max), 10)}
)
