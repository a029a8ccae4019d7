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
