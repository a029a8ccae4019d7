package scru128

import (
	"encoding/binary"
	"math/bits"
)

// Base36 encoding on two uint64 halves, without math/big and without
// hardware division.
//
// The 128-bit value V splits into three limbs, V = a*36^24 + b*36^12 + c,
// with a < 36 and b, c < 36^12 < 2^63. Two facts make the split cheap:
//
//   - V div 36^12 has a 64-bit high half below 4 and a low half that one
//     128-by-64-bit division yields. That division is by a constant, so it
//     uses the Möller–Granlund reciprocal (two multiplications and two
//     corrections) instead of the ~20-cycle DIV instruction.
//   - 36^12 = 2^24 * 3^24, so the quotient Q (under 2^66) divides by 36^12
//     as (Q >> 24) / 3^24, which fits in 64 bits and compiles to a multiply.
//
// Each 12-digit limb then splits into two 6-digit lanes (x / 36^6, a
// multiply) and each lane into three 2-digit pairs looked up in a 1296-entry
// table. The four lanes do not depend on each other, so the CPU runs them in
// parallel.

const (
	alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"

	radix12 = 4738381338321616896 // 36^12
	radix6  = 2176782336          // 36^6
	radix4  = 1679616             // 36^4
	radix2  = 1296                // 36^2
	pow3x24 = 282429536481        // 3^24; 36^12 = 2^24 * 3^24

	// divisor is 36^12 shifted left once so its top bit is set, as the
	// reciprocal division requires; reciprocal is floor((2^128-1)/divisor)
	// - 2^64.
	divisor    = 2 * radix12
	reciprocal = 17460282252866134677

	// radix24Hi and radix24Lo are the halves of 36^24.
	radix24Hi = 1217139329175911100
	radix24Lo = 3873377154515337216
)

// digitPairs holds the two digits of every value below 36^2, packed as
// little-endian uint16s so a pair is one load and one store. Its length is a
// power of two so that indexing with p&(len-1) needs no bounds check.
var digitPairs = func() (t [2048]uint16) {
	for i := range radix2 {
		t[i] = uint16(alphabet[i/36]) | uint16(alphabet[i%36])<<8
	}
	return t
}()

// divRadix12 divides u1*2^64 + u0 by 36^12 for u1 < 36^12, returning the
// quotient and the remainder (Möller and Granlund, "Improved division by
// invariant integers", algorithm 4, on the normalized divisor).
func divRadix12(u1, u0 uint64) (q, r uint64) {
	u1 = u1<<1 | u0>>63 // scale numerator and divisor alike
	u0 <<= 1
	q1, q0 := bits.Mul64(reciprocal, u1)
	q0, carry := bits.Add64(q0, u0, 0)
	q1 += u1 + 1 + carry
	r = u0 - q1*divisor
	if r > q0 {
		q1--
		r += divisor
	}
	if r >= divisor {
		q1++
		r -= divisor
	}
	return q1, r >> 1
}

// encode writes the 25-digit text of id into dst. It is the one core behind
// AppendText, MarshalText and String.
func encode(dst *[25]byte, id ID) {
	hi, lo := id.Uint64s()
	qHi := hi / radix12 // below 4
	qLo, c := divRadix12(hi-qHi*radix12, lo)
	a := (qHi<<40 | qLo>>24) / pow3x24 // (Q >> 24) / 3^24 = Q / 36^12
	b := qLo - a*radix12               // Q mod 36^12, which fits in 64 bits

	// Four 6-digit lanes, each three pairs.
	l0, l1 := uint32(b/radix6), uint32(b%radix6)
	l2, l3 := uint32(c/radix6), uint32(c%radix6)
	p00, r0 := l0/radix4, l0%radix4
	p10, r1 := l1/radix4, l1%radix4
	p20, r2 := l2/radix4, l2%radix4
	p30, r3 := l3/radix4, l3%radix4
	p01, p02 := r0/radix2, r0%radix2
	p11, p12 := r1/radix2, r1%radix2
	p21, p22 := r2/radix2, r2%radix2
	p31, p32 := r3/radix2, r3%radix2

	const mask = uint32(len(digitPairs) - 1)
	dst[0] = alphabet[a%36]
	putPair(dst[1:3], digitPairs[p00&mask])
	putPair(dst[3:5], digitPairs[p01&mask])
	putPair(dst[5:7], digitPairs[p02&mask])
	putPair(dst[7:9], digitPairs[p10&mask])
	putPair(dst[9:11], digitPairs[p11&mask])
	putPair(dst[11:13], digitPairs[p12&mask])
	putPair(dst[13:15], digitPairs[p20&mask])
	putPair(dst[15:17], digitPairs[p21&mask])
	putPair(dst[17:19], digitPairs[p22&mask])
	putPair(dst[19:21], digitPairs[p30&mask])
	putPair(dst[21:23], digitPairs[p31&mask])
	putPair(dst[23:25], digitPairs[p32&mask])
}

func putPair(dst []byte, pair uint16) { binary.LittleEndian.PutUint16(dst, pair) }

// AppendText appends the 25-digit lower-case text of id to b and returns the
// extended slice. It never fails and does not allocate when b has room for
// 25 more bytes; the error is always nil and is there to satisfy
// encoding.TextAppender.
func (id ID) AppendText(b []byte) ([]byte, error) {
	var buf [25]byte
	encode(&buf, id)
	return append(b, buf[:]...), nil
}

// MarshalText returns the 25-digit lower-case text of id. The error is
// always nil.
func (id ID) MarshalText() ([]byte, error) {
	b := make([]byte, 25)
	encode((*[25]byte)(b), id)
	return b, nil
}

// String returns the 25-digit lower-case text of id, such as
// 0372hg16csmsm50l8dikcvukc. It makes exactly one allocation.
func (id ID) String() string {
	var buf [25]byte
	encode(&buf, id)
	return string(buf[:])
}
