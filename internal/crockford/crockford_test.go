package crockford

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/fastid/scru128/internal/naive"
)

func bytes128(hi, lo uint64) []byte {
	var b [16]byte
	binary.BigEndian.PutUint64(b[0:], hi)
	binary.BigEndian.PutUint64(b[8:], lo)
	return b[:]
}

// TestAgainstMathBig compares both widths with the math/big reference over
// random values and values with one bit set or clear, which exercise each
// digit boundary.
func TestAgainstMathBig(t *testing.T) {
	var values [][2]uint64
	for i := range 128 {
		var hi, lo uint64
		if i < 64 {
			lo = 1 << i
		} else {
			hi = 1 << (i - 64)
		}
		values = append(values, [2]uint64{hi, lo}, [2]uint64{^hi, ^lo})
	}
	for range 2000 {
		values = append(values, [2]uint64{rand.Uint64(), rand.Uint64()})
	}
	for _, v := range values {
		var dst [26]byte
		Encode128(Crockford, &dst, v[0], v[1])
		want := naive.Base32Encode(bytes128(v[0], v[1]), 26, naive.CrockfordAlphabet)
		if string(dst[:]) != want {
			t.Fatalf("Encode128(%x %x) = %s, want %s", v[0], v[1], dst, want)
		}
		hi, lo, lead := Decode128(Crockford, want)
		if lead > 7 || hi != v[0] || lo != v[1] {
			t.Fatalf("Decode128(%s) = %x %x %d", want, hi, lo, lead)
		}
		var dst64 [13]byte
		Encode64(Crockford, &dst64, v[1])
		want = naive.Base32Encode(bytes128(0, v[1])[8:], 13, naive.CrockfordAlphabet)
		if string(dst64[:]) != want {
			t.Fatalf("Encode64(%x) = %s, want %s", v[1], dst64, want)
		}
		got, _, ok := Decode64(Crockford, want)
		if !ok || got != v[1] {
			t.Fatalf("Decode64(%s) = %x, %v", want, got, ok)
		}
	}
}

func TestDecodeRejectsAndLeads(t *testing.T) {
	if _, _, lead := Decode128(Crockford, "8ZZZZZZZZZZZZZZZZZZZZZZZZZ"); lead != 8 {
		t.Fatalf("lead = %d", lead)
	}
	if _, lead, ok := Decode64(Crockford, "G000000000000"); !ok || lead != 16 {
		t.Fatalf("lead = %d, ok = %v", lead, ok)
	}
	for _, c := range []byte("ILOUilou!@ \x00\x80\xff") {
		for i := range 26 {
			s := []byte("01ARZ3NDEKTSV4RRFFQ69G5FAV")
			s[i] = c
			if _, _, lead := Decode128(Crockford, string(s)); lead&0x80 == 0 {
				t.Fatalf("accepted %q", s)
			}
			if IndexInvalid(Crockford, string(s)) != i {
				t.Fatalf("IndexInvalid(%q) = %d", s, IndexInvalid(Crockford, string(s)))
			}
			if i < 13 {
				if _, _, ok := Decode64(Crockford, string(s[:13])); ok {
					t.Fatalf("accepted %q", s[:13])
				}
			}
		}
	}
}

func TestLowerCaseAccepted(t *testing.T) {
	hi, lo, lead := Decode128(Crockford, "01arz3ndektsv4rrffq69g5fav")
	hi2, lo2, _ := Decode128(Crockford, "01ARZ3NDEKTSV4RRFFQ69G5FAV")
	if lead > 7 || hi != hi2 || lo != lo2 {
		t.Fatal("lower case decodes differently")
	}
}

func TestNewEncodingPanicsOnBadAlphabet(t *testing.T) {
	for _, a := range []string{"short", "0123456789ABCDEFGHJKMNPQRSTVWXY0", "0123456789ABCDEFGHJKMNPQRSTVWXY-"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewEncoding(%q) did not panic", a)
				}
			}()
			NewEncoding(a)
		}()
	}
}

func TestDoesNotAllocate(t *testing.T) {
	var dst [26]byte
	s := "01ARZ3NDEKTSV4RRFFQ69G5FAV"
	if n := testing.AllocsPerRun(1000, func() {
		Encode128(Crockford, &dst, 1, 2)
		Decode128(Crockford, s)
	}); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}

var sinkU64 uint64

func BenchmarkEncode128(b *testing.B) {
	var dst [26]byte
	b.ReportAllocs()
	for b.Loop() {
		Encode128(Crockford, &dst, 0x0123456789abcdef, 0xfedcba9876543210)
	}
}

func BenchmarkDecode128(b *testing.B) {
	s := "01ARZ3NDEKTSV4RRFFQ69G5FAV"
	b.ReportAllocs()
	for b.Loop() {
		hi, lo, _ := Decode128(Crockford, s)
		sinkU64 += hi ^ lo
	}
}
