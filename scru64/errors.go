package scru64

import (
	"errors"
	"strconv"
	"strings"

	"github.com/fastid/scru128/internal/interop"
)

// Errors returned by this package. Parsing errors are typed values that
// say what was wrong and where, and match these sentinels under errors.Is:
// a [*LengthError] matches [ErrInvalidLength], an [*InvalidCharacterError]
// [ErrInvalidCharacter], a [*FieldError] or a [*RangeError] [ErrOutOfRange],
// and a [*NodeSpecError] [ErrInvalidNodeSpec].
var (
	// ErrInvalidLength means a text form was not 12 bytes long, a binary
	// form not 8 bytes long, or decimal text given to Scan was empty. The
	// error returned is a [*LengthError] with the length received and the
	// length expected.
	ErrInvalidLength = errors.New("scru64: invalid length")
	// ErrInvalidCharacter means a text form held a byte outside
	// [0-9a-zA-Z], or decimal text given to Scan a byte other than 0-9.
	// The error returned is an [*InvalidCharacterError] with the character
	// and its offset.
	ErrInvalidCharacter = errors.New("scru64: invalid character")
	// ErrOutOfRange means a value does not fit the format: an integer (or
	// decimal text, or 8 bytes) that is negative or above 36^12-1 ([Max],
	// zzzzzzzzzzzz; a [*RangeError] naming it), a field passed to [FromParts], [MinAt] or [MaxAt] that
	// does not fit its width (a [*FieldError]), a time before 1970 or after
	// [MaxTimestamp]'s tick (in the year 4261) passed to [MinAtTime] or
	// [MaxAtTime], or an ID above Max (made by converting a larger integer)
	// given to AppendText, MarshalText, MarshalJSON or Value.
	ErrOutOfRange = errors.New("scru64: value out of range")
	// ErrInvalidTimestamp means a generator was given a time before
	// 1970-01-01T04:14:18.880Z ([MinTimestamp]'s tick: the specification
	// reserves timestamp 0, and the IDs of the ticks up to MinTimestamp
	// are below 10^12, whose decimal text would read back as another ID) or
	// at or after [MaxTimestamp]'s tick (in the year 4261), which the
	// specification reserves, or that a counter overflow would have moved
	// the timestamp onto that reserved tick.
	ErrInvalidTimestamp = errors.New("scru64: invalid timestamp")
	// ErrClockRollback means the clock was further behind the last ID's
	// timestamp than the rollback allowance, and the caller asked for an
	// error instead of a reset. Besides a real rollback, a burst that
	// overflows the counter for many ticks in a row pushes the timestamp
	// ahead of the clock and ends the same way.
	ErrClockRollback = errors.New("scru64: clock rollback beyond the allowance")
	// ErrInvalidNodeSpec means a node spec string or a node ID and size pair
	// was rejected. The error returned is a [*NodeSpecError], which matches it
	// under errors.Is and says why.
	ErrInvalidNodeSpec = errors.New("scru64: invalid node spec")
	// ErrNoNodeSpec means a generator has no node spec: the zero
	// [Generator] (make one with [NewGenerator]), or the global generator when
	// the SCRU64_NODE_SPEC environment variable is unset or invalid and
	// GlobalGenerator.Initialize was not called.
	ErrNoNodeSpec = errors.New("scru64: the generator has no node spec")
	// ErrAlreadyInitialized means GlobalGenerator.Initialize was called
	// after the global generator had been configured.
	ErrAlreadyInitialized = errors.New("scru64: the global generator is already configured")
	// ErrAmbiguous means Scan was given 8 digits as a []byte, which read
	// as two different IDs, as the binary form and as decimal text, or
	// Value an ID whose decimal text, 12 digits, has the length of the
	// text form. The error returned is an [*AmbiguousError] with both.
	ErrAmbiguous = errors.New("scru64: input reads as two IDs")
	// ErrScanNull means SQL NULL was scanned into an ID; scan nullable
	// columns into a [NullID].
	ErrScanNull = errors.New("scru64: cannot scan NULL into ID (use NullID)")
	// ErrScanType means Scan was given a source type it does not accept.
	// The error returned wraps it and names the type, for example
	// "scru64: unsupported Scan source type float64".
	ErrScanType = errors.New("scru64: unsupported Scan source type")
)

// errJSON is wrapped by the error for JSON that is neither a string, nor a
// non-negative integer, nor null.
var errJSON = errors.New("scru64: an ID in JSON must be a 12-digit string, a non-negative integer or null")

// layout describes this format to the shared error texts.
var layout = interop.Layout{Name: "scru64", TextLen: 12, BinaryLen: 8}

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
	// Want is the length expected: 12, the text form, for Parse,
	// UnmarshalText, UnmarshalJSON and Scan (whose error text lists the
	// other forms it takes), and 8 for UnmarshalBinary.
	Want int
	form interop.Form // where the error was met, for the text
}

// Error describes the length received and the lengths accepted, for
// example `scru64: invalid length 4, want 12`.
func (e *LengthError) Error() string {
	return interop.LengthErrorText(&layout, e.Got, e.Want, e.form)
}

// Is reports whether target is [ErrInvalidLength].
func (e *LengthError) Is(target error) bool { return target == ErrInvalidLength }

