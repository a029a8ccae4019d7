package base36

import (
	"math/bits"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// sixDigits returns PutSixDigits's text for f.
func sixDigits(f uint64) string {
	var dst [6]byte
	PutSixDigits(&dst, f)
	return string(dst[:])
}

// TestTables compares the two tables, built at package initialization,
// with strconv: every digit pair as the leading pair of six digits, and
// every byte's value.
func TestTables(t *testing.T) {
	for i := range uint64(Radix2) {
		want := strconv.FormatUint(i, 36)
		if len(want) < 2 {
			want = "0" + want
		}
		// A fraction just above i/36^2, so of i*36^4.
		if got := sixDigits(i * (1<<64/Radix2 + 1)); got != want+"0000" {
			t.Fatalf("pair %d = %q, want %q", i, got[:2], want)
		}
	}
	for c := range 256 {
		want := byte(Invalid)
		if v, err := strconv.ParseUint(string(rune(c)), 36, 8); err == nil && c < 0x80 {
			want = byte(v)
		}
		if got := Value(byte(c)); got != want {
			t.Fatalf("Value(%#x) = %d, want %d", c, got, want)
		}
	}
}

// TestPutSixDigitsLimbs writes limbs as the encoders do, in two halves,
// from the lowest and the highest fraction of each, ceil(x*2^64/36^12) and
// ceil((x+1)*2^64/36^12) - 1, at the limbs where a digit rolls over and at
// random ones.
func TestPutSixDigitsLimbs(t *testing.T) {
	// ceil(x*2^64 / 36^12) for x < 36^12.
	fraction := func(x uint64) uint64 {
		q, r := bits.Div64(x, 0, Radix12)
		if r != 0 {
			q++
		}
		return q
	}
	check := func(x uint64) {
		want := strconv.FormatUint(x, 36)
		want = strings.Repeat("0", LimbDigits-len(want)) + want
		lowest, highest := fraction(x), uint64(1<<64-1)
		if x+1 < Radix12 {
			highest = fraction(x+1) - 1
		}
		for _, f := range []uint64{lowest, highest} {
			if got := sixDigits(f) + sixDigits(f*Radix6); got != want {
				t.Fatalf("limb %d from fraction %#x = %s, want %s", x, f, got, want)
			}
		}
	}
	power := uint64(1)
	for range LimbDigits {
		for d := uint64(1); d < 36; d++ {
			for _, x := range []uint64{d * power, Radix12 - d*power} {
				check(x - 1)
				check(x)
				if x+1 < Radix12 {
					check(x + 1)
				}
			}
		}
		power *= 36
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		check(rng.Uint64N(Radix12))
	}
}

// isDigit is the byte-by-byte reference for the SWAR helpers.
func isDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// checkWord compares Valid8, Value8 and IndexInvalid on the eight bytes of s
// with the byte-by-byte reference and strconv.
func checkWord(t *testing.T, s string) {
	t.Helper()
	x := Load64(s, 0)
	if y := Load64([]byte(s), 0); x != y {
		t.Fatalf("Load64(%q) = %#x for a string, %#x for bytes", s, x, y)
	}
	allValid := Valid8(x)&^x&High == High
	wantIndex := -1
	for i := range len(s) {
		if !isDigit(s[i]) {
			wantIndex = i
			break
		}
	}
	if allValid != (wantIndex < 0) {
		t.Fatalf("Valid8(%q) says valid = %v", s, allValid)
	}
	if got := IndexInvalid(s); got != wantIndex {
		t.Fatalf("IndexInvalid(%q) = %d, want %d", s, got, wantIndex)
	}
	if got := IndexInvalid([]byte(s)); got != wantIndex {
		t.Fatalf("IndexInvalid([]byte(%q)) = %d, want %d", s, got, wantIndex)
	}
	if allValid {
		want, err := strconv.ParseUint(s, 36, 64)
		if err != nil || Value8(x) != want {
			t.Fatalf("Value8(%q) = %d, strconv %d, %v", s, Value8(x), want, err)
		}
	}
}

// TestSWAR puts every byte value in every lane of a valid word, alone and
// next to a high byte that carries into it, and tries random words of
// digits in both cases.
func TestSWAR(t *testing.T) {
	const base = "0az9AZm5"
	for i := range 8 {
		for c := range 256 {
			b := []byte(base)
			b[i] = byte(c)
			checkWord(t, string(b))
			if i > 0 {
				b[i-1] = 0xff
				checkWord(t, string(b))
			}
		}
	}
	const digits = Alphabet + "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	rng := rand.New(rand.NewPCG(3, 4))
	var b [8]byte
	for range 100000 {
		for i := range b {
			b[i] = digits[rng.IntN(len(digits))]
		}
		checkWord(t, string(b[:]))
	}
	if got, want := Load32("0123", 0), uint64(0x33323130); got != want {
		t.Fatalf("Load32 = %#x, want %#x", got, want)
	}
	if got, want := Load32([]byte("x0123"), 1), uint64(0x33323130); got != want {
		t.Fatalf("Load32 = %#x, want %#x", got, want)
	}
}
