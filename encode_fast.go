package scru128

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// Base36 encoding on two uint64 halves, without math/big and without
// hardware division: only multiplications, mostly 64x64->128-bit ones.
//
// The 128-bit value V = hi*2^64 + lo splits into V = a*36^24 + b*36^12 + c,
// with a <= 15 and b, c < 36^12 < 2^63, but b and c are never computed as
// integers. Everything works on binary fractions instead:
//
//   - One multiplication of V by a 132-bit reciprocal of 36^24 gives
//     V/36^24 as a fixed-point number: a in the integer part, and
//     (b*36^12 + c)/36^24 in a 128-bit fraction.
//   - Multiplying that fraction by 36^12 moves b into the integer part and
//     leaves c/36^12 as a 64-bit fraction fc. The matching fraction fb of
//     b/36^12 is the fraction's high word less a small correction read off
//     fc.
//   - A fraction f of a 12-digit limb yields its digits two at a time: the
//     high word of f*36^2 is the next pair, the low word is the rest of the
//     fraction. A 1296-entry table turns a pair into two characters.
//
// Each fraction is rounded up by less than one unit of its limb's last
// digit, which keeps every pair exact; the comments in encode carry the error
// bounds, and codec_internal_test.go checks the constants and compares
// against math/big and a division-based reference.

const (
	alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"

	radix12 = 4738381338321616896 // 36^12
	radix6  = 2176782336          // 36^6
	radix4  = 1679616             // 36^4
	radix2  = 1296                // 36^2

	// radix24Hi and radix24Lo are the halves of 36^24.
	radix24Hi = 1217139329175911100
	radix24Lo = 3873377154515337216

	// invK2, invK1, invK0 are the words of ceil(2^256 / 36^24), which is
	// below 16*2^128.
	invK2 = 15
	invK1 = 2874363868423211843
	invK0 = 14465271563104310306
)

// digitPairs holds the two digits of every value below 36^2, packed as
// little-endian uint16s so a pair is one load and one store.
var digitPairs = func() (t [radix2]uint16) {
	for i := range radix2 {
		t[i] = uint16(alphabet[i/36]) | uint16(alphabet[i%36])<<8
	}
	return t
}()

