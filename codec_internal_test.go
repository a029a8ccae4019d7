package scru128

import (
	"errors"
	"flag"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fastid/scru128/internal/base36"
	"github.com/fastid/scru128/internal/naive"
)

// Run with e.g. -codec.iters=20000000 for a long differential run.
var codecIters = flag.Int("codec.iters", 200000, "iterations of the random codec differential tests")

// iterations returns how many random values a differential test checks:
// n times -codec.iters, a twentieth of that with -short. The short run is
// for machines that emulate another architecture (CI's qemu steps), where
// the full count takes minutes; the edge tests and the fuzz targets cover
// the boundaries either way.
func iterations(n int) int {
	if testing.Short() {
		return max(1, n*(*codecIters)/20)
	}
	return n * (*codecIters)
}

func bigPow(base, exp int64) *big.Int {
	return new(big.Int).Exp(big.NewInt(base), big.NewInt(exp), nil)
}

var two64 = new(big.Int).Lsh(big.NewInt(1), 64)

// The halves of 36^24, for building test values around it.
const (
	radix24Hi = radix24 >> 64
	radix24Lo = radix24 & (1<<64 - 1)
)

// TestCodecConstants checks the defining property of the two constants
// that are quotients, invK = ceil(2^256 / 36^24) and w1Max = floor((2^128-1)
// / 36^16), by multiplying back with math/big. The compiler evaluates their
// expressions exactly, and the bounds built on them are compile-time
// assertions; what it cannot know is that each expression is the rounding
// its comments promise.
func TestCodecConstants(t *testing.T) {
	r16, r24 := bigPow(36, 16), bigPow(36, 24)
	two256 := new(big.Int).Lsh(big.NewInt(1), 256)
	k := new(big.Int).Lsh(big.NewInt(invK2), 128)
	k.Add(k, new(big.Int).Lsh(new(big.Int).SetUint64(invK1), 64))
	k.Add(k, new(big.Int).SetUint64(invK0))
	// invK*36^24 >= 2^256 > (invK-1)*36^24.
	above := new(big.Int).Mul(k, r24)
	below := new(big.Int).Sub(above, r24)
	if above.Cmp(two256) < 0 || below.Cmp(two256) >= 0 {
		t.Errorf("invK = %s is not ceil(2^256 / 36^24)", k)
	}
	// w1Max*36^16 <= 2^128-1 < (w1Max+1)*36^16.
	max128 := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 128), big.NewInt(1))
	w := new(big.Int).SetUint64(w1Max)
	if new(big.Int).Mul(w, r16).Cmp(max128) > 0 || new(big.Int).Mul(w.Add(w, big.NewInt(1)), r16).Cmp(max128) <= 0 {
		t.Errorf("w1Max = %d is not floor((2^128-1) / 36^16)", uint64(w1Max))
	}
}

// refEncode is a plain reference for encode: 25 divisions of the 128-bit
// value by 36.
func refEncode(hi, lo uint64) string {
	var out [25]byte
	for i := 24; i >= 0; i-- {
		var r uint64
		hi, r = bits.Div64(0, hi, 36)
		lo, r = bits.Div64(r, lo, 36)
		out[i] = base36.Alphabet[r]
	}
	return string(out[:])
}

func encodeString(hi, lo uint64) string {
	var buf [25]byte
	encode(&buf, hi, lo)
	return string(buf[:])
}

// limbEdges returns 12-digit limb values where the fraction arithmetic is
// tightest: near 0 and 36^12, near every m*36^k, and where
// t = 2^64*c/36^24 (the correction encode derives fb with) is near an integer.
func limbEdges() []uint64 {
	var out []uint64
	add := func(x uint64) {
		for d := uint64(0); d <= 3; d++ {
			if x+d < base36.Radix12 {
				out = append(out, x+d)
			}
			if x >= d {
				out = append(out, x-d)
			}
		}
	}
	add(0)
	add(base36.Radix12 - 1)
	p := uint64(1)
	for range 12 {
		for m := uint64(1); m < 36; m++ {
			add(m * p)
			add(m*p - 1)
		}
		p *= 36
	}
	for n := uint64(1); n <= 3; n++ {
		// c with 2^64*c/36^24 = n, that is c = n * 36^24 / 2^64.
		c := new(big.Int).Mul(big.NewInt(int64(n)), bigPow(36, 24))
		c.Quo(c, two64)
		add(c.Uint64())
		// c with c/36^12 = n/3.75, where k in encode changes.
		add(base36.Radix12 / 15 * 4 * n)
	}
	return out
}

