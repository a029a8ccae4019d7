package scru128

import (
	"sync"

	"golang.org/x/sys/cpu"

	"github.com/fastid/scru128/internal/clock"
	"github.com/fastid/scru128/internal/entropy"
)

// Pool mints SCRU128 IDs for throughput on many cores, giving up the order
// between goroutines that a [Generator] keeps. It is safe for concurrent use
// and does not allocate, except now and then, after a garbage collection,
// to make a new shard (below). A call writes no memory that calls on other
// cores write, so minting scales with the cores.
//
// What a Pool guarantees:
//
//   - Unique: IDs never repeat within a shard, and shards start with
//     fresh random counters, so two shards collide only if their counter_hi
//     (renewed every second), their counter_lo ranges (renewed every
//     millisecond) and a 32-bit entropy all coincide within one
//     millisecond; docs/generators.md computes how rarely.
//   - Time-ordered to the millisecond: an ID's timestamp is the wall-clock
//     millisecond of the call, or a few milliseconds ahead after a counter
//     overflow, as the specification allows. A clock moved back by up to
//     10 s is treated as not having moved; beyond that the shard resets,
//     like [Generator.Generate].
//   - Not ordered within a millisecond across calls, even those of one
//     goroutine (two calls may use two shards): a caller that needs its
//     IDs in order must use a Generator. Each shard's own stream follows
//     the specification's field rules.
//
// The zero Pool is usable, and the same as one from [NewPool]. A Pool must not
// be copied after first use.
type Pool struct {
	// How it works: a Pool is a set of shards, each a complete single-threaded
	// generator with its own state and its own ChaCha8 entropy buffer, padded
	// so that no two shards share a cache line. A call takes a shard from a
	// sync.Pool, mints with it and puts it back; sync.Pool's per-P cache
	// usually hands a call the shard its P put back last. A shard that a
	// garbage collection drops is never used again, and the one that replaces
	// it starts with fresh randomness from crypto/rand.
	clock  clock.Clock
	shards sync.Pool // of *shard; the pool's New is not set, see Generate
}

// shard is one generator of a [Pool] with its entropy, alone on its cache
// lines: everything a call writes lies between the pads.
type shard struct {
	_      cpu.CacheLinePad
	gen    shardGenerator
	source entropy.Source
	_      cpu.CacheLinePad
}

func newShard() *shard {
	s := new(shard)
	s.source.Init()
	s.gen.src = &s.source
	return s
}

// NewPool returns a [Pool] whose shards take their random numbers from
// ChaCha8 seeded from crypto/rand and their time from the system clock.
func NewPool() *Pool { return new(Pool) }

// Generate returns a new ID. It panics only if the system clock reads
// before 1970 or after the year 10889, which no ID can represent.
func (p *Pool) Generate() ID {
	// An empty sync.Pool returns nil rather than calling a New function
	// that a zero Pool would not have; the shard is made here instead.
	s, _ := p.shards.Get().(*shard)
	if s == nil {
		s = newShard()
	}
	hi, lo, err := s.gen.next(p.clock.Millis(), DefaultRollbackAllowance, false)
	p.shards.Put(s)
	if err != nil {
		panic(err) // only ErrInvalidTimestamp: a shard's Source never fails
	}
	return FromUint64s(hi, lo)
}

// AppendNew mints a new ID as Generate does and appends its 25-digit text
// to b. It does not allocate when b has room for 25 more bytes.
func (p *Pool) AppendNew(b []byte) []byte {
	b, _ = p.Generate().AppendText(b)
	return b
}
