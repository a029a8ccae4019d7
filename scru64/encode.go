package scru64

import (
	"math/bits"
	"slices"
	"strconv"
	"unsafe"

	"github.com/fastid/scru128/internal/base36"
)

// Base36 encoding without division: one 64x64->128-bit multiplication turns
// the ID into a binary fraction, and each further one moves the next two
// digits above the binary point.
//
// An ID x is below 36^12, so it is one Base36 limb, and x/36^12 is a
// fraction in [0, 1) whose 12 digits are the text of x. f = floor(x*K/2^64)
// + 1 with K = ceil(2^128/36^12) holds it in 64 bits: f/2^64 exceeds x/36^12
// by more than 0 and less than (1 + x*(K - 2^128/36^12)/2^64)/2^64 <
// 1.26*2^-64, far less than 36^-12 (about 3.89*2^-64): f is a fraction of
// x as [base36.PutSixDigits] needs it to write every digit pair exactly.
// f < 2^64 - 2 for every ID, so the +1 cannot wrap.
//
// A value above Max (possible only by converting a larger integer to ID)
// would wrap around in this arithmetic and yield the text of another ID
// (Max+1 would be 000000000000), so the callers refuse it first: see
// outOfRangeText.

// reciprocal is K = ceil(2^128 / 36^12) = reciprocalHi*2^64 + reciprocalLo.
const (
	reciprocal   = (1<<128 + base36.Radix12 - 1) / base36.Radix12
	reciprocalHi = reciprocal >> 64
	reciprocalLo = reciprocal & (1<<64 - 1)
)

// The bounds encode relies on, checked at compile time: each line converts
// to uint64 a number that turns negative, and so fails the build, if its
// bound stops holding (uint64, not uint, so that the check means the same
// on 32-bit platforms). Max is 36^12-1, so an ID is exactly one limb of 12
// digits. The rest is base36's: a limb is below 2^64, so f overshoots
// x/36^12 by less than 2 units of 2^-64, and one unit of the last digit,
// 2^64/36^12, is at least 3 of them.
const (
	_ = uint64(Max - (base36.Radix12 - 1))
	_ = uint64(base36.Radix12 - 1 - Max)
	_ = uint64(12 - base36.LimbDigits)
	_ = uint64(base36.LimbDigits - 12)
)

// encode writes the 12-digit text of x into dst. It is the one core behind
// AppendText, MarshalText and String.
func encode(dst *[12]byte, x uint64) {
	hi, _ := bits.Mul64(x, reciprocalLo)
	f := x*reciprocalHi + hi + 1
	// The two halves of the limb, from f and f*36^6 mod 2^64: two
	// independent chains of three steps.
	base36.PutSixDigits((*[6]byte)(dst[0:6]), f)
	base36.PutSixDigits((*[6]byte)(dst[6:12]), f*base36.Radix6)
}

// AppendText appends the 12-digit lower-case text of id to b and returns the
// extended slice. It does not allocate when b has room for 12 more bytes.
// The error is [ErrOutOfRange] for an ID above Max (made by converting a
// larger integer to ID), and b is then returned unchanged.
func (id ID) AppendText(b []byte) ([]byte, error) {
	if id > Max {
		return b, ErrOutOfRange
	}
	n := len(b)
	if cap(b)-n < 12 {
		b = slices.Grow(b, 12)
	}
	b = b[:n+12]
	encode((*[12]byte)(b[n:]), uint64(id))
	return b, nil
}

// MarshalText returns the 12-digit lower-case text of id, or [ErrOutOfRange]
// for an ID above Max.
func (id ID) MarshalText() ([]byte, error) {
	if id > Max {
		return nil, ErrOutOfRange
	}
	b := make([]byte, 12)
	encode((*[12]byte)(b), uint64(id))
	return b, nil
}

// String returns the 12-digit lower-case text of id, such as 0u375nxqh5cq.
// It makes exactly one allocation. For an ID above Max, which no function
// of this package returns, it returns "!OUTOFRANGE(" followed by the
// decimal value and ")", which shows the number and which Parse rejects.
func (id ID) String() string {
	if id > Max {
		return outOfRangeText(uint64(id))
	}
	b := make([]byte, 12)
	encode((*[12]byte)(b), uint64(id))
	// b is never written again or shared, so it can back the string
	// directly instead of being copied by string(b).
	return unsafe.String(&b[0], len(b))
}

// outOfRangeText is String's text for a value above Max. Printing the
// wrapped digits instead would show another, valid ID.
func outOfRangeText(v uint64) string {
	return "!OUTOFRANGE(" + strconv.FormatUint(v, 10) + ")"
}