// limbDigits returns the 12 digits of x < 36^12.
func limbDigits(x uint64) string {
	var out [12]byte
	for i := 11; i >= 0; i-- {
		out[i] = base36.Alphabet[x%36]
		x /= 36
	}
	return string(out[:])
}

// TestEncodeLimbEdges encodes a*36^24 + b*36^12 + c with b or c from the
// edge limbs and the other from a smaller core of them.
func TestEncodeLimbEdges(t *testing.T) {
	edges := limbEdges()
	var core []uint64
	for i, x := range edges {
		if i%97 == 0 || x < 4 || x > base36.Radix12-5 {
			core = append(core, x)
		}
	}
	check := func(a, b, c uint64) {
		// V = a*36^24 + b*36^12 + c; skip it if it passes 2^128-1.
		hi, lo := bits.Mul64(b, base36.Radix12)
		lo, carry := bits.Add64(lo, c, 0)
		hi += carry
		ahi, alo := bits.Mul64(a, radix24Lo)
		ahi += a * radix24Hi
		lo, carry = bits.Add64(lo, alo, 0)
		hi, carry = bits.Add64(hi, ahi, carry)
		if carry != 0 {
			return
		}
		if got, want := encodeString(hi, lo), base36.Alphabet[a:a+1]+limbDigits(b)+limbDigits(c); got != want {
			t.Fatalf("encode(%d, %d, %d) = %s, want %s", a, b, c, got, want)
		}
	}
	for _, a := range []uint64{0, 1, 14, 15} {
		for _, x := range edges {
			for _, y := range core {
				check(a, x, y)
				check(a, y, x)
			}
		}
	}
}

// TestEncodeRandom compares encode with the division reference on random
// values of every magnitude.
func TestEncodeRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range iterations(20) {
		hi, lo := rng.Uint64(), rng.Uint64()
		switch rng.IntN(4) {
		case 0:
			hi >>= rng.UintN(64)
		case 1:
			hi = 1<<64 - 1 - hi>>rng.UintN(64)
		}
		if got, want := encodeString(hi, lo), refEncode(hi, lo); got != want {
			t.Fatalf("encode(%#x, %#x) = %s, want %s", hi, lo, got, want)
		}
	}
}

// edgeValues returns 128-bit values around m*36^e for all digits m and
// exponents e, around 2^128-1 and around powers of two, each with its
// neighbours within 2.
func edgeValues() [][2]uint64 {
	max128 := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 128), big.NewInt(1))
	var out [][2]uint64
	add := func(v *big.Int) {
		for d := int64(-2); d <= 2; d++ {
			w := new(big.Int).Add(v, big.NewInt(d))
			if w.Sign() >= 0 && w.Cmp(max128) <= 0 {
				out = append(out, [2]uint64{new(big.Int).Rsh(w, 64).Uint64(), new(big.Int).Mod(w, two64).Uint64()})
			}
		}
	}
	for e := int64(0); e <= 25; e++ {
		for m := int64(1); m < 36; m++ {
			add(new(big.Int).Mul(bigPow(36, e), big.NewInt(m)))
		}
	}
	for e := uint(0); e <= 128; e++ {
		add(new(big.Int).Lsh(big.NewInt(1), e))
	}
	return out
}