// encode writes the 25-digit text of the ID hi:lo into dst. It is the one core
// behind AppendText, MarshalText and String, which pass the halves in
// registers rather than an ID in memory.
func encode(dst *[25]byte, hi, lo uint64) {
	// z = V*K / 2^128 with K = ceil(2^256/36^24) is V/36^24 in fixed point
	// with 128 fraction bits: a in the integer part, and a fraction just
	// above (b*36^12 + c)/36^24. The product terms below 2^128 (lo*invK0
	// and the low words of lo*invK1 and hi*invK0) are dropped, which loses
	// less than 3*2^128; rounding K up adds less than 2^128 (V < 2^128) and
	// the +5 makes up for the rest, so z/2^128 - V/36^24 lies in (2^-128,
	// 6*2^-128). That is below 36^-24 ~ 15.2*2^-128, so the integer part
	// is exactly a and the fraction overshoots by eps in (0, 6*2^-128).
	h1, _ := bits.Mul64(lo, invK1)
	h2, _ := bits.Mul64(hi, invK0)
	m1h, m1l := bits.Mul64(hi, invK1)
	n0h, n0l := bits.Mul64(lo, invK2)
	n1h, n1l := bits.Mul64(hi, invK2)
	z0, c1 := bits.Add64(h1+5, h2, 0) // h1 < invK1 < 2^62
	z0, c2 := bits.Add64(z0, m1l, 0)
	z0, c3 := bits.Add64(z0, n0l, 0)
	z1, c4 := bits.Add64(m1h+n0h+c1+c2, n1l, c3) // m1h < 2^62, n0h < 15
	a := n1h + c4

	// The fraction z1:z0 times 36^12 is b + c/36^12 + 36^12*eps, and
	// 36^12*eps < 2^-63.3 cannot carry into b because c/36^12 <=
	// 1 - 36^-12. Of its fraction fc keeps the top word, computed without
	// the lowest product word, and rounds up with +1, so fc/2^64 exceeds
	// c/36^12 by less than 2^-63.3 + 2^-64 < 36^-12, which is all the digit
	// steps below require. b itself is not needed.
	qh, _ := bits.Mul64(z0, radix12)
	fc := z1*radix12 + qh + 1

	// fb must exceed b*2^64/36^12 by less than 2^64/36^12 ~ 3.893 and not
	// fall short. From z/2^128 = a + b/36^12 + c/36^24 + eps,
	// b*2^64/36^12 = z1 + z0/2^64 - t - 2^64*eps with t = 2^64*c/36^24 in
	// [0, 3.893), so fb = z1 + 1 - k overshoots it by t - k plus a number
	// in (0, 1 + 2^-61). Any integer k in [t - 2.89, t] will do. The k
	// below is floor(3.75*fc/2^64 - theta) with a truncation theta < 2^-28.
	// It is never above t: k >= 1 needs c/36^12 > 0.26, and then t exceeds
	// 3.75*c/36^12 by far more than fc's error. It is less than 1.2 below
	// t, as t - 3.75*fc/2^64 < 0.15.
	k := (fc >> 34) * 15 >> 32
	fb := z1 + 1 - k

	dst[0] = alphabet[a&15] // a <= 15

	// Each limb's digits come from its fraction f, which exceeds x/36^12
	// by less than 36^-12: multiplying f by 36^2 moves the next digit pair
	// above the binary point, into the high word, and leaves the rest of
	// the fraction in the low word. The overshoot grows by 36^2 a step
	// but stays below the distance 36^-(digits left) to the next pair
	// boundary, so every pair is exact. g = f*36^6 mod 2^64 is the
	// fraction after six digits, so each limb runs as two independent
	// chains of three steps.
	gb, gc := fb*radix6, fc*radix6
	fc = putPair(dst[13:15], fc)
	fc = putPair(dst[15:17], fc)
	putPair(dst[17:19], fc)
	gc = putPair(dst[19:21], gc)
	gc = putPair(dst[21:23], gc)
	putPair(dst[23:25], gc)
	fb = putPair(dst[1:3], fb)
	fb = putPair(dst[3:5], fb)
	putPair(dst[5:7], fb)
	gb = putPair(dst[7:9], gb)
	gb = putPair(dst[9:11], gb)
	putPair(dst[11:13], gb)
}

// putPair writes the digit pair above the binary point of f*36^2, where f is
// a 64-bit binary fraction, and returns the fraction that remains. The pair
// is below 36^2 for every f, so the table index is always in range.
func putPair(dst []byte, f uint64) uint64 {
	d, f := bits.Mul64(f, radix2)
	binary.LittleEndian.PutUint16(dst, digitPairs[d])
	return f
}

// AppendText appends the 25-digit lower-case text of id to b and returns the
// extended slice. It never fails and does not allocate when b has room for
// 25 more bytes; the error is always nil and is there to satisfy
// encoding.TextAppender.
func (id ID) AppendText(b []byte) ([]byte, error) {
	n := len(b)
	if cap(b)-n < 25 {
		b = append(b, make([]byte, 25)...)
	}
	b = b[:n+25]
	// Encoding straight into b avoids copying from a temporary, which
	// would reload the digits right after storing them. The halves are
	// read from the receiver directly; id.Uint64s() would copy it first.
	encode((*[25]byte)(b[n:]), binary.BigEndian.Uint64(id[0:8]), binary.BigEndian.Uint64(id[8:16]))
	return b, nil
}

// MarshalText returns the 25-digit lower-case text of id. The error is
// always nil.
func (id ID) MarshalText() ([]byte, error) {
	b := make([]byte, 25)
	encode((*[25]byte)(b), binary.BigEndian.Uint64(id[0:8]), binary.BigEndian.Uint64(id[8:16]))
	return b, nil
}

// String returns the 25-digit lower-case text of id, such as
// 0372hg16csmsm50l8dikcvukc. It makes exactly one allocation.
func (id ID) String() string {
	b := make([]byte, 25)
	encode((*[25]byte)(b), binary.BigEndian.Uint64(id[0:8]), binary.BigEndian.Uint64(id[8:16]))
	// b is never written again or shared, so it can back the string
	// directly instead of being copied by string(b).
	return unsafe.String(&b[0], len(b))
}
