package scru128

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/fastid/scru128/internal/base36"
)

// Base36 encoding on two uint64 halves, without math/big and without
// hardware division: only multiplications, mostly 64x64->128-bit ones.
//
// The 128-bit value V = hi*2^64 + lo splits into V = a*36^24 + b*36^12 + c,
// with a <= 15 and limbs b, c < 36^12, but b and c are never computed as
// integers. Everything works on binary fractions instead:
//
//   - One multiplication of V by a 132-bit reciprocal of 36^24 gives
//     V/36^24 as a fixed-point number: a in the integer part, and
//     (b*36^12 + c)/36^24 in a 128-bit fraction.
//   - Multiplying that fraction by 36^12 moves b into the integer part and
//     leaves c/36^12 as a 64-bit fraction fc. The matching fraction fb of
//     b/36^12 is the fraction's high word less a small correction read off
//     fc.
//   - Each limb's fraction yields its digits two at a time through
//     [base36.PutSixDigits], which is exact for a fraction that exceeds
//     the limb's value by less than one unit of its last digit and never
//     falls short of it.
//
// The comments in encode carry the error bounds, the constants below check
// at compile time the bounds those rely on, and codec_internal_test.go
// compares encode with math/big and with a division-based reference.

const (
	radix24 = base36.Radix12 * base36.Radix12 // 36^24, below 2^125

	// invK = ceil(2^256 / 36^24), the reciprocal encode multiplies by, is
	// below 16*2^128; invK2:invK1:invK0 are its 64-bit words.
	invK  = (1<<256 + radix24 - 1) / radix24
	invK2 = invK >> 128
	invK1 = invK >> 64 & (1<<64 - 1)
	invK0 = invK & (1<<64 - 1)
)

// The bounds encode relies on, checked at compile time: each line converts
// to uint64 a number that turns negative, and so fails the build, if its
// bound stops holding (uint64, not uint, so that the check means the same
// on 32-bit platforms).
const (
	// The text has 25 digits: the leading digit a = floor(V/36^24) is at
	// most 15 for every V < 2^128, and two limbs of 12 follow.
	_ = uint64(15 - (1<<128-1)/radix24)
	_ = uint64(25 - 1 - 2*base36.LimbDigits)
	_ = uint64(1 + 2*base36.LimbDigits - 25)
	// invK's words: invK2 <= 15, so the high word n0h of lo*invK2 is below
	// 15; invK1 < 2^62, so neither h1+5 nor m1h+n0h+c1+c2 can wrap.
	_ = uint64(15 - invK2)
	_ = uint64(1<<62 - 1 - invK1)
	// z overshoots V/36^24 by less than 6*2^-128, which must stay below
	// 36^-24 (about 15.2*2^-128) for a to be exact: 2^128 >= 6*36^24.
	_ = uint64(1<<128/radix24 - 6)
	// fc overshoots c/36^12 by less than 36^12*6*2^-128 + 2^-64. The first
	// term is below 2*2^-64; with 2^64/36^12 >= 3 (checked in base36) the
	// sum stays below one unit of c's last digit.
	_ = uint64(1 - 6*base36.Radix12>>64)
	// k's factor 15/4 is 2^64/36^12 (about 3.89) rounded down to a quarter,
	// which keeps k at or below t and less than 1.25 + 2^-28 under it.
	_ = uint64(4<<64/base36.Radix12 - 15)
	_ = uint64(15 - 4<<64/base36.Radix12)
)

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
	qh, _ := bits.Mul64(z0, base36.Radix12)
	fc := z1*base36.Radix12 + qh + 1

	// fb must exceed b*2^64/36^12 by less than 2^64/36^12 ~ 3.893 and not
	// fall short. From z/2^128 = a + b/36^12 + c/36^24 + eps,
	// b*2^64/36^12 = z1 + z0/2^64 - t - 2^64*eps with t = 2^64*c/36^24 in
	// [0, 3.893), so fb = z1 + 1 - k overshoots it by t - k plus a number
	// in (0, 1 + 2^-61). Any integer k in [t - 2.89, t] will do. The k
	// below is floor(3.75*fc/2^64 - theta) with a truncation theta < 2^-28.
	// It is never above t: k >= 1 needs c/36^12 > 0.26, and then t exceeds
	// 3.75*c/36^12 by far more than fc's error. It is less than 1.2 below
	// t, as t - 3.75*fc/2^64 < 0.15 (the bounds on 15/4 above allow 0.25).
	k := (fc >> 34) * 15 >> 32
	fb := z1 + 1 - k

	dst[0] = base36.Alphabet[a&15] // a <= 15

	// Each limb is two halves of six digits, with fractions f and f*36^6
	// mod 2^64, as base36.PutSixDigits explains.
	base36.PutSixDigits((*[6]byte)(dst[13:19]), fc)
	base36.PutSixDigits((*[6]byte)(dst[19:25]), fc*base36.Radix6)
	base36.PutSixDigits((*[6]byte)(dst[1:7]), fb)
	base36.PutSixDigits((*[6]byte)(dst[7:13]), fb*base36.Radix6)
}

// AppendText appends the 25-digit lower-case text of id to b and returns the
// extended slice. It never fails and does not allocate when b has room for
// 25 more bytes; the error is always nil and is there to satisfy
// encoding.TextAppender.
func (id ID) AppendText(b []byte) ([]byte, error) {
	n := len(b)
	if cap(b)-n < 25 {
		b = slices.Grow(b, 25)
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