func checkRoundTrip(t *testing.T, hi, lo uint64) {
	t.Helper()
	id := FromUint64s(hi, lo)
	want := naive.Encode(id)
	if got := encodeString(hi, lo); got != want {
		t.Fatalf("encode(%x) = %s, naive %s", id[:], got, want)
	}
	if got := id.String(); got != want {
		t.Fatalf("String(%x) = %s, naive %s", id[:], got, want)
	}
	if got, err := Parse(want); err != nil || got != id {
		t.Fatalf("Parse(%s) = %x, %v, want %x", want, got, err, id[:])
	}
	if got, err := ParseBytes([]byte(strings.ToUpper(want))); err != nil || got != id {
		t.Fatalf("ParseBytes(%s) = %x, %v, want %x", strings.ToUpper(want), got, err, id[:])
	}
}

func TestCodecDifferentialEdges(t *testing.T) {
	for _, v := range edgeValues() {
		checkRoundTrip(t, v[0], v[1])
	}
}

func TestCodecDifferentialRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range iterations(1) {
		hi, lo := rng.Uint64(), rng.Uint64()
		switch rng.IntN(4) {
		case 0:
			hi >>= rng.UintN(64)
		case 1:
			hi = 1<<64 - 1 - hi>>rng.UintN(64)
		}
		checkRoundTrip(t, hi, lo)
	}
}

type parseResult struct {
	id  ID
	err error
}

// checkDecode compares Parse, ParseBytes and UnmarshalText with naive.Decode
// on s.
func checkDecode(t *testing.T, s []byte) {
	t.Helper()
	want, wantOff, wantErr := naive.Decode(s)
	var results [2]parseResult
	results[0].id, results[0].err = Parse(string(s))
	results[1].id, results[1].err = ParseBytes(s)
	for i, got := range results {
		var ice *InvalidCharacterError
		switch {
		case wantErr == nil:
			if got.err != nil || got.id != want {
				t.Fatalf("parse %d (%q) = %x, %v; want %x", i, s, got.id, got.err, want)
			}
		case errors.Is(wantErr, naive.ErrInvalidLength):
			var le *LengthError
			if !errors.As(got.err, &le) || !errors.Is(got.err, ErrInvalidLength) || le.Got != len(s) || le.Want != 25 {
				t.Fatalf("parse %d (%q) error %v, want invalid length %d", i, s, got.err, len(s))
			}
		case errors.Is(wantErr, naive.ErrOutOfRange):
			var re *RangeError
			if !errors.As(got.err, &re) || !errors.Is(got.err, ErrOutOfRange) || re.Max != "f5lxx1zz5pnorynqglhzmsp33" {
				t.Fatalf("parse %d (%q) error %v, want out of range", i, s, got.err)
			}
		case errors.Is(wantErr, naive.ErrInvalidCharacter):
			r, size := utf8.DecodeRune(s[wantOff:])
			if !errors.As(got.err, &ice) || ice.Offset != wantOff || ice.Char != s[wantOff] || ice.Rune != r || ice.Size != size {
				t.Fatalf("parse %d (%q) error %#v, want invalid character %q at %d", i, s, got.err, r, wantOff)
			}
		default:
			t.Fatalf("naive error %v", wantErr)
		}
		if got.err != nil && got.id != (ID{}) {
			t.Fatalf("parse %d (%q) returned %x with an error", i, s, got.id)
		}
	}
	id := ID{1, 2, 3}
	orig := id
	err := id.UnmarshalText(s)
	if (err == nil) != (wantErr == nil) || err == nil && id != want || err != nil && id != orig {
		t.Fatalf("UnmarshalText(%q) = %x, %v", s, id, err)
	}
}

func TestDecodeDifferentialRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const upper = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	// Bytes next to the valid ranges, and high bytes that carry in the
	// SWAR additions.
	const tricky = "/:@[`{\x00\x10\x19\x1a\x7f\x80\x90\xaf\xb0\xb9\xc1\xe1\xfa\xff"
	s := make([]byte, 25)
	for range iterations(1) {
		// Mostly valid digits of both cases, with a leading digit that
		// often lands near the top of the range.
		for i := range s {
			d := rng.IntN(36)
			if rng.IntN(2) == 0 {
				s[i] = base36.Alphabet[d]
			} else {
				s[i] = upper[d]
			}
		}
		switch rng.IntN(3) {
		case 0:
			s[0] = "0123456789abcdefgFGz"[rng.IntN(20)]
		case 1:
			copy(s, "f5lxx1zz5pnorynqglhzmsp33"[:rng.IntN(26)])
		}
		// Sprinkle invalid bytes, sometimes several.
		for n := rng.IntN(4); n > 0 && rng.IntN(3) == 0; n-- {
			if rng.IntN(2) == 0 {
				s[rng.IntN(25)] = byte(rng.IntN(256))
			} else {
				s[rng.IntN(25)] = tricky[rng.IntN(len(tricky))]
			}
		}
		checkDecode(t, s)
	}
}

func TestDecodeEveryByte(t *testing.T) {
	// Every byte value at every position, alone and next to a high byte.
	base := []byte("0372hg16csmsm50l8dikcvukc")
	s := make([]byte, 25)
	for i := range base {
		for c := range 256 {
			copy(s, base)
			s[i] = byte(c)
			checkDecode(t, s)
			if i > 0 {
				s[i-1] = 0xff
				checkDecode(t, s)
			}
		}
	}
	for n := range 60 {
		checkDecode(t, make([]byte, n))
		checkDecode(t, []byte(strings.Repeat("0", n)))
	}
}

func TestDecodeDifferentialEdges(t *testing.T) {
	for _, v := range edgeValues() {
		checkDecode(t, []byte(naive.Encode(FromUint64s(v[0], v[1]))))
	}
	// Texts at and just above 2^128, and above it by d*36^e.
	above := new(big.Int).Lsh(big.NewInt(1), 128)
	for d := int64(-3); d < 40; d++ {
		for e := int64(0); e < 25; e++ {
			v := new(big.Int).Add(above, new(big.Int).Mul(bigPow(36, e), big.NewInt(d)))
			if v.Sign() < 0 || v.Cmp(bigPow(36, 25)) >= 0 {
				continue
			}
			txt := v.Text(36)
			checkDecode(t, []byte(strings.Repeat("0", 25-len(txt))+txt))
		}
	}
	for _, s := range []string{
		"zzzzzzzzzzzzzzzzzzzzzzzzz", "ZZZZZZZZZZZZZZZZZZZZZZZZZ",
		"f5lxx1zz5pnorynqglhzmsp34", "F5LXX1ZZ5PNORYNQGLHZMSP33",
		"g000000000000000000000000", "f5lxx1zz60000000000000000",
		"f5lxx1zz5zzzzzzzzzzzzzzzz", "fzzzzzzzz0000000000000000",
	} {
		checkDecode(t, []byte(s))
	}
}

func TestCodecAllocs(t *testing.T) {
	id := MustParse("0372hg16csmsm50l8dikcvukc")
	buf := make([]byte, 0, 64)
	if n := testing.AllocsPerRun(100, func() { buf, _ = id.AppendText(buf[:0]) }); n != 0 {
		t.Errorf("AppendText allocs = %v", n)
	}
	if n := testing.AllocsPerRun(100, func() { sinkStr = id.String() }); n != 1 {
		t.Errorf("String allocs = %v", n)
	}
	if n := testing.AllocsPerRun(100, func() { sinkID, _ = Parse("0372hg16csmsm50l8dikcvukc") }); n != 0 {
		t.Errorf("Parse allocs = %v", n)
	}
	if got, _ := id.AppendText([]byte("x")); string(got) != "x0372hg16csmsm50l8dikcvukc" {
		t.Errorf("AppendText = %q", got)
	}
	if got, _ := id.AppendText(nil); string(got) != "0372hg16csmsm50l8dikcvukc" {
		t.Errorf("AppendText(nil) = %q", got)
	}
	if got, _ := id.MarshalText(); string(got) != "0372hg16csmsm50l8dikcvukc" {
		t.Errorf("MarshalText = %q", got)
	}
}
