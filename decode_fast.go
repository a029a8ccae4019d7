package scru128

import (
	"encoding/binary"
	"math/bits"

	"github.com/fastid/scru128/internal/base36"
	"github.com/fastid/scru128/internal/interop"
)

// Base36 decoding with SWAR (SIMD within a register): the 24 characters after
// the leading one are read as three little-endian 64-bit words, and each word
// is validated and turned into the value of its eight digits with a few
// dozen plain integer operations, no per-byte work or table lookups
// ([base36.Valid8], [base36.Value8]). The leading digit goes through a
// 256-entry table ([base36.Value]). Two 64x64->128-bit multiplications
// combine the parts; a carry out of 128 bits means the text is above
// f5lxx1zz5pnorynqglhzmsp33. All checks on the fast path fold into two
// predictable branches; on failure a plain scan ([base36.IndexInvalid])
// finds the first invalid byte, so the error and its offset come out
// exactly as a byte-by-byte parser would report them.

// text is what Parse and ParseBytes accept; the two instantiations compile
// separately, so neither converts its argument.
type text = base36.Text

// Parse parses the 25-digit Base36 text of an ID, ignoring case. It returns
// a [*LengthError] (matching [ErrInvalidLength]) if s is not 25 bytes long,
// an [*InvalidCharacterError] (matching [ErrInvalidCharacter]) naming the
// first character outside [0-9a-zA-Z], or a [*RangeError] (matching
// [ErrOutOfRange]) naming the largest text if the value is above 2^128-1.
// It does not allocate on success.
func Parse(s string) (ID, error) { return decode(s) }

// ParseBytes is [Parse] for a byte slice. It does not retain b.
func ParseBytes(b []byte) (ID, error) { return decode(b) }

// MustParse is [Parse] that panics on error, for constants in code and
// tests. The panic value is an error that quotes s and wraps the error of
// Parse, for example `scru128: MustParse("0372"): invalid length 4, want 25`.
func MustParse(s string) ID {
	id, err := Parse(s)
	if err != nil {
		panic(&interop.MustError{Pkg: "scru128", Input: s, Err: err})
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

// UnmarshalText parses the 25-digit text form into id, as Parse does. On
// error id is left unchanged.
func (id *ID) UnmarshalText(b []byte) error {
	v, err := decode(b)
	if err != nil {
		return err
	}
	*id = v
	return nil
}

func decode[T text](s T) (id ID, err error) {
	if len(s) != 25 {
		return ID{}, textLengthError(len(s))
	}
	// V = w1*36^16 + w2*36^8 + w3, where w1 holds the leading nine digits
	// and w2, w3 eight each.
	lead := uint64(base36.Value(s[0]))
	x1, x2, x3 := base36.Load64(s, 1), base36.Load64(s, 9), base36.Load64(s, 17)
	// Bytes at or above 0x80 are masked out here, see base36.Valid8.
	valid := base36.Valid8(x1) & base36.Valid8(x2) & base36.Valid8(x3) &^ (x1 | x2 | x3)
	w1 := lead*base36.Radix8 + base36.Value8(x1)
	// An invalid leading byte maps to base36.Invalid and lands w1 above
	// w1Max as well. Above w1Max, w1*36^16 alone is 2^128 or more.
	if valid&base36.High != base36.High || w1 > w1Max {
		return ID{}, decodeError(s)
	}
	hi, lo := bits.Mul64(w1, radix16Lo)
	hi += w1 * radix16Hi // no overflow, as w1*36^16 < 2^128
	// w2*36^8 + w3 < 36^16 < 2^83 cannot overflow; adding it to
	// w1*36^16 may carry out of 128 bits.
	xHi, xLo := bits.Mul64(base36.Value8(x2), base36.Radix8)
	xLo, carry := bits.Add64(xLo, base36.Value8(x3), 0)
	xHi += carry
	lo, carry = bits.Add64(lo, xLo, 0)
	hi, carry = bits.Add64(hi, xHi, carry)
	if carry != 0 {
		return ID{}, errTextRange
	}
	// Writing the named result in place avoids building the ID in a
	// temporary and copying it.
	binary.BigEndian.PutUint64(id[0:8], hi)
	binary.BigEndian.PutUint64(id[8:16], lo)
	return id, nil
}

const (
	radix16   = base36.Radix8 * base36.Radix8 // 36^16, below 2^83
	radix16Hi = radix16 >> 64
	radix16Lo = radix16 & (1<<64 - 1)
	// w1Max is the largest w1 with w1*36^16 < 2^128.
	w1Max = (1<<128 - 1) / radix16
)

// The bounds decode relies on, checked at compile time: each line converts
// to uint64 a number that turns negative, and so fails the build, if its
// bound stops holding (uint64, not uint, so that the check means the same
// on 32-bit platforms).
const (
	// w1 = lead*36^8 + value, nine digits, fits a word even for an invalid
	// lead of 0xff, and such a lead puts it above w1Max.
	_ = uint64(1<<64 - (base36.Invalid+1)*base36.Radix8)
	_ = uint64(base36.Invalid*base36.Radix8 - w1Max - 1)
	// The text is the leading digit and three words of eight.
	_ = uint64(25 - 1 - 3*8)
	_ = uint64(1 + 3*8 - 25)
	// w2*36^8 + w3 < 36^16 has a high word xHi <= radix16Hi, so adding a
	// carry to it cannot wrap.
	_ = uint64(1<<64 - 2 - radix16Hi)
)

// decodeError reports why decode rejected s, which has the right length: the
// first invalid byte if there is one, else a value above 2^128-1. It is kept
// out of line so that decode's fast path stays small.
//
//go:noinline
func decodeError[T text](s T) error {
	if i := base36.IndexInvalid(s); i >= 0 {
		c, r, size := interop.CharAt(s, i)
		return &InvalidCharacterError{Offset: i, Char: c, Rune: r, Size: size}
	}
	return errTextRange
}
