package scru128

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/fastid/scru128/internal/clock"
	"github.com/fastid/scru128/internal/entropy"
	"github.com/fastid/scru128/internal/epoch"
	"github.com/fastid/scru128/internal/idtest"
)

var (
	benchID   = MustParse("0372hg16csmsm50l8dikcvukc")
	benchText = "0372hg16csmsm50l8dikcvukc"
	sinkID    ID
	sinkStr   string
	sinkBytes []byte
	sinkInt   int
)

// BenchmarkTimeNow is the yardstick for the generator targets: a bare
// time.Now() in the same run. b.Loop keeps the call from being optimized
// away; the generator benchmarks below keep their results the same way.
func BenchmarkTimeNow(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		time.Now()
	}
}

func BenchmarkAppendText(b *testing.B) {
	b.ReportAllocs()
	buf := make([]byte, 0, 64)
	for b.Loop() {
		buf, _ = benchID.AppendText(buf[:0])
	}
	sinkBytes = buf
}

func BenchmarkString(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkStr = benchID.String()
	}
}

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkID, _ = Parse(benchText)
	}
}

func BenchmarkParseBytes(b *testing.B) {
	b.ReportAllocs()
	text := []byte(benchText)
	for b.Loop() {
		sinkID, _ = ParseBytes(text)
	}
}

// BenchmarkFloor is what any ID of one stream costs at least: one clock
// reading, one random number, one atomic add (see idtest.BenchFloor).
// BenchmarkGenerate is judged as a ratio to it, in the same run.
func BenchmarkFloor(b *testing.B) { idtest.BenchFloor(b) }

// BenchmarkFloorParallel is the floor with every goroutine adding to one
// word, the yardstick of BenchmarkGenerateParallel.
func BenchmarkFloorParallel(b *testing.B) { idtest.BenchFloorParallel(b) }

func BenchmarkGenerate(b *testing.B) {
	b.ReportAllocs()
	g := NewGenerator()
	for b.Loop() {
		g.Generate()
	}
}

// BenchmarkGenerateParallel reports the time per ID with every P minting
// from one Generator at once.
func BenchmarkGenerateParallel(b *testing.B) {
	b.ReportAllocs()
	g := NewGenerator()
	b.RunParallel(func(pb *testing.PB) {
		var id ID
		for pb.Next() {
			id, _ = g.Generate()
		}
		_ = id
	})
}

func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		New()
	}
}

func BenchmarkNewString(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkStr = NewString()
	}
}

func BenchmarkAppendNew(b *testing.B) {
	b.ReportAllocs()
	buf := make([]byte, 0, 64)
	for b.Loop() {
		buf = AppendNew(buf[:0])
	}
	sinkBytes = buf
}

// BenchmarkFill reports the time per ID of filling a 64-ID batch.
func BenchmarkFill(b *testing.B) {
	b.ReportAllocs()
	g := NewGenerator()
	ids := make([]ID, 64)
	for b.Loop() {
		_ = g.Fill(ids)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ids)), "ns/id")
}

func BenchmarkPoolGenerate(b *testing.B) {
	b.ReportAllocs()
	p := NewPool()
	for b.Loop() {
		p.Generate()
	}
}

// BenchmarkPoolGenerateParallel reports the time per ID with every P
// minting from one Pool at once.
func BenchmarkPoolGenerateParallel(b *testing.B) {
	b.ReportAllocs()
	p := NewPool()
	b.RunParallel(func(pb *testing.PB) {
		var id ID
		for pb.Next() {
			id = p.Generate()
		}
		_ = id
	})
}

// BenchmarkCompare compares, in turn, IDs that differ in the low half, in
// the high half and not at all.
func BenchmarkCompare(b *testing.B) {
	b.ReportAllocs()
	a := benchID
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

// BenchmarkGenerateSteps adds the parts of Generate's fast path to the
// floor one at a time, to show where its time goes: this module's clock
// (the wall-clock offset and its re-anchoring check), the keyed entropy,
// loading and checking the state, assembling the 16-byte ID, and Generate
// itself. Each step stores what it made, as a caller would.
func BenchmarkGenerateSteps(b *testing.B) {
	b.Run("1-floor", idtest.BenchFloor)
	for level, name := range []string{2: "2-clock", 3: "3-entropy", 4: "4-state", 5: "5-assemble"} {
		if name != "" {
			b.Run(name, func(b *testing.B) { generateSteps(b, level) })
		}
	}
	b.Run("6-generate", func(b *testing.B) {
		g := NewGenerator()
		for b.Loop() {
			sinkID, _ = g.Generate()
		}
	})
}

var benchSink uint64

// generateSteps runs the fast path's parts up to level (see
// BenchmarkGenerateSteps). The switch on level is the same in every round,
// so its branches are predicted.
func generateSteps(b *testing.B, level int) {
	var c clock.Clock
	var e epoch.Engine
	var ent entropy.Shared
	var sink uint64
	for b.Loop() {
		mono := clock.Mono() // the clock read as generate does it
		ms, ok := c.TryMillisAt(mono)
		if !ok {
			ms = c.MillisAt(mono)
		}
		switch level {
		case 2:
			sink += ms ^ rand.Uint64() ^ e.Reserve(1)
		case 3:
			sink += ms ^ ent.Uint64() ^ e.Reserve(1)
		case 4:
			if s := e.Load(coldWords); s.Consistent() && s.Payload(0) <= ms {
				sink += ent.Uint64()
			}
			sink += e.Reserve(1)
		default:
			var id ID
			if s := e.Load(coldWords); s.Consistent() && s.Payload(0) <= ms {
				putID(&id, ms, s.Payload(1), s.Hot+1, uint32(ent.Uint64()))
			}
			e.Reserve(1)
			sinkID = id
		}
	}
	benchSink = sink
}
