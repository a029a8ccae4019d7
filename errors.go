package scru128

import (
	"errors"
	"strconv"
)

// Errors returned by this package. Parsing errors that concern one byte are
// *InvalidCharacterError values, which match ErrInvalidCharacter under
// errors.Is.
var (
	// ErrInvalidLength means a text form was not 25 bytes long, or a binary
	// form not 16 bytes long.
	ErrInvalidLength = errors.New("scru128: invalid length")
	// ErrInvalidCharacter means a text form held a byte outside [0-9a-zA-Z].
	ErrInvalidCharacter = errors.New("scru128: invalid character")
	// ErrOutOfRange means a text form denoted a value above 2^128-1
	// (f5lxx1zz5pnorynqglhzmsp33), or a field passed to FromFields did not
	// fit its width.
	ErrOutOfRange = errors.New("scru128: value out of range")
	// ErrInvalidTimestamp means a timestamp or rollback allowance was 0 or
	// above 2^48-1 where a generator needs one inside that range, or that the
	// timestamp could not advance past 2^48-1 on a counter overflow.
	ErrInvalidTimestamp = errors.New("scru128: invalid timestamp")
	// ErrClockRollback means the clock moved back further than the rollback
	// allowance and the caller asked for an error instead of a reset.
	ErrClockRollback = errors.New("scru128: clock rollback beyond the allowance")
)

// InvalidCharacterError reports a byte outside the Base36 alphabet and where
// it was. errors.Is(err, ErrInvalidCharacter) reports true for it.
type InvalidCharacterError struct {
	Offset int  // index of the byte in the input
	Char   byte // the offending byte
}

// Error describes the byte and its offset, for example
// `scru128: invalid character '_' (0x5f) at offset 10`.
func (e *InvalidCharacterError) Error() string {
	return "scru128: invalid character " + strconv.QuoteRune(rune(e.Char)) +
		" (0x" + strconv.FormatUint(uint64(e.Char), 16) + ") at offset " + strconv.Itoa(e.Offset)
}

// Is reports whether target is ErrInvalidCharacter.
func (e *InvalidCharacterError) Is(target error) bool { return target == ErrInvalidCharacter }
