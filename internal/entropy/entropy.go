// Package entropy supplies the random numbers of the generators: ChaCha8
// from math/rand/v2, keyed from crypto/rand, and re-keyed on a schedule so
// that two copies of a process (a cloned VM, a restored snapshot) stop
// producing the same numbers within about a second.
//
// [Source] is a buffered stream for one goroutine at a time, the model for a
// generator that owns its state. [Shared] is safe for any number of goroutines
// without a lock, for a generator whose callers come from everywhere. [Get]
// and [Put] lend Sources cached per P, for callers that own no state.
//
// [ReadFull] is io.ReadFull for the caller-supplied readers of the generators,
// bounded so that a reader that keeps returning no bytes is an error, not a
// loop that never ends.
package entropy

import (
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/cpu"
)

// ReseedInterval is how long a [Source] or [Shared] uses one key before drawing
// a fresh one from crypto/rand.
const ReseedInterval = time.Second

// bufferValues is the number of 32-bit values a [Source] computes per
// refill, a power of two.
const bufferValues = 64

// Uint32 masks its index with bufferValues-1: it must be a power of two.
const _ = uint64(-(bufferValues & (bufferValues - 1)))

// Source is a buffered ChaCha8 stream seeded from crypto/rand. It hands out
// values from a block of 64 precomputed 32-bit words and refills the block
// in a separate slow path, which also reseeds from crypto/rand once
// [ReseedInterval] has passed since the last seed. A Source must be used by
// one goroutine at a time.
//
// The zero Source is usable: its buffer is empty and it has never been
// seeded, so the first value refills the block from a fresh seed.
type Source struct {
	buf      [bufferValues]uint32
	left     int // unread values, buf[0:left]; 0 means empty
	rng      rand.ChaCha8
	seededAt time.Time // carries a monotonic reading; zero before the first seed
}

// NewSource returns a [Source] seeded from crypto/rand.
func NewSource() *Source {
	s := new(Source)
	s.Init()
	return s
}

// Init seeds s from crypto/rand and empties its buffer, for a [Source] held
// by value inside another structure. A zero Source needs no Init; Init only
// moves the cost of the first seed to the time of the call.
func (s *Source) Init() {
	s.left = 0
	s.reseed()
}

// Uint32 returns 32 random bits. It takes the block from its end, which
// keeps it within the inlining budget: the masked index needs no bounds
// check.
func (s *Source) Uint32() uint32 {
	if s.left > 0 {
		s.left--
		return s.buf[s.left&(bufferValues-1)]
	}
	return s.refill()
}

// Uint64 returns 64 random bits.
func (s *Source) Uint64() uint64 { return uint64(s.Uint32())<<32 | uint64(s.Uint32()) }

// refill computes the next block, reseeding first if the key is due (or
// was never drawn: time.Since of the zero time is far above the interval),
// and returns its first value.
func (s *Source) refill() uint32 {
	if s.seededAt.IsZero() || time.Since(s.seededAt) >= ReseedInterval {
		s.reseed()
	}
	for i := 0; i < bufferValues; i += 2 {
		v := s.rng.Uint64()
		s.buf[i], s.buf[i+1] = uint32(v>>32), uint32(v)
	}
	s.left = bufferValues - 1
	return s.buf[bufferValues-1]
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
// draws a new key; the owner calls it about once per [ReseedInterval], so a
// cloned process, whose runtime streams continue identically, diverges at
// the next call.
//
// Shared exists because giving every caller a [Source] of its own costs a
// sync.Pool [Get] and [Put] (about 12 ns here); a value from Shared costs about
// 6 ns and needs no per-caller state. The zero Shared is usable; its key is
// zero until the first Rekey.
type Shared struct {
	key atomic.Uint64
}

// NewShared returns a [Shared] keyed from crypto/rand.
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

// pooledSource is a [Source] alone on its cache lines, so that Sources cached
// for different Ps are never written through the same line.
type pooledSource struct {
	_      cpu.CacheLinePad
	source Source
	_      cpu.CacheLinePad
}

// sources caches Sources per P, each inside its own pooledSource: the pool
// holds a pointer to the field, which keeps the whole padded block alive. A
// [Source] dropped at a garbage collection is never used again; its successor
// seeds itself afresh from crypto/rand.
var sources = sync.Pool{New: func() any { return &new(pooledSource).source }}

// Get lends a [Source] to the calling goroutine until it hands it back with
// [Put]. Calls on different Ps get different Sources, so minting code without
// state of its own scales with cores; Get and Put cost a sync.Pool round
// trip (about 12 ns here) and do not allocate once the Ps have theirs.
func Get() *Source { return sources.Get().(*Source) }

// Put returns a [Source] that [Get] lent. The caller must not use it
// afterwards.
func Put(s *Source) { sources.Put(s) }

// MaxEmptyReads is how many reads in a row may return no bytes and no
// error before [ReadFull] gives up, as bufio does with io.ErrNoProgress.
const MaxEmptyReads = 100

// ErrNoProgress is wrapped by [ReadFull]'s error for a reader that returned no
// bytes and no error [MaxEmptyReads] times in a row. It matches
// io.ErrNoProgress under errors.Is.
var ErrNoProgress = fmt.Errorf("the reader returned no bytes %d times in a row: %w", MaxEmptyReads, io.ErrNoProgress)

// errNilReader is [ReadFull]'s error for a nil reader.
var errNilReader = errors.New("the reader is nil")

// ReadFull reads len(b) bytes from r, as io.ReadFull does: the error is
// io.EOF if r had no bytes at all, io.ErrUnexpectedEOF if it ended early,
// or r's own error. Unlike io.ReadFull it returns, rather than looping
// forever, when r keeps returning (0, nil): after [MaxEmptyReads] such reads
// in a row the error wraps [ErrNoProgress] (and io.ErrNoProgress). A nil r is
// an error too. Callers wrap the error with their package's prefix.
func ReadFull(r io.Reader, b []byte) error {
	if r == nil {
		return errNilReader
	}
	filled, empty := 0, 0
	for filled < len(b) {
		n, err := r.Read(b[filled:])
		if n < 0 || n > len(b)-filled {
			return fmt.Errorf("the reader returned an impossible count %d for %d bytes", n, len(b)-filled)
		}
		filled += n
		if filled == len(b) {
			return nil // io.ReadFull ignores an error that comes with the last bytes
		}
		switch {
		case err == io.EOF && filled > 0:
			return io.ErrUnexpectedEOF
		case err != nil:
			return err
		case n == 0:
			if empty++; empty >= MaxEmptyReads {
				return ErrNoProgress
			}
		default:
			empty = 0
		}
	}
	return nil
}
