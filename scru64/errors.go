package scru64

import (
	"errors"
	"strconv"

	"github.com/fastid/scru128/internal/interop"
)

// Errors returned by this package. Parsing errors that concern one byte are
// [*InvalidCharacterError] values, which match [ErrInvalidCharacter] under
// errors.Is; node spec errors are [*NodeSpecError] values, which match
// [ErrInvalidNodeSpec].
var (
	// ErrInvalidLength means a text form was not 12 bytes long, a binary
	// form not 8 bytes long, or decimal text given to Scan was empty.
	ErrInvalidLength = errors.New("scru64: invalid length")
	// ErrInvalidCharacter means a text form held a byte outside
	// [0-9a-zA-Z], or decimal text given to Scan a byte other than 0-9.
	ErrInvalidCharacter = errors.New("scru64: invalid character")
	// ErrOutOfRange means a value does not fit the format: an integer (or
	// decimal text, or 8 bytes) that is negative or above 36^12-1 ([Max],
	// zzzzzzzzzzzz), a field passed to [FromParts], [MinAt] or [MaxAt] that does
	// not fit its width, a time before 1970 or after [MaxTimestamp]'s tick
	// (in the year 4261) passed to [MinAtTime] or [MaxAtTime], or an ID above
	// Max (made by converting a larger integer) given to AppendText,
	// MarshalText, MarshalJSON or Value.
	ErrOutOfRange = errors.New("scru64: value out of range")
	// ErrInvalidTimestamp means a generator was given a time before
	// 1970-01-01T00:00:00.256Z or at or after [MaxTimestamp]'s tick (in the
	// year 4261), whose IDs the specification reserves, or that a counter
	// overflow would have moved the timestamp onto that reserved tick.
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

// errs hands this package's errors to the shared helpers.
var errs = interop.Errors{
	Length:   ErrInvalidLength,
	Range:    ErrOutOfRange,
	Char:     func(offset int, c byte) error { return &InvalidCharacterError{Offset: offset, Char: c} },
	ScanNull: ErrScanNull,
	ScanType: ErrScanType,
	JSON:     errJSON,
}

// InvalidCharacterError reports a byte outside the Base36 alphabet and where
// it was. errors.Is(err, [ErrInvalidCharacter]) reports true for it.
type InvalidCharacterError struct {
	Offset int  // index of the byte in the input
	Char   byte // the offending byte
}

// Error describes the byte and its offset, for example
// `scru64: invalid character '_' (0x5f) at offset 10`.
func (e *InvalidCharacterError) Error() string {
	return interop.CharErrorText("scru64", e.Offset, e.Char)
}

// Is reports whether target is [ErrInvalidCharacter].
func (e *InvalidCharacterError) Is(target error) bool { return target == ErrInvalidCharacter }

// NodeSpecError reports a rejected node spec: the input as given (a string
// for [ParseNodeSpec], the node ID and size otherwise) and what is wrong with
// it. errors.Is(err, [ErrInvalidNodeSpec]) reports true for it.
type NodeSpecError struct {
	Input  string // the node spec string, or "<nodeID>/<size>" for a pair
	Reason string // what is wrong, for example "node ID size 24 is not in 1..23"
}

// Error describes the input and the reason, for example
// `scru64: invalid node spec "0/24": node ID size 24 is not in 1..23`.
func (e *NodeSpecError) Error() string {
	return "scru64: invalid node spec " + strconv.Quote(e.Input) + ": " + e.Reason +
		` (want <node ID>/<size> such as "42/8", "0xb00/12" or "0u2r85hm2pt3/16")`
}

// Is reports whether target is [ErrInvalidNodeSpec].
func (e *NodeSpecError) Is(target error) bool { return target == ErrInvalidNodeSpec }
