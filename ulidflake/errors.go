package ulidflake

import (
	"errors"

	"github.com/fastid/scru128/internal/interop"
)

// Errors returned by this package. Parsing errors that concern one byte are
// [*InvalidCharacterError] values, which match [ErrInvalidCharacter] under
// errors.Is.
var (
	// ErrInvalidLength means a text form was not 13 bytes long, a binary
	// form not 8 bytes long, or decimal text given to Scan was empty.
	ErrInvalidLength = errors.New("ulidflake: invalid length")
	// ErrInvalidCharacter means a text form held a byte outside the
	// Crockford Base32 alphabet 0-9 A-Z without I L O U, in either case,
	// or decimal text given to Scan a byte other than 0-9.
	ErrInvalidCharacter = errors.New("ulidflake: invalid character")
	// ErrOutOfRange means a value does not fit the format: text above
	// 7ZZZZZZZZZZZZ (2^63-1), a negative integer (or 8 bytes with the sign
	// bit set, or decimal text above 2^63-1), a field passed to [FromFields],
	// [FromScalableFields], [MinAt] or [MaxAt] that does not fit its width, a time
	// before the default epoch or more than [MaxTimestamp] ms after it passed
	// to [MinAtTime], [MaxAtTime] or [NewAt], or a negative ID given to
	// [ID.AppendText], [ID.MarshalText] or Value.
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
// `ulidflake: invalid character 'U' (0x55) at offset 0`.
func (e *InvalidCharacterError) Error() string {
	return interop.CharErrorText("ulidflake", e.Offset, e.Char)
}

// Is reports whether target is [ErrInvalidCharacter].
func (e *InvalidCharacterError) Is(target error) bool { return target == ErrInvalidCharacter }
