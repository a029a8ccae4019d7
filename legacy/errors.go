package legacy

import (
	"errors"

	"github.com/fastid/scru128/internal/interop"
)

// Errors returned by this package. Parsing errors that concern one byte are
// [*InvalidCharacterError] values, which match [ErrInvalidCharacter] under
// errors.Is.
var (
	// ErrInvalidLength means a text form was not 26 bytes long, a binary
	// form not 16 bytes long, or a Scan source none of the lengths
	// [ID.Scan] accepts.
	ErrInvalidLength = errors.New("legacy: invalid length")
	// ErrInvalidCharacter means a text form held a byte outside [0-9A-Va-v],
	// or a UUID form given to Scan a byte that is neither a hexadecimal
	// digit nor a hyphen in its place.
	ErrInvalidCharacter = errors.New("legacy: invalid character")
	// ErrOutOfRange means a value does not fit the format: a text form
	// above 2^128-1 (its first digit above 7; 7VVVVVVVVVVVVVVVVVVVVVVVVV is
	// the largest ID), a field given to [FromFields], [MinAt] or [MaxAt] that
	// does not fit its width, or a time before 2020 or more than
	// [MaxTimestamp] ms after it (in the year 2577) given to [MinAtTime],
	// [MaxAtTime] or [NewAt].
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

// errs hands this package's errors to the shared helpers.
var errs = interop.Errors{
	Length:   ErrInvalidLength,
	Range:    ErrOutOfRange,
	Char:     func(offset int, c byte) error { return &InvalidCharacterError{Offset: offset, Char: c} },
	ScanNull: ErrScanNull,
	ScanType: ErrScanType,
	JSON:     errJSON,
}

// InvalidCharacterError reports a byte outside [0-9A-Va-v] and where it
// was. errors.Is(err, [ErrInvalidCharacter]) reports true for it.
type InvalidCharacterError struct {
	Offset int  // index of the byte in the input
	Char   byte // the offending byte
}

// Error describes the byte and its offset, for example
// `legacy: invalid character 'W' (0x57) at offset 25`.
func (e *InvalidCharacterError) Error() string {
	return interop.CharErrorText("legacy", e.Offset, e.Char)
}

// Is reports whether target is [ErrInvalidCharacter].
func (e *InvalidCharacterError) Is(target error) bool { return target == ErrInvalidCharacter }
