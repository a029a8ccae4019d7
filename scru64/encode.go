package scru64

import (
	"encoding/binary"
	"math/bits"
	"strconv"
	"unsafe"
)

// Base36 encoding without division: one 64x64->128-bit multiplication turns
// the ID into a binary fraction, and each further one moves the next two
// digits above the binary point.
//
// An ID x is below 36^12, so x/36^12 is a fraction in [0, 1) whose 12 Base36
// digits are the text of x. f = floor(x*K/2^64) + 1 with K = ceil(2^128/36^12)
// holds it in 64 bits: f/2^64 exceeds x/36^12 by more than 0 and less than
// (1 + x*(K - 2^128/36^12)/2^64)/2^64 < 1.26*2^-64, far less than 36^-12
// (about 3.89*2^-64). Multiplying such an f by 36^2 puts the leading digit
// pair in the high word and the rest of the fraction in the low word; the
// overshoot grows by 36^2 a step but stays below 36^-(digits left), the
// distance to the next pair boundary, so every pair is exact (the same
// argument as the SCRU128 encoder's). g = f*36^6 mod 2^64 is the fraction
// after six digits, so the two halves of the text run as two independent
// chains of three steps. f < 2^64 - 2 for every ID, so the +1 cannot wrap.
//
// A value above Max (possible only by converting a larger integer to ID)
// would wrap around in this arithmetic and yield the text of another ID
// (Max+1 would be 000000000000), so the callers refuse it first: see
// outOfRangeText.

const (
	alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"

	radix6 = 2176782336 // 36^6
	radix4 = 1679616    // 36^4
	radix2 = 1296       // 36^2

	// ceil(2^128 / 36^12) = reciprocalHi*2^64 + reciprocalLo.
	reciprocalHi = 3
	reciprocalLo = 16473820432022717740
)

// digitPairs holds the two digits of every value below 36^2, packed as
// little-endian uint16s so a pair is one load.
var digitPairs = func() (t [radix2]uint16) {
	for i := range radix2 {
		t[i] = uint16(alphabet[i/36]) | uint16(alphabet[i%36])<<8
	}
	return t
}()

// encode writes the 12-digit text of x into dst. It is the one core behind
// AppendText, MarshalText and String.
func encode(dst *[12]byte, x uint64) {
	hi, _ := bits.Mul64(x, reciprocalLo)
	f := x*reciprocalHi + hi + 1
	g := f * radix6
	p0, f := bits.Mul64(f, radix2)
	p3, g := bits.Mul64(g, radix2)
	p1, f := bits.Mul64(f, radix2)
	p4, g := bits.Mul64(g, radix2)
	p2, _ := bits.Mul64(f, radix2)
	p5, _ := bits.Mul64(g, radix2)
	// Two stores instead of six: stores are the bottleneck here.
	binary.LittleEndian.PutUint64(dst[0:8], uint64(digitPairs[p0])|uint64(digitPairs[p1])<<16|
		uint64(digitPairs[p2])<<32|uint64(digitPairs[p3])<<48)
	binary.LittleEndian.PutUint32(dst[8:12], uint32(digitPairs[p4])|uint32(digitPairs[p5])<<16)
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
		b = append(b, make([]byte, 12)...)
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
