package scru128

import (
	"encoding/binary"
	"math/bits"
)

// Base36 decoding, the mirror of encode: bytes map to digit values through a
// 256-entry table (invalidDigit for anything outside [0-9a-zA-Z]), digits
// gather into four independent 6-digit lanes and a leading digit, the lanes
// pair into two 12-digit limbs, and the limbs combine with 64x64->128-bit
// multiplications. Validation costs one branch: the OR of all table values
// has the top bit set only if some byte was invalid. A carry out of 128 bits
// means the text is above f5lxx1zz5pnorynqglhzmsp33.

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
	_ = s[24]
	d := &digitValues
	lead := d[s[0]]
	// Pairs of digits, then lanes of three pairs.
	b10, b11, b12 := d[s[1]], d[s[2]], d[s[3]]
	b13, b14, b15 := d[s[4]], d[s[5]], d[s[6]]
	b00, b01, b02 := d[s[7]], d[s[8]], d[s[9]]
	b03, b04, b05 := d[s[10]], d[s[11]], d[s[12]]
	c10, c11, c12 := d[s[13]], d[s[14]], d[s[15]]
	c13, c14, c15 := d[s[16]], d[s[17]], d[s[18]]
	c00, c01, c02 := d[s[19]], d[s[20]], d[s[21]]
	c03, c04, c05 := d[s[22]], d[s[23]], d[s[24]]
	check := lead | b10 | b11 | b12 | b13 | b14 | b15 | b00 | b01 | b02 | b03 | b04 | b05 |
		c10 | c11 | c12 | c13 | c14 | c15 | c00 | c01 | c02 | c03 | c04 | c05
	if check&0x80 != 0 {
		return ID{}, invalidCharacter(s)
	}
	b1 := lane(b10, b11, b12, b13, b14, b15)
	b0 := lane(b00, b01, b02, b03, b04, b05)
	c1 := lane(c10, c11, c12, c13, c14, c15)
	c0 := lane(c00, c01, c02, c03, c04, c05)

	// b*36^12 + c stays below 36^24 < 2^125.
	hi, lo := bits.Mul64(b1*radix6+b0, radix12)
	lo, carry := bits.Add64(lo, c1*radix6+c0, 0)
	hi += carry
	// Add lead*36^24, which may pass 2^128.
	xHi, xLo := bits.Mul64(uint64(lead), radix24Lo)
	yHi, yLo := bits.Mul64(uint64(lead), radix24Hi)
	lo, carry = bits.Add64(lo, xLo, 0)
	hi, carry1 := bits.Add64(hi, xHi, carry)
	hi, carry2 := bits.Add64(hi, yLo, 0)
	if yHi|carry1|carry2 != 0 {
		return ID{}, ErrOutOfRange
	}
	// Writing the named result in place avoids building the ID in a
	// temporary and copying it, which stalls on store forwarding.
	binary.BigEndian.PutUint64(id[0:8], hi)
	binary.BigEndian.PutUint64(id[8:16], lo)
	return id, nil
}

// lane returns the value of six digits, most significant first.
func lane(d0, d1, d2, d3, d4, d5 byte) uint64 {
	p0 := uint64(d0)*36 + uint64(d1)
	p1 := uint64(d2)*36 + uint64(d3)
	p2 := uint64(d4)*36 + uint64(d5)
	return p0*radix4 + p1*radix2 + p2
}

// invalidCharacter finds the first byte outside the alphabet. It runs only
// when decode has already seen one.
func invalidCharacter[T text](s T) error {
	for i := range len(s) {
		if digitValues[s[i]] == invalidDigit {
			return &InvalidCharacterError{Offset: i, Char: s[i]}
		}
	}
	return ErrInvalidCharacter // not reached: decode saw an invalid byte
}