// textLengthError is the error for a text form of n bytes. It is kept out
// of line so that the decoder's fast path stays small.
//
//go:noinline
func textLengthError(n int) error { return &LengthError{Got: n, Want: 12} }

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
// in hexadecimal (`scru64: invalid character '_' (0x5f) at offset 10`),
// a longer UTF-8 character quoted with its code point (`'é' (U+00E9)`),
// and a byte that is not UTF-8 in hexadecimal (`0xff (not UTF-8)`).
func (e *InvalidCharacterError) Error() string {
	return interop.CharErrorText("scru64", e.Offset, e.Char, e.Rune, e.Size)
}

// Is reports whether target is [ErrInvalidCharacter].
func (e *InvalidCharacterError) Is(target error) bool { return target == ErrInvalidCharacter }

// FieldError reports a field value that does not fit the field's width,
// given to [FromParts], [MinAt] or [MaxAt]. errors.Is(err,
// [ErrOutOfRange]) reports true for it.
type FieldError struct {
	// Field is the field's name in the specification: "timestamp" or
	// "node_ctr".
	Field string
	Value uint64 // the value given
	Max   uint64 // the largest value the field holds
}

// Error names the field, the value and the limit, for example
// `scru64: node_ctr 16777216 out of range (max 16777215)`.
func (e *FieldError) Error() string {
	return interop.FieldErrorText("scru64", e.Field, e.Value, e.Max)
}

// Is reports whether target is [ErrOutOfRange].
func (e *FieldError) Is(target error) bool { return target == ErrOutOfRange }

// NodeSpecError reports a rejected node spec: the input as given (a string
// for [ParseNodeSpec], the node ID and size otherwise) and what is wrong with
// it. errors.Is(err, [ErrInvalidNodeSpec]) reports true for it, and so does
// errors.Is or errors.As for the error in Err.
type NodeSpecError struct {
	Input  string // the node spec string, or "<nodeID>/<size>" for a pair
	Reason string // what is wrong, for example "node ID size 24 is not in 1..23"
	// Err is the error behind Reason, if there is one: the error of
	// [Parse] for a 12-character previous ID that is not an ID, whose
	// offsets count from the start of Input.
	Err error
}

// Error describes the input and the reason, for example
// `scru64: invalid node spec "0/24": node ID size 24 is not in 1..23`.
func (e *NodeSpecError) Error() string {
	reason := e.Reason
	if e.Err != nil {
		reason += ": " + strings.TrimPrefix(e.Err.Error(), "scru64: ")
	}
	return "scru64: invalid node spec " + strconv.Quote(e.Input) + ": " + reason +
		` (want <node ID>/<size> such as "42/8", "0xb00/12" or "0u2r85hm2pt3/16")`
}

// Is reports whether target is [ErrInvalidNodeSpec].
func (e *NodeSpecError) Is(target error) bool { return target == ErrInvalidNodeSpec }

// Unwrap returns Err.
func (e *NodeSpecError) Unwrap() error { return e.Err }

// AmbiguousError reports input that reads as two different IDs. Scan
// returns it for 8 digits given as a []byte, which are the binary form and
// decimal text, and takes neither; Value returns it, with Form "text", for
// an ID from 10^11 to 10^12-1, whose decimal text (which a text column
// holds after Value) has the 12 characters of the text form, as which Scan
// reads 12 characters. No [Generator] mints such an ID: their timestamps
// start at [MinTimestamp], where IDs are 10^12 or more. errors.Is(err,
// [ErrAmbiguous]) reports true for it, and errors.As gives both readings.
type AmbiguousError struct {
	// Form is the form besides decimal text that the input has the
	// length of: "text" (12 characters) or "binary" (8 bytes).
	Form string
	// AsForm is the ID the input is in Form, AsDecimal the ID it is as
	// decimal text.
	AsForm, AsDecimal ID
	value             bool // returned by Value
}

// Error quotes the input and names both readings, for example
//
//	scru64: "12345678" is valid in 2 forms, so read as none: as the binary form, ID qxl0nudotqgo (integer 3544952156018063160); as decimal digits, ID 00000007clzi (integer 12345678); scan into a []byte for UnmarshalBinary, or into an int64, to choose
func (e *AmbiguousError) Error() string {
	return interop.AmbiguousText(&layout, interop.Ambiguity{
		Binary: e.Form == "binary", Value: e.value,
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
	// Max is the largest ID as an integer, 4738381338321616895 (36^12-1,
	// [Max]), which an integer, decimal text or 8 bytes given to Scan,
	// UnmarshalBinary, UnmarshalJSON, [FromInt64] or [FromUint64] was
	// outside. Every 12-digit text is in range.
	Max string
}

// Error names the largest ID, for example
// `scru64: value out of range (max 4738381338321616895)`.
func (e *RangeError) Error() string { return interop.RangeErrorText("scru64", e.Max) }

// Is reports whether target is [ErrOutOfRange].
func (e *RangeError) Is(target error) bool { return target == ErrOutOfRange }

// errIntRange is the error for an integer outside 0 to Max.
var errIntRange = &RangeError{Max: strconv.FormatUint(uint64(Max), 10)}
