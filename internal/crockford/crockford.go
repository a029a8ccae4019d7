// Package crockford is the Base32 codec shared by the ULID, Ulid-Flake and
// legacy SCRU128 packages: a 128-bit value as 26 digits and a 64-bit value
// as 13 digits, five bits per digit, most significant digit first.
//
// The digit alphabet is a parameter, because the legacy SCRU128 form uses the
// same bit layout with the digits [0-9A-V]; [Crockford] is the alphabet of ULID
// and Ulid-Flake. Decoding is strict: a byte outside the alphabet (in either
// case) is reported, never mapped to a look-alike digit, so the Crockford
// letters I, L, O and U are invalid. Neither direction allocates.
//
// Both directions work on a fixed number of digits whose leading digit
// carries the spare bits: 26 digits hold 130 bits, 13 digits 65, so the
// callers check the leading digit (lead) against their own bound.
package crockford

import "encoding/binary"

// Alphabet is Crockford's Base32 alphabet, in digit order.
const Alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// Invalid is the value Encoding.Values gives a byte outside the alphabet.
// Its top bit is set, which no digit value (0-31) has, so OR-ing the values
// of a whole string and testing the result detects any invalid byte.
const Invalid = 0xff

// Encoding is one 32-digit alphabet prepared for encoding and decoding.
type Encoding struct {
	// pairs holds the two digits of every 10-bit value, packed as a
	// little-endian uint16, so an encoder writes two digits with one load
	// and one store.
	pairs [1024]uint16
	// Values maps a byte to its digit value, ignoring case, or to [Invalid].
	Values [256]byte
	// digits is the alphabet itself.
	digits [32]byte
}

// Crockford is the [Encoding] of ULID and Ulid-Flake.
var Crockford = NewEncoding(Alphabet)

// NewEncoding prepares alphabet, which must be 32 distinct upper-case ASCII
// letters and digits in digit order; encoders write these bytes, and
// decoders accept them and their lower-case forms. It panics on any other
// alphabet, as a programming error.
func NewEncoding(alphabet string) *Encoding {
	if len(alphabet) != 32 {
		panic("crockford: alphabet must have 32 digits")
	}
	e := new(Encoding)
	for i := range e.Values {
		e.Values[i] = Invalid
	}
	for i := range 32 {
		c := alphabet[i]
		if !('0' <= c && c <= '9' || 'A' <= c && c <= 'Z') || e.Values[c] != Invalid {
			panic("crockford: alphabet must be 32 distinct characters from [0-9A-Z]")
		}
		e.digits[i] = c
		e.Values[c] = byte(i)
		if 'A' <= c && c <= 'Z' {
			e.Values[c+'a'-'A'] = byte(i)
		}
	}
	for i := range e.pairs {
		e.pairs[i] = uint16(e.digits[i>>5]) | uint16(e.digits[i&31])<<8
	}
	return e
}

// Digit returns the digit for a value below 32.
func (e *Encoding) Digit(v byte) byte { return e.digits[v&31] }

// Encode128 writes the 26 digits of the 128-bit value hi:lo into dst. The
// leading digit holds the top 3 bits, so it is 0-7.
//
// Digit k (k = 0..25) is bits 125-5k and up of the value. Taken two at a
// time, digit pair j is (V >> (120 - 10j)) & 1023: six pairs lie in hi,
// one straddles the halves (V >> 60) and six lie in lo.
func Encode128(e *Encoding, dst *[26]byte, hi, lo uint64) {
	p := &e.pairs
	binary.LittleEndian.PutUint16(dst[0:], p[hi>>56]) // hi>>56 < 256
	binary.LittleEndian.PutUint16(dst[2:], p[hi>>46&1023])
	binary.LittleEndian.PutUint16(dst[4:], p[hi>>36&1023])
	binary.LittleEndian.PutUint16(dst[6:], p[hi>>26&1023])
	binary.LittleEndian.PutUint16(dst[8:], p[hi>>16&1023])
	binary.LittleEndian.PutUint16(dst[10:], p[hi>>6&1023])
	binary.LittleEndian.PutUint16(dst[12:], p[(hi<<4|lo>>60)&1023])
	binary.LittleEndian.PutUint16(dst[14:], p[lo>>50&1023])
	binary.LittleEndian.PutUint16(dst[16:], p[lo>>40&1023])
	binary.LittleEndian.PutUint16(dst[18:], p[lo>>30&1023])
	binary.LittleEndian.PutUint16(dst[20:], p[lo>>20&1023])
	binary.LittleEndian.PutUint16(dst[22:], p[lo>>10&1023])
	binary.LittleEndian.PutUint16(dst[24:], p[lo&1023])
}

// Encode64 writes the 13 digits of v into dst. The leading digit holds the
// top 4 bits, so it is 0-15 (0-7 for a value below 2^63).
func Encode64(e *Encoding, dst *[13]byte, v uint64) {
	p := &e.pairs
	dst[0] = e.digits[v>>60]
	binary.LittleEndian.PutUint16(dst[1:], p[v>>50&1023])
	binary.LittleEndian.PutUint16(dst[3:], p[v>>40&1023])
	binary.LittleEndian.PutUint16(dst[5:], p[v>>30&1023])
	binary.LittleEndian.PutUint16(dst[7:], p[v>>20&1023])
	binary.LittleEndian.PutUint16(dst[9:], p[v>>10&1023])
	binary.LittleEndian.PutUint16(dst[11:], p[v&1023])
}

