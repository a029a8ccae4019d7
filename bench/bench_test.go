package bench

import (
	crand "crypto/rand"
	"math/rand/v2"
	"testing"
	"time"
)

// Each benchmark has one sub-benchmark per library, named after it, so
// that cmd/compare can lay them out as a table. A library that cannot do
// an operation is skipped, with the reason.

var (
	sinkString string
	sinkBytes  []byte
	sinkTime   time.Time
	sinkDur    time.Duration
	sinkU64    uint64
)

// forEach runs fn for every library that has the operation op selects.
func forEach(b *testing.B, has func(Lib) bool, fn func(b *testing.B, l Lib)) {
	for _, l := range Libs() {
		if !has(l) {
			continue
		}
		b.Run(l.Name, func(b *testing.B) {
			if l.Setup != nil {
				l.Setup()
			}
			if l.Teardown != nil {
				defer l.Teardown()
			}
			b.ReportAllocs()
			fn(b, l)
		})
	}
}

func BenchmarkMint(b *testing.B) {
	forEach(b, func(l Lib) bool { return l.Mint != nil }, func(b *testing.B, l Lib) {
		for b.Loop() {
			l.Mint()
		}
	})
}

func BenchmarkMintParallel(b *testing.B) {
	forEach(b, func(l Lib) bool { return l.Mint != nil }, func(b *testing.B, l Lib) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				l.Mint()
			}
		})
	})
}

func BenchmarkMintString(b *testing.B) {
	forEach(b, func(l Lib) bool { return l.MintString != nil }, func(b *testing.B, l Lib) {
		for b.Loop() {
			sinkString = l.MintString()
		}
	})
}

func BenchmarkMintAppend(b *testing.B) {
	forEach(b, func(l Lib) bool { return l.MintAppend != nil }, func(b *testing.B, l Lib) {
		buf := make([]byte, 0, 64)
		for b.Loop() {
			buf = l.MintAppend(buf[:0])
		}
		sinkBytes = buf
	})
}

func BenchmarkEncode(b *testing.B) {
	forEach(b, func(l Lib) bool { return l.Encode != nil }, func(b *testing.B, l Lib) {
		buf := make([]byte, 0, 64)
		for b.Loop() {
			buf = l.Encode(buf[:0])
		}
		sinkBytes = buf
	})
}

func BenchmarkString(b *testing.B) {
	forEach(b, func(l Lib) bool { return l.String != nil }, func(b *testing.B, l Lib) {
		for b.Loop() {
			sinkString = l.String()
		}
	})
}

func BenchmarkParse(b *testing.B) {
	forEach(b, func(l Lib) bool { return l.Parse != nil }, func(b *testing.B, l Lib) {
		for b.Loop() {
			if err := l.Parse(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkFloor measures the parts an ID is made of, in the same run: the
// clock read the usual way and the cheap way, and random bits from the
// operating system and from ChaCha8.
func BenchmarkFloor(b *testing.B) {
	b.Run("time.Now", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkTime = time.Now()
		}
	})
	b.Run("time.Since", func(b *testing.B) {
		b.ReportAllocs()
		anchor := time.Now()
		for b.Loop() {
			sinkDur = time.Since(anchor)
		}
	})
	b.Run("crypto-rand-4B", func(b *testing.B) {
		b.ReportAllocs()
		var buf [4]byte
		for b.Loop() {
			crand.Read(buf[:])
		}
	})
	b.Run("chacha8-uint64", func(b *testing.B) {
		b.ReportAllocs()
		r := rand.NewChaCha8([32]byte{})
		for b.Loop() {
			sinkU64 = r.Uint64()
		}
	})
}
