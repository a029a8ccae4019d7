package scru64

import (
	"testing"
	"time"
)

var sinkTime time.Time

// BenchmarkTimeNow is the yardstick for BenchmarkGenerate: a bare
// time.Now(), measured in the same run on the same machine.
func BenchmarkTimeNow(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkTime = time.Now()
	}
}

func BenchmarkAppendText(b *testing.B) {
	b.ReportAllocs()
	id := MustParse("0u375nxqh5cq")
	buf := make([]byte, 0, 16)
	for b.Loop() {
		buf, _ = id.AppendText(buf[:0])
	}
}

func BenchmarkString(b *testing.B) {
	b.ReportAllocs()
	id := MustParse("0u375nxqh5cq")
	for b.Loop() {
		sinkStr = id.String()
	}
}

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkID, _ = Parse("0u375nxqh5cq")
	}
}

func BenchmarkParseBytes(b *testing.B) {
	b.ReportAllocs()
	text := []byte("0U375NXQH5CQ")
	for b.Loop() {
		sinkID, _ = ParseBytes(text)
	}
}

// BenchmarkGenerate mints from one goroutine. The node spec gives the
// largest counter (2^23 per tick); with fewer, a loop this tight runs the
// timestamp past the rollback allowance within a second or two.
func BenchmarkGenerate(b *testing.B) {
	b.ReportAllocs()
	g := NewGenerator(mustSpec(b, "0/1"))
	for b.Loop() {
		id, err := g.Generate()
		if err != nil {
			b.Fatal(err)
		}
		sinkID = id
	}
}

// BenchmarkGenerateParallel mints from GOMAXPROCS goroutines sharing one
// Generator: the cost of contention on its one state word.
func BenchmarkGenerateParallel(b *testing.B) {
	b.ReportAllocs()
	g := NewGenerator(mustSpec(b, "0/1"))
	b.RunParallel(func(pb *testing.PB) {
		var id ID
		for pb.Next() {
			id, _ = g.GenerateOrSleep()
		}
		_ = id
	})
}

// BenchmarkNew is the global generator, as most callers use it.
func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	saved := GlobalGenerator
	defer func() { GlobalGenerator = saved }()
	GlobalGenerator = new(Global)
	if err := GlobalGenerator.Initialize(mustSpec(b, "0/1")); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		sinkID = New()
	}
}

// BenchmarkGenerateCore is Generate without the clock: the cost of the
// algorithm and the compare-and-swap. Sub-benchmarks take the same tick
// (the counter counts on) and a new tick per call (the counter is renewed).
func BenchmarkGenerateCore(b *testing.B) {
	b.Run("SameTick", func(b *testing.B) {
		b.ReportAllocs()
		g := NewGenerator(mustSpec(b, "0/1"))
		for b.Loop() {
			sinkID, _ = g.GenerateOrResetCore(testMillis, DefaultRollbackAllowance)
		}
	})
	b.Run("NewTick", func(b *testing.B) {
		b.ReportAllocs()
		g := NewGenerator(mustSpec(b, "42/8"))
		ms := uint64(testMillis)
		for b.Loop() {
			ms += 256
			sinkID, _ = g.GenerateOrAbortCore(ms, DefaultRollbackAllowance)
		}
	})
}
