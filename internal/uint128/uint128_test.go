package uint128

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestCompareIsBytesCompare checks Compare against bytes.Compare on pairs
// that share a prefix of every length, up to all 16 bytes.
func TestCompareIsBytesCompare(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 10_000 {
		var a, b [16]byte
		for i := range a {
			a[i] = byte(r.Uint32())
		}
		b = a
		for i := r.IntN(17); i < 16; i++ {
			b[i] = byte(r.Uint32())
		}
		if got, want := Compare(a, b), bytes.Compare(a[:], b[:]); got != want {
			t.Fatalf("Compare(%x, %x) = %d, bytes.Compare %d", a, b, got, want)
		}
	}
}
