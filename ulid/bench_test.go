package ulid

import (
	"testing"

	"github.com/fastid/scru128/internal/idtest"
)

// BenchmarkFloor is what any ID of one stream costs at least: one clock
// reading, one random number, one atomic add (see idtest.BenchFloor).
// BenchmarkMake and BenchmarkGenerate are judged as ratios to it, in the
// same run.
func BenchmarkFloor(b *testing.B) { idtest.BenchFloor(b) }

// BenchmarkFloorParallel is the floor with every goroutine adding to one
// word, the yardstick of BenchmarkMakeParallel.
func BenchmarkFloorParallel(b *testing.B) { idtest.BenchFloorParallel(b) }

func BenchmarkAppendText(b *testing.B) {
	id := MustParse("01ARZ3NDEKTSV4RRFFQ69G5FAV")
	buf := make([]byte, 0, EncodedSize)
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = id.AppendText(buf[:0])
	}
}

func BenchmarkString(b *testing.B) {
	id := MustParse("01ARZ3NDEKTSV4RRFFQ69G5FAV")
	b.ReportAllocs()
	for b.Loop() {
		sinkStr = id.String()
	}
}

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkID, _ = Parse("01ARZ3NDEKTSV4RRFFQ69G5FAV")
	}
}

func BenchmarkGenerate(b *testing.B) {
	g := NewGenerator()
	b.ReportAllocs()
	for b.Loop() {
		sinkID, _ = g.Generate()
	}
}

func BenchmarkGenerateParallel(b *testing.B) {
	g := NewGenerator()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var id ULID
		for pb.Next() {
			id, _ = g.Generate()
		}
		_ = id
	})
}

func BenchmarkMake(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkID = Make()
	}
}

// BenchmarkMakeParallel reports the time per ID with every P minting from
// the package-level Generator at once.
func BenchmarkMakeParallel(b *testing.B) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var id ULID
		for pb.Next() {
			id = Make()
		}
		_ = id
	})
}

func BenchmarkNewUnordered(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkID = NewUnordered()
	}
}

func BenchmarkNewUnorderedParallel(b *testing.B) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var id ULID
		for pb.Next() {
			id = NewUnordered()
		}
		_ = id
	})
}

// BenchmarkCompare compares, in turn, IDs that differ in the low half, in
// the high half and not at all.
func BenchmarkCompare(b *testing.B) {
	b.ReportAllocs()
	a := MustParse("01ARZ3NDEKTSV4RRFFQ69G5FAV")
	low, high := a, a
	low[15]++
	high[0]++
	ids := [4]ULID{a, low, high, a}
	var sum int
	for i := 0; b.Loop(); i++ {
		sum += ids[i&3].Compare(ids[(i+1)&3])
	}
	sinkInt = sum
}