// Decode128 decodes 26 digits; s must be exactly 26 bytes long. It returns
// the low 128 bits of the 130-bit number as hi:lo and the value of the
// leading digit (0-31) as lead, so the number fits in 128 bits iff lead <=
// 7. If any byte is outside the alphabet, lead has its top bit set (it is
// [Invalid] or above) and hi:lo are meaningless; [IndexInvalid] finds the byte.
// One comparison, lead > 7, thus sends every failure to the slow path.
//
// The decoders take a string only: a generic version compiles to a shape
// that passes a dictionary and does not inline helpers, which cost a
// tenth of the time; callers view a []byte as a string without copying.
// The digits are spelled out rather than looped over. Four independent
// chains each shift in six digits, and two flags collect the OR of the
// digit values, whose top bit is set iff one is invalid; so no register
// spills and the table loads overlap. Digits 1-6 and 7-12 (30 bits each)
// make the rest of hi with the top bit of digit 13; its low 4 bits,
// digits 14-19 and 20-25 make lo. An invalid digit (0xff) spills into its
// neighbours' bits, which does not matter because the value is then
// discarded.
func Decode128(e *Encoding, s string) (hi, lo uint64, lead byte) {
	_ = s[25]
	v := &e.Values
	da, db, dc, dd := v[s[1]], v[s[7]], v[s[14]], v[s[20]]
	badAB, badCD := da|db, dc|dd
	a, b, c, d := uint64(da), uint64(db), uint64(dc), uint64(dd)
	da, db, dc, dd = v[s[2]], v[s[8]], v[s[15]], v[s[21]]
	badAB, badCD = badAB|da|db, badCD|dc|dd
	a, b, c, d = a<<5|uint64(da), b<<5|uint64(db), c<<5|uint64(dc), d<<5|uint64(dd)
	da, db, dc, dd = v[s[3]], v[s[9]], v[s[16]], v[s[22]]
	badAB, badCD = badAB|da|db, badCD|dc|dd
	a, b, c, d = a<<5|uint64(da), b<<5|uint64(db), c<<5|uint64(dc), d<<5|uint64(dd)
	da, db, dc, dd = v[s[4]], v[s[10]], v[s[17]], v[s[23]]
	badAB, badCD = badAB|da|db, badCD|dc|dd
	a, b, c, d = a<<5|uint64(da), b<<5|uint64(db), c<<5|uint64(dc), d<<5|uint64(dd)
	da, db, dc, dd = v[s[5]], v[s[11]], v[s[18]], v[s[24]]
	badAB, badCD = badAB|da|db, badCD|dc|dd
	a, b, c, d = a<<5|uint64(da), b<<5|uint64(db), c<<5|uint64(dc), d<<5|uint64(dd)
	da, db, dc, dd = v[s[6]], v[s[12]], v[s[19]], v[s[25]]
	badAB, badCD = badAB|da|db, badCD|dc|dd
	a, b, c, d = a<<5|uint64(da), b<<5|uint64(db), c<<5|uint64(dc), d<<5|uint64(dd)
	lead = v[s[0]]
	mid := v[s[13]]
	hi = uint64(lead)<<61 | a<<31 | b<<1 | uint64(mid)>>4
	lo = uint64(mid)<<60 | c<<30 | d
	return hi, lo, lead | (badAB|badCD|mid)&0x80
}

// Decode64 decodes 13 digits; s must be exactly 13 bytes long. It returns
// the value of the leading digit (lead, 0-31) and the low 64 bits of the
// 65-bit number; the number is below 2^63 iff lead <= 7. ok is false if any
// byte is outside the alphabet. It is spelled out as [Decode128] is.
func Decode64(e *Encoding, s string) (value uint64, lead byte, ok bool) {
	_ = s[12]
	v := &e.Values
	lead = v[s[0]]
	a1, a2, a3, a4, a5, a6 := v[s[1]], v[s[2]], v[s[3]], v[s[4]], v[s[5]], v[s[6]]
	b1, b2, b3, b4, b5, b6 := v[s[7]], v[s[8]], v[s[9]], v[s[10]], v[s[11]], v[s[12]]
	if (lead|a1|a2|a3|a4|a5|a6|b1|b2|b3|b4|b5|b6)&0x80 != 0 {
		return 0, lead, false
	}
	a := uint64(a1)<<25 | uint64(a2)<<20 | uint64(a3)<<15 | uint64(a4)<<10 | uint64(a5)<<5 | uint64(a6)
	b := uint64(b1)<<25 | uint64(b2)<<20 | uint64(b3)<<15 | uint64(b4)<<10 | uint64(b5)<<5 | uint64(b6)
	return uint64(lead)<<60 | a<<30 | b, lead, true
}

// IndexInvalid returns the offset of the first byte of s outside the
// alphabet, or -1 if there is none. It is the slow path that names the
// byte once a decoder has failed.
func IndexInvalid(e *Encoding, s string) int {
	for i := range len(s) {
		if e.Values[s[i]] == Invalid {
			return i
		}
	}
	return -1
}
