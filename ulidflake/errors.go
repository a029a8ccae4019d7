package ulidflake

import (
	"errors"
	"strconv"
)

// Errors returned by this package. Parsing errors that concern one byte are
// *InvalidCharacterError values, which match ErrInvalidCharacter under
// errors.Is.
var (
	// ErrInvalidLength means a text form was not 13 bytes long.
	ErrInvalidLength = errors.New("ulidflake: invalid length")
	// ErrInvalidCharacter means a text form held a byte outside the
	// Crockford Base32 alphabet 0-9 A-Z without I L O U, in either case.
	ErrInvalidCharacter = errors.New("ulidflake: invalid character")
	// ErrOverflow means a value above 7ZZZZZZZZZZZZ (2^63-1) or a field
	// beyond its width, or that a Generator's random part would overflow
	// within the current millisecond; in the last case an ID can be minted
	// again at the next millisecond (GenerateOrWait waits for it).
	ErrOverflow = errors.New("ulidflake: overflow")
	// ErrInvalidTimestamp means a timestamp was above 2^43-1, or the clock
	// read before the generator's epoch or more than 2^43-1 ms after it.
	ErrInvalidTimestamp = errors.New("ulidflake: invalid timestamp")
	// ErrClockRollback means the clock read an earlier millisecond than the
	// last ID's.
	ErrClockRollback = errors.New("ulidflake: clock moved backwards")
	// ErrInvalidOption means an option given to NewGenerator was out of
	// range.
	ErrInvalidOption = errors.New("ulidflake: invalid option")
)

// InvalidCharacterError reports a byte outside the Crockford Base32
// alphabet and where it was. errors.Is(err, ErrInvalidCharacter) reports
// true for it.
type InvalidCharacterError struct {
	Offset int  // index of the byte in the input
	Char   byte // the offending byte
}

func (e *InvalidCharacterError) Error() string {
	return "ulidflake: invalid character " + strconv.QuoteRune(rune(e.Char)) +
		" (0x" + strconv.FormatUint(uint64(e.Char), 16) + ") at offset " + strconv.Itoa(e.Offset)
}

// Is reports whether target is ErrInvalidCharacter.
func (e *InvalidCharacterError) Is(target error) bool { return target == ErrInvalidCharacter }
