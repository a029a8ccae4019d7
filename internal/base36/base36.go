// Package base36 is the Base36 codec shared by the SCRU128 package (25
// digits, 128 bits) and the SCRU64 package (12 digits, 64 bits): the digits
// 0-9a-z, lower case when encoding, either case when decoding, most
// significant digit first.
//
// Both formats work on limbs of [LimbDigits] digits, below [Radix12] =
// 36^12 < 2^64, so that every step works on one machine word and nothing
// divides. The package holds what the formats share:
//
//   - Encoding: the digits of a number come out of a 64-bit binary fraction
//     of it, two per multiplication, through a table of the 36^2 digit
//     pairs ([PutSixDigits]). How a format gets the fractions of its limbs
//     from its value is its own business.
//   - Decoding: eight characters at a time as one little-endian word,
//     validated and valued with SWAR arithmetic ([Load64], [Valid8],
//     [Value8]), one character through a table ([Value]), and the exact
//     scan that names the first bad byte once a fast check has failed
//     ([IndexInvalid]).
//
// A fraction of an n-digit number y < 36^n is a 64-bit word f with
// floor(f*36^n / 2^64) = y: f/2^64 lies in [y/36^n, (y+1)/36^n), above the
// exact y/36^n by less than one unit of y's last digit, and never below.
//
// Nothing here allocates, and every function on a hot path is small enough
// for the compiler to inline into its caller.
package base36

import (
	"encoding/binary"
	"math/bits"
)

// Alphabet holds the digits in order of value, as the encoders write them.
const Alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"

// Powers of 36. Go's constant arithmetic is exact, so each is the product
// written beside it; the bounds the code needs of them are checked at
// compile time below.
const (
	Radix2     = 36 * 36         // 36^2 = 1296, the digit pairs
	Radix4     = Radix2 * Radix2 // 36^4
	Radix6     = Radix4 * Radix2 // 36^6, the values of half a limb
	Radix8     = Radix4 * Radix4 // 36^8, the values of eight characters
	Radix12    = Radix6 * Radix6 // 36^12, the values of a limb
	LimbDigits = 12              // digits of a limb
)

// Compile-time checks of the bounds the code relies on: each converts to
// uint64 a number that turns negative, and so fails the build, if its bound
// stops holding (uint64, not uint: 2^64-1 overflows a 32-bit uint). The
// tables need none: their types ([Radix2]uint16 and [256]byte) fit every
// index the code can form.
const (
	// The alphabet has one digit for each value below 36.
	_ = uint64(len(Alphabet) - 36)
	_ = uint64(36 - len(Alphabet))
	// Value8 sums digit pairs in 16-bit lanes and quads in 32-bit lanes.
	_ = uint64(1<<16 - Radix2)
	_ = uint64(1<<32 - Radix4)
	// A limb fits one word, and one unit of its last digit, 2^64/36^12
	// units of 2^-64 (about 3.89), is at least 3 of them: the encoders'
	// error bounds count on it to make their fractions.
	_ = uint64(1<<64 - 1 - Radix12)
	_ = uint64(1<<64/Radix12 - 3)
)

// pairs holds the two digits of every value below 36^2, packed as
// little-endian uint16s so that a pair is one load and one store.
var pairs = func() (t [Radix2]uint16) {
	for i := range t {
		t[i] = uint16(Alphabet[i/36]) | uint16(Alphabet[i%36])<<8
	}
	return t
}()

// PutSixDigits writes into dst the six digits of the number y < 36^6 of
// which f is a fraction, floor(f*36^6 / 2^64) = y.
//
// Multiplying f by 36^2 moves the leading digit pair above the binary
// point: the high word of the product is floor(y/36^4), and the low word,
// the bits of f*36^2 below the point, is a fraction of the four digits
// that remain. So three multiplications write the six digits, and there is
// no error to track, as each keeps the property exactly. A limb x < 36^12
// with a fraction f is two halves of six digits: f is also a fraction of
// the upper half, and f*36^6 mod 2^64 is one of the lower half. A limb's
// digits thus come from two independent chains of three steps.
//
// Every pair index is below 36^2, whatever f is. PutSixDigits inlines,
// which a function writing a whole limb would not.
func PutSixDigits(dst *[6]byte, f uint64) {
	p0, f := bits.Mul64(f, Radix2)
	p1, f := bits.Mul64(f, Radix2)
	p2, _ := bits.Mul64(f, Radix2)
	binary.LittleEndian.PutUint16(dst[0:], pairs[p0])
	binary.LittleEndian.PutUint16(dst[2:], pairs[p1])
	binary.LittleEndian.PutUint16(dst[4:], pairs[p2])
}

