package ulidflake

import "testing"

func BenchmarkAppendText(b *testing.B) {
	id := MustParse("00CMXB6TAK4SA")
	buf := make([]byte, 0, EncodedSize)
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = id.AppendText(buf[:0])
	}
}

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkID, _ = Parse("00CMXB6TAK4SA")
	}
}

// BenchmarkGenerateOrWait mints with the default step through the
// overflows: a millisecond holds about 2^20/128 IDs on average, so some
// calls wait.
func BenchmarkGenerateOrWait(b *testing.B) {
	g, _ := NewGenerator()
	b.ReportAllocs()
	for b.Loop() {
		sinkID, _ = g.GenerateOrWait()
	}
}

// BenchmarkGenerate mints with step 1, so overflow is rare and the cost is
// the generator's own.
func BenchmarkGenerate(b *testing.B) {
	g, _ := NewGenerator(WithMaxStep(1))
	b.ReportAllocs()
	for b.Loop() {
		sinkID, _ = g.Generate()
	}
}

func BenchmarkGenerateParallel(b *testing.B) {
	g, _ := NewGenerator(WithMaxStep(1))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var id ID
		for pb.Next() {
			id, _ = g.Generate()
		}
		_ = id
	})
}
