package legacy

import "testing"

func BenchmarkAppendText(b *testing.B) {
	id := MustParse("00PGHAJ3Q9VAJ7IU6PQBHBUAK4")
	buf := make([]byte, 0, EncodedSize)
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = id.AppendText(buf[:0])
	}
}

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkID, _ = Parse("00PGHAJ3Q9VAJ7IU6PQBHBUAK4")
	}
}

func BenchmarkGenerate(b *testing.B) {
	g := NewGenerator()
	b.ReportAllocs()
	for b.Loop() {
		sinkID, _ = g.Generate()
	}
}

// BenchmarkCompare compares, in turn, IDs that differ in the low half, in
// the high half and not at all.
func BenchmarkCompare(b *testing.B) {
	b.ReportAllocs()
	a := MustParse("00PGHAJ3Q9VAJ7IU6PQBHBUAK4")
	low, high := a, a
	low[15]++
	high[0]++
	ids := [4]ID{a, low, high, a}
	var sum int
	for i := 0; b.Loop(); i++ {
		sum += ids[i&3].Compare(ids[(i+1)&3])
	}
	sinkInt = sum
}
