package scru128

import (
	"errors"

	"github.com/fastid/scru128/internal/interop"
)

// Errors returned by this package. Parsing errors that concern one byte are
// [*InvalidCharacterError] values, which match [ErrInvalidCharacter] under
// errors.Is.
var (
	// ErrInvalidLength means a text form was not 25 bytes long, a binary
	// form not 16 bytes long, or a Scan source none of the lengths
	// [ID.Scan] accepts.
	ErrInvalidLength = errors.New("scru128: invalid length")
	// ErrInvalidCharacter means a text form held a byte outside [0-9a-zA-Z],
	// or a UUID form given to Scan a byte that is neither a hexadecimal
	// digit nor a hyphen in its place.
	ErrInvalidCharacter = errors.New("scru128: invalid character")
	// ErrOutOfRange means a value does not fit the format: a text form
	// above 2^128-1 (f5lxx1zz5pnorynqglhzmsp33), a field passed to
	// [FromFields] or a timestamp passed to [MinAt] or [MaxAt] that does not fit
	// its width, or a time before 1970 or after [MaxTimestamp] (in the year
	// 10889) passed to [MinAtTime], [MaxAtTime] or [NewAt].
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
// `scru128: invalid character '_' (0x5f) at offset 10`.
func (e *InvalidCharacterError) Error() string {
	return interop.CharErrorText("scru128", e.Offset, e.Char)
}

// Is reports whether target is [ErrInvalidCharacter].
func (e *InvalidCharacterError) Is(target error) bool { return target == ErrInvalidCharacter }
