package ulid

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
	// [ULID.Scan] accepts.
	ErrInvalidLength = errors.New("ulid: invalid length")
	// ErrInvalidCharacter means a text form held a byte outside the
	// Crockford Base32 alphabet 0-9 A-Z without I L O U, in either case, or
	// a UUID form given to Scan a byte that is neither a hexadecimal digit
	// nor a hyphen in its place.
	ErrInvalidCharacter = errors.New("ulid: invalid character")
	// ErrOutOfRange means a value does not fit the format: a text form
	// above 2^128-1 (a first digit above 7; 7ZZZZZZZZZZZZZZZZZZZZZZZZZ is
	// the largest ULID), a timestamp above [MaxTimestamp] given to
	// [FromFields], [MinAt] or [MaxAt], or a time before 1970 or after
	// MaxTimestamp (in the year 10889) given to [MinAtTime], [MaxAtTime] or
	// [NewAt].
	ErrOutOfRange = errors.New("ulid: value out of range")
	// ErrOverflow is the old name of [ErrOutOfRange].
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

// errs hands this package's errors to the shared helpers.
var errs = interop.Errors{
	Length:   ErrInvalidLength,
	Range:    ErrOutOfRange,
	Char:     func(offset int, c byte) error { return &InvalidCharacterError{Offset: offset, Char: c} },
	ScanNull: ErrScanNull,
	ScanType: ErrScanType,
	JSON:     errJSON,
}

// InvalidCharacterError reports a byte outside the Crockford Base32
// alphabet and where it was. errors.Is(err, [ErrInvalidCharacter]) reports
// true for it.
type InvalidCharacterError struct {
	Offset int  // index of the byte in the input
	Char   byte // the offending byte
}

// Error describes the byte and its offset, for example
// `ulid: invalid character 'U' (0x55) at offset 25`.
func (e *InvalidCharacterError) Error() string {
	return interop.CharErrorText("ulid", e.Offset, e.Char)
}

// Is reports whether target is [ErrInvalidCharacter].
func (e *InvalidCharacterError) Is(target error) bool { return target == ErrInvalidCharacter }
