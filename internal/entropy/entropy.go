// Package entropy supplies the random numbers of the generators: ChaCha8
// from math/rand/v2, keyed from crypto/rand, and re-keyed on a schedule so
// that two copies of a process (a cloned VM, a restored snapshot) stop
// producing the same numbers within about a second.
//
// Source is a buffered stream for one goroutine at a time, the model for a
// generator that owns its state. Shared is safe for any number of goroutines
// without a lock, for a generator whose callers come from everywhere.
package entropy

import (
	crand "crypto/rand"
	"encoding/binary"
	"math/rand/v2"
	"sync/atomic"
	"time"
)

// ReseedInterval is how long a Source or Shared uses one key before drawing
// a fresh one from crypto/rand.
const ReseedInterval = time.Second

// bufferValues is the number of 32-bit values a Source computes per refill.
const bufferValues = 64

// Source is a buffered ChaCha8 stream seeded from crypto/rand. It hands out
// values from a block of 64 precomputed 32-bit words and refills the block
// in a separate slow path, which also reseeds from crypto/rand once
// ReseedInterval has passed since the last seed. A Source must be used by
// one goroutine at a time.
type Source struct {
	buf      [bufferValues]uint32
	pos      int // next unread value in buf; bufferValues means empty
	rng      rand.ChaCha8
	seededAt time.Time // carries a monotonic reading
}

// NewSource returns a Source seeded from crypto/rand.
func NewSource() *Source {
	s := new(Source)
	s.Init()
	return s
}

// Init seeds s from crypto/rand and empties its buffer, for a Source held
// by value inside another structure.
func (s *Source) Init() {
	s.pos = bufferValues
	s.reseed()
}

// Uint32 returns 32 random bits.
func (s *Source) Uint32() uint32 {
	if s.pos < bufferValues {
		v := s.buf[s.pos]
		s.pos++
		return v
	}
	return s.refill()
}

// Uint64 returns 64 random bits.
func (s *Source) Uint64() uint64 { return uint64(s.Uint32())<<32 | uint64(s.Uint32()) }

// refill computes the next block, reseeding first if the key is due, and
// returns its first value.
func (s *Source) refill() uint32 {
	if time.Since(s.seededAt) >= ReseedInterval {
		s.reseed()
	}
	for i := 0; i < bufferValues; i += 2 {
		v := s.rng.Uint64()
		s.buf[i], s.buf[i+1] = uint32(v>>32), uint32(v)
	}
	s.pos = 1
	return s.buf[0]
}

func (s *Source) reseed() {
	var seed [32]byte
	crand.Read(seed[:]) // never fails since Go 1.24; it crashes the program instead
	s.rng.Seed(seed)
	s.seededAt = time.Now()
}

// Shared hands out random numbers to any number of goroutines without a
// lock. Each value is the runtime's per-thread ChaCha8 stream (the one behind
// math/rand/v2's top-level functions, seeded by the runtime from the
// operating system) XORed with a 64-bit key drawn from crypto/rand. Rekey
// draws a new key; the owner calls it about once per ReseedInterval, so a
// cloned process, whose runtime streams continue identically, diverges at
// the next call.
//
// Shared exists because giving every caller a Source of its own costs a
// sync.Pool Get and Put (about 12 ns here); a value from Shared costs about
// 6 ns and needs no per-caller state. The zero Shared is usable; its key is
// zero until the first Rekey.
type Shared struct {
	key atomic.Uint64
}

// NewShared returns a Shared keyed from crypto/rand.
func NewShared() *Shared {
	s := new(Shared)
	s.Rekey()
	return s
}

// Uint64 returns 64 random bits. It is safe for concurrent use.
func (s *Shared) Uint64() uint64 { return rand.Uint64() ^ s.key.Load() }

// Rekey draws a new key from crypto/rand. It is safe for concurrent use.
func (s *Shared) Rekey() {
	var key [8]byte
	crand.Read(key[:])
	s.key.Store(binary.LittleEndian.Uint64(key[:]))
}