// Invalid is the value [Value] gives a byte that is not a digit. Its top bit
// is set, which no digit value (0-35) has.
const Invalid = 0xff

// values maps every byte to its digit value, ignoring case, or to Invalid.
var values = func() (t [256]byte) {
	for i := range t {
		t[i] = Invalid
	}
	for i := range len(Alphabet) {
		c := Alphabet[i]
		t[c] = byte(i)
		if 'a' <= c && c <= 'z' {
			t[c-'a'+'A'] = byte(i)
		}
	}
	return t
}()

// Value returns the value of the digit c, in either case, or [Invalid].
func Value(c byte) byte { return values[c] }

// Text is what the decoders accept. A function generic over it compiles
// once for strings and once for byte slices, so neither converts its
// argument.
type Text interface{ ~string | ~[]byte }

// IndexInvalid returns the offset of the first byte of s that is not a
// digit, or -1 if there is none. It is the slow path that names the byte
// once a fast check has failed, so a decoder's error and offset are exactly
// those of a byte-by-byte parser.
func IndexInvalid[T Text](s T) int {
	for i := range len(s) {
		if values[s[i]] == Invalid {
			return i
		}
	}
	return -1
}

// Load64 returns s[i:i+8] as a little-endian word, so the first character is
// in the low byte; the compiler merges the byte loads into one, for strings
// as well as byte slices.
func Load64[T Text](s T, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// Load32 returns s[i:i+4] as a little-endian word in the low half.
func Load32[T Text](s T, i int) uint64 {
	_ = s[i+3]
	return uint64(uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24)
}

// The SWAR (SIMD within a register) helpers below take eight characters
// packed little-endian in a word, as [Load64] returns them.
const (
	ones = 0x0101010101010101 // 0x01 in every byte
	// High has the top bit of every byte set: the bits of [Valid8]'s
	// result that carry its verdict.
	High = 0x8080808080808080
)

// Valid8 sets the top bit of each byte of x that is in [0-9a-zA-Z], provided
// the byte is below 0x80; the other bits of the result are noise. A caller
// clears the top bit of the bytes at or above 0x80 with &^ x, and may do so
// once for several words: all 16 bytes of x and y are digits iff
// Valid8(x)&Valid8(y)&^(x|y)&High == High.
//
// For a byte c < 0x80, c + (0x80-k) has its top bit set iff c >= k, and no
// lane carries into the next. With l = c|0x20 (which maps 'A'-'Z' onto 'a'-'z'
// and leaves digits alone), the four tests c >= '0', c > '9', l >= 'a' and
// l > 'z' hold on nested sets of bytes (each implies the one before), so
// their exclusive or holds exactly on the digits and the letters. A lane with
// c >= 0x80 may carry into the next lane, but it fails the &^ x test itself,
// so the word is rejected anyway.
func Valid8(x uint64) uint64 {
	lower := x | 0x20*ones
	return (x + (0x80-'0')*ones) ^ (x + (0x80-'9'-1)*ones) ^
		(lower + (0x80-'a')*ones) ^ (lower + (0x80-'z'-1)*ones)
}

// Value8 returns the value of the eight digits in x, which [Valid8] has
// accepted: below 36^8.
func Value8(x uint64) uint64 {
	// Digit values: c - '0' for digits, (c|0x20) - 'a' + 10 for letters,
	// which are the valid bytes with bit 6 set. No lane borrows.
	v := (x | 0x20*ones) - '0'*ones - (x>>6&ones)*('a'-10-'0')
	// Pairs in 16-bit lanes, quads in 32-bit lanes, then the octet: each
	// step scales the more significant (lower) half of a lane by the power
	// of 36 its partner spans. The masks come before the multiplications
	// because a pair (up to 1295) does not fit in a byte, nor a quad in 16
	// bits.
	v = (v&0x00ff00ff00ff00ff)*36 + (v >> 8 & 0x00ff00ff00ff00ff)
	v = (v&0x0000ffff0000ffff)*Radix2 + (v >> 16 & 0x0000ffff0000ffff)
	return uint64(uint32(v))*Radix4 + v>>32
}
