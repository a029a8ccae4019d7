package scru128

import (
	"encoding/binary"
	"math/bits"
)

// Base36 decoding with SWAR (SIMD within a register): the 24 characters after
// the leading one are read as three little-endian 64-bit words, and each word
// is validated and turned into the value of its eight digits with a few
// dozen plain integer operations, no per-byte work or table lookups. The
// leading digit goes through a 256-entry table. Two 64x64->128-bit
// multiplications combine the parts; a carry out of 128 bits means the text
// is above f5lxx1zz5pnorynqglhzmsp33. All checks on the fast path fold into
// two predictable branches; on failure a plain scan finds the first invalid
// byte, so the error and its offset come out exactly as a byte-by-byte
// parser would report them.

// invalidDigit marks bytes outside [0-9a-zA-Z] in digitValues.
const invalidDigit = 0xff

var digitValues = func() (t [256]byte) {
	for i := range t {
		t[i] = invalidDigit
	}
	for i := range len(alphabet) {
		t[alphabet[i]] = byte(i)
		if c := alphabet[i]; 'a' <= c && c <= 'z' {
			t[c-'a'+'A'] = byte(i)
		}
	}
	return t
}()

// text is what Parse and ParseBytes accept; the two instantiations compile
// separately, so neither converts its argument.
type text interface{ ~string | ~[]byte }

// Parse parses the 25-digit Base36 text of an ID, ignoring case. It returns
// ErrInvalidLength if s is not 25 bytes long, an *InvalidCharacterError
// (matching ErrInvalidCharacter) naming the first byte outside [0-9a-zA-Z],
// or ErrOutOfRange if the value is above 2^128-1. It does not allocate on
// success.
func Parse(s string) (ID, error) { return decode(s) }

// ParseBytes is Parse for a byte slice. It does not retain b.
func ParseBytes(b []byte) (ID, error) { return decode(b) }

// MustParse is Parse that panics on error, for constants in code and tests.
func MustParse(s string) ID {
	id, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return id
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
		return ID{}, ErrInvalidLength
	}
	// V = w1*36^16 + w2*36^8 + w3, where w1 holds the leading nine digits
	// and w2, w3 eight each.
	lead := uint64(digitValues[s[0]])
	x1, x2, x3 := load64(s, 1), load64(s, 9), load64(s, 17)
	// Bytes at or above 0x80 are masked out here, see valid8.
	valid := valid8(x1) & valid8(x2) & valid8(x3) &^ (x1 | x2 | x3)
	w1 := lead*radix8 + value8(x1)
	// An invalid leading byte maps to invalidDigit and lands w1 above
	// w1Max as well. Above w1Max, w1*36^16 alone is 2^128 or more.
	if valid&high != high || w1 > w1Max {
		return ID{}, decodeError(s)
	}
	hi, lo := bits.Mul64(w1, radix16Lo)
	hi += w1 * radix16Hi // no overflow, as w1*36^16 < 2^128
	// w2*36^8 + w3 < 36^16 < 2^83 cannot overflow; adding it to
	// w1*36^16 may carry out of 128 bits.
	xHi, xLo := bits.Mul64(value8(x2), radix8)
	xLo, carry := bits.Add64(xLo, value8(x3), 0)
	xHi += carry
	lo, carry = bits.Add64(lo, xLo, 0)
	hi, carry = bits.Add64(hi, xHi, carry)
	if carry != 0 {
		return ID{}, ErrOutOfRange
	}
	// Writing the named result in place avoids building the ID in a
	// temporary and copying it.
	binary.BigEndian.PutUint64(id[0:8], hi)
	binary.BigEndian.PutUint64(id[8:16], lo)
	return id, nil
}

const (
	radix8    = 2821109907456        // 36^8
	radix16Hi = 431439               // 36^16 >> 64
	radix16Lo = 16293529225644736512 // 36^16 mod 2^64
	w1Max     = 42756232765793       // floor((2^128-1) / 36^16)
)

// load64 returns s[i:i+8] as a little-endian word; the compiler merges the
// byte loads into one, for strings as well as byte slices.
func load64[T text](s T, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// The SWAR helpers below take eight characters packed little-endian in a
// word, so the first character is in the low byte. ones and high repeat 0x01
// and 0x80 in every byte.
const (
	ones = 0x0101010101010101
	high = 0x8080808080808080
)

// valid8 sets the top bit of each byte of x that is in [0-9a-zA-Z], provided
// the byte is below 0x80; the caller clears the top bit of the others with
// &^ x. The other bits of the result are noise.
//
// For a byte c < 0x80, c + (0x80-k) has its top bit set iff c >= k, and no
// lane carries into the next. With l = c|0x20 (which maps 'A'-'Z' onto 'a'-'z'
// and leaves digits alone), the four tests c >= '0', c > '9', l >= 'a' and
// l > 'z' hold on nested sets of bytes (each implies the one before), so
// their exclusive or holds exactly on the digits and the letters. A lane with
// c >= 0x80 may carry into the next lane, but it fails the &^ x test itself,
// so the word is rejected anyway.
func valid8(x uint64) uint64 {
	lower := x | 0x20*ones
	return (x + (0x80-'0')*ones) ^ (x + (0x80-'9'-1)*ones) ^
		(lower + (0x80-'a')*ones) ^ (lower + (0x80-'z'-1)*ones)
}

// value8 returns the value of the eight valid Base36 digits in x.
func value8(x uint64) uint64 {
	// Digit values: c - '0' for digits, (c|0x20) - 'a' + 10 for letters,
	// which are the valid bytes with bit 6 set. No lane borrows.
	v := (x | 0x20*ones) - '0'*ones - (x>>6&ones)*('a'-10-'0')
	// Pairs in 16-bit lanes, quads in 32-bit lanes, then the octet: each
	// step scales the more significant (lower) half of a lane by the power
	// of 36 its partner spans. The masks come before the multiplications
	// because a pair (up to 1295) does not fit in a byte, nor a quad in 16
	// bits.
	v = (v&0x00ff00ff00ff00ff)*36 + (v >> 8 & 0x00ff00ff00ff00ff)
	v = (v&0x0000ffff0000ffff)*radix2 + (v >> 16 & 0x0000ffff0000ffff)
	return uint64(uint32(v))*radix4 + v>>32
}

// decodeError reports why decode rejected s, which has the right length: the
// first invalid byte if there is one, else a value above 2^128-1. It is kept
// out of line so that decode's fast path stays small.
//
//go:noinline
func decodeError[T text](s T) error {
	for i := range len(s) {
		if digitValues[s[i]] == invalidDigit {
			return &InvalidCharacterError{Offset: i, Char: s[i]}
		}
	}
	return ErrOutOfRange
}
