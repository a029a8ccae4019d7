package scru128

import (
	"testing"
	"time"
)

var (
	benchID   = MustParse("0372hg16csmsm50l8dikcvukc")
	benchText = "0372hg16csmsm50l8dikcvukc"
	sinkID    ID
	sinkStr   string
	sinkBytes []byte
	sinkTime  time.Time
)

// BenchmarkTimeNow is the yardstick for the generator targets: a bare
// time.Now() in the same run.
func BenchmarkTimeNow(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkTime = time.Now()
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
