package scru64

import (
	"github.com/fastid/scru128/internal/base36"
	"github.com/fastid/scru128/internal/interop"
)

// Base36 decoding with SWAR (SIMD within a register): the 12 characters are
// read as one little-endian 64-bit word of eight and one of four, padded in
// front with four '0' digits, which change neither validity nor value. Each
// word is validated and turned into the value of its digits with a few
// dozen plain integer operations, no per-byte work or table lookups
// ([base36.Valid8], [base36.Value8]). Twelve Base36 digits never exceed
// 36^12-1, the largest ID, so there is no range check: a text of the right
// length is either an ID or has a bad byte. All checks fold into one
// predictable branch; on failure a plain scan ([base36.IndexInvalid]) finds
// the first invalid byte, so the error and its offset come out exactly as a
// byte-by-byte parser would report them.

// text is what Parse and ParseBytes accept; the two instantiations compile
// separately, so neither converts its argument.
type text = base36.Text

// Parse parses the 12-digit Base36 text of an ID, ignoring case. It returns
// a [*LengthError] (matching [ErrInvalidLength]) if s is not 12 bytes long,
// or an [*InvalidCharacterError] (matching [ErrInvalidCharacter]) naming the
// first character outside [0-9a-zA-Z]. Every 12-digit text is in range:
// zzzzzzzzzzzz is [Max]. It does not allocate on success.
func Parse(s string) (ID, error) { return decode(s) }

// ParseBytes is [Parse] for a byte slice. It does not retain b.
func ParseBytes(b []byte) (ID, error) { return decode(b) }

// MustParse is [Parse] that panics on error, for constants in code and
// tests. The panic value is an error that quotes s and wraps the error of
// Parse, for example `scru64: MustParse("0u37"): invalid length 4, want 12`.
func MustParse(s string) ID {
	id, err := Parse(s)
	if err != nil {
		panic(&interop.MustError{Pkg: "scru64", Input: s, Err: err})
	}
	return id
}

// Validate reports whether s is the text of an ID: it returns what [Parse]
// returns for s, without the ID, so nil or the same error. It does not
// allocate on success.
func Validate(s string) error {
	_, err := decode(s)
	return err
}

// UnmarshalText parses the 12-digit text form into id, as Parse does. On
// error id is left unchanged.
func (id *ID) UnmarshalText(b []byte) error {
	v, err := decode(b)
	if err != nil {
		return err
	}
	*id = v
	return nil
}

func decode[T text](s T) (ID, error) {
	if len(s) != 12 {
		return 0, textLengthError(len(s))
	}
	head := base36.Load64(s, 0)
	// "0000" followed by the last four characters.
	tail := '0'*0x01010101 | base36.Load32(s, 8)<<32
	// Bytes at or above 0x80 are masked out here, see base36.Valid8.
	valid := base36.Valid8(head) & base36.Valid8(tail) &^ (head | tail)
	if valid&base36.High != base36.High {
		return 0, decodeError(s)
	}
	return ID(base36.Value8(head)*base36.Radix4 + base36.Value8(tail)), nil
}

// decodeError reports the first byte of s outside [0-9a-zA-Z]. It is kept
// out of line so that decode's fast path stays small.
//
//go:noinline
func decodeError[T text](s T) error {
	if i := base36.IndexInvalid(s); i >= 0 {
		c, r, size := interop.CharAt(s, i)
		return &InvalidCharacterError{Offset: i, Char: c, Rune: r, Size: size}
	}
	return ErrInvalidCharacter // not reached: decode's checks are exact, and fuzz tests hold them to it
}
