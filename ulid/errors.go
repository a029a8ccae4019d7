package ulid

import (
	"errors"
	"strconv"
)

// Errors returned by this package. Parsing errors that concern one byte are
// *InvalidCharacterError values, which match ErrInvalidCharacter under
// errors.Is.
var (
	// ErrInvalidLength means a text form was not 26 bytes long, or a binary
	// form not 16 bytes long.
	ErrInvalidLength = errors.New("ulid: invalid length")
	// ErrInvalidCharacter means a text form held a byte outside the
	// Crockford Base32 alphabet 0-9 A-Z without I L O U, in either case.
	ErrInvalidCharacter = errors.New("ulid: invalid character")
	// ErrOverflow means a text form denoted a value above 2^128-1: its
	// first digit was above 7 (7ZZZZZZZZZZZZZZZZZZZZZZZZZ is the largest
	// ULID).
	ErrOverflow = errors.New("ulid: value overflows 128 bits")
	// ErrInvalidTimestamp means a timestamp was above 2^48-1, or 0 or
	// before 1970 where a generator needs the current time.
	ErrInvalidTimestamp = errors.New("ulid: invalid timestamp")
	// ErrMonotonicOverflow means a Generator could not add one to the
	// 80-bit random part within the current millisecond; an ID can be
	// minted again once the clock moves to the next millisecond.
	ErrMonotonicOverflow = errors.New("ulid: monotonic random part overflow")
	// ErrClockRollback means the clock moved back further than the
	// rollback allowance and the caller asked for an error instead of a
	// reset.
	ErrClockRollback = errors.New("ulid: clock rollback beyond the allowance")
)

// InvalidCharacterError reports a byte outside the Crockford Base32
// alphabet and where it was. errors.Is(err, ErrInvalidCharacter) reports
// true for it.
type InvalidCharacterError struct {
	Offset int  // index of the byte in the input
	Char   byte // the offending byte
}

func (e *InvalidCharacterError) Error() string {
	return "ulid: invalid character " + strconv.QuoteRune(rune(e.Char)) +
		" (0x" + strconv.FormatUint(uint64(e.Char), 16) + ") at offset " + strconv.Itoa(e.Offset)
}

// Is reports whether target is ErrInvalidCharacter.
func (e *InvalidCharacterError) Is(target error) bool { return target == ErrInvalidCharacter }
