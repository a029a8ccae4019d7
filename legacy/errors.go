package legacy

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
	ErrInvalidLength = errors.New("legacy: invalid length")
	// ErrInvalidCharacter means a text form held a byte outside [0-9A-Va-v].
	ErrInvalidCharacter = errors.New("legacy: invalid character")
	// ErrOverflow means a text form denoted a value above 2^128-1 (its
	// first digit was above 7; 7VVVVVVVVVVVVVVVVVVVVVVVVV is the largest
	// ID), or a field given to FromFields did not fit its width.
	ErrOverflow = errors.New("legacy: overflow")
	// ErrInvalidTimestamp means a timestamp was above 2^44-1, or the clock
	// read before 2020 or more than 2^44-1 ms after it.
	ErrInvalidTimestamp = errors.New("legacy: invalid timestamp")
	// ErrCounterOverflow means the counter passed 2^28-1 within one
	// millisecond; the format's generator waits for the clock to move on,
	// which Generator.Generate does and GenerateCore reports with this
	// error.
	ErrCounterOverflow = errors.New("legacy: counter overflow")
)

// InvalidCharacterError reports a byte outside [0-9A-Va-v] and where it
// was. errors.Is(err, ErrInvalidCharacter) reports true for it.
type InvalidCharacterError struct {
	Offset int  // index of the byte in the input
	Char   byte // the offending byte
}

func (e *InvalidCharacterError) Error() string {
	return "legacy: invalid character " + strconv.QuoteRune(rune(e.Char)) +
		" (0x" + strconv.FormatUint(uint64(e.Char), 16) + ") at offset " + strconv.Itoa(e.Offset)
}

// Is reports whether target is ErrInvalidCharacter.
func (e *InvalidCharacterError) Is(target error) bool { return target == ErrInvalidCharacter }
