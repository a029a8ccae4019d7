package idtest

import (
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/cpu"
)

// The floor of an ordered generator is what every ID of one stream has to
// cost: one monotonic clock reading turned into milliseconds, one random
// number from math/rand/v2, and one atomic add on a word that has a cache
// line of its own. The generators' benchmarks are judged as ratios to it,
// measured in the same run.

// floorOrigin is the monotonic zero the floor's clock readings count from.
var floorOrigin = time.Now()

// paddedWord is an atomic word alone on its cache line.
type paddedWord struct {
	_ cpu.CacheLinePad
	n atomic.Uint64
	_ cpu.CacheLinePad
}

var floorSink uint64

// BenchFloor measures the floor for one goroutine.
func BenchFloor(b *testing.B) {
	b.ReportAllocs()
	var w paddedWord
	var sink uint64
	for b.Loop() {
		ms := uint64(time.Since(floorOrigin)) / 1e6
		sink += ms ^ rand.Uint64() ^ w.n.Add(1)
	}
	floorSink = sink
}

// BenchFloorParallel measures the floor with every goroutine of
// b.RunParallel on one shared word, as they are on one Generator: the
// word's cache line moves between cores on every add.
func BenchFloorParallel(b *testing.B) {
	b.ReportAllocs()
	var w paddedWord
	b.RunParallel(func(pb *testing.PB) {
		var sink uint64
		for pb.Next() {
			ms := uint64(time.Since(floorOrigin)) / 1e6
			sink += ms ^ rand.Uint64() ^ w.n.Add(1)
		}
		atomic.AddUint64(&floorSink, sink)
	})
}
