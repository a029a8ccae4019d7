package ulid

import (
	"encoding/binary"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/cpu"

	"github.com/fastid/scru128/internal/clock"
	"github.com/fastid/scru128/internal/entropy"
)

// DefaultRollbackAllowance is how far, in milliseconds, the clock may move
// back before Generate starts again from the clock (and GenerateOrAbort
// returns ErrClockRollback) instead of going on from the last timestamp.
const DefaultRollbackAllowance = 10_000

// Generator mints ULIDs as one monotonic stream, as the specification's
// monotonic factory does: at a new millisecond the 80-bit random part is
// fresh; within the same millisecond it is the previous one plus one, with
// carry, and when that would overflow 80 bits the call returns
// ErrMonotonicOverflow (the caller may wait for the next millisecond).
//
// A Generator is safe for concurrent use by any number of goroutines and
// takes no lock: every ID is reserved by one compare-and-swap, and it does
// not allocate. IDs are strictly increasing in real-time order across all
// goroutines (an ID returned before another call starts is smaller than
// that call's ID) and never repeat. A clock that moves back by up to
// DefaultRollbackAllowance is treated as not having moved; beyond that,
// Generate starts again from the clock (IDs then go back in time, which is
// what the allowance is for) and GenerateOrAbort returns ErrClockRollback.
//
// # How the state is kept
//
// The state is a 48-bit timestamp and an 80-bit random part, too much for
// one atomic word. It is split by how often each part changes. An epoch
// starts at each new millisecond; within it the timestamp and the random
// part drawn at its start (the base) are constant and live in three rarely
// written words. The only word written per ID is hot, which counts the IDs
// taken in the epoch:
//
//	hot:    tag (16) | count (48)
//	stamp:  timestamp (48) | tag (16)
//	randHi: base bits 79-48 (32) | 0 (16) | tag (16)
//	randLo: base bits 47-0 (48) | tag (16)
//
// The epoch's IDs have random parts base, base+1, ..., base+count: the one
// reserved by the swap that set count. The tag numbers epochs; a word
// belongs to the epoch whose tag it carries, and each word takes each
// tag's value once, so a word read with the same tag as hot is that epoch's
// value. Every word moves only from one epoch's tag to the next, by a
// compare-and-swap that expects a value read with the old tag. Within an
// epoch hot only grows, so a compare-and-swap on it cannot
// succeed against a stale value (no ABA) unless 65536 epochs - at least 65
// seconds of milliseconds - pass between one goroutine's load and its swap
// and the count matches again.
//
// Starting an epoch swaps stamp to the new timestamp and tag first, then
// the two random words, then hot to count 0, which reserves the base for
// the starter. A goroutine that finds stamp one tag ahead of hot knows an
// epoch change is under way and finishes it itself (it writes any random
// word still missing, with its own draw, then hot), so no goroutine ever
// waits for one that was preempted mid-way. IDs are ordered by the swaps
// on hot that reserve them: within an epoch by count, and across epochs by
// timestamp, because an epoch starts only at a later millisecond (or at a
// reset).
//
// Counting is limited to 2^48 IDs per epoch: that many IDs with a clock
// stuck on one millisecond (97 days at 30 ns each) also end in
// ErrMonotonicOverflow, where the specification would go on counting.
//
// The zero Generator is not usable: make one with NewGenerator or
// NewGeneratorWithRng.
type Generator struct {
	_      cpu.CacheLinePad
	hot    atomic.Uint64
	_      cpu.CacheLinePad
	stamp  atomic.Uint64
	randHi atomic.Uint64
	randLo atomic.Uint64
	clock  *clock.Clock
	shared *entropy.Shared // random numbers when rng is nil
	mu     sync.Mutex      // serializes reads from rng
	rng    io.Reader
	_      cpu.CacheLinePad
}

const (
	tagBits   = 16
	tagMask   = 1<<tagBits - 1
	countBits = 48
	countMask = 1<<countBits - 1
	loMask    = 1<<48 - 1 // the low 48 bits of the random part
	hiMask    = 1<<32 - 1 // the high 32 bits of the random part
)

// NewGenerator returns a Generator that takes its random numbers from
// ChaCha8 keyed from crypto/rand (see package internal/entropy for the
// scheme) and its time from the system clock.
func NewGenerator() *Generator {
	return &Generator{clock: clock.New(), shared: entropy.NewShared()}
}

// NewGeneratorWithRng returns a Generator that reads the random part of
// each new millisecond from rng, 10 bytes at a time, used as they are.
// Reads are serialized, so the Generator stays safe for concurrent use even
// if rng is not. An error from rng is returned, wrapped, by the call that
// met it. Use a cryptographically strong rng: the specification asks for
// one.
func NewGeneratorWithRng(rng io.Reader) *Generator {
	return &Generator{clock: clock.New(), rng: rng}
}

// Generate returns a new ULID with the current time. It returns
// ErrMonotonicOverflow if the random part cannot grow within this
// millisecond, ErrInvalidTimestamp if the system clock reads before 1970
// or after MaxTimestamp, and, for a generator made with
// NewGeneratorWithRng, the rng's error. Generate does not allocate.
func (g *Generator) Generate() (id ULID, err error) {
	if err = g.next(&id, g.clock.Millis(), DefaultRollbackAllowance, false); err != nil {
		return ULID{}, err
	}
	return id, nil
}

// GenerateOrAbort is Generate that returns ErrClockRollback, leaving the
// generator as it was, instead of starting again on a large clock rollback.
// The IDs it returns are always greater than all earlier ones.
func (g *Generator) GenerateOrAbort() (id ULID, err error) {
	if err = g.next(&id, g.clock.Millis(), DefaultRollbackAllowance, true); err != nil {
		return ULID{}, err
	}
	return id, nil
}

// GenerateOrResetCore returns the next ULID for a caller-supplied Unix
// timestamp in milliseconds, starting again from timestamp if it is more
// than rollbackAllowance ms behind the last ID. It returns
// ErrInvalidTimestamp for a timestamp of 0 or above MaxTimestamp, or an
// allowance above MaxTimestamp. Given the same timestamps and random bytes
// it returns exactly the IDs of the specification's monotonic algorithm.
// Like any core it is not meant for concurrent use: interleaving calls with
// other timestamps breaks the order the timestamps imply.
func (g *Generator) GenerateOrResetCore(timestamp, rollbackAllowance uint64) (id ULID, err error) {
	if err = g.next(&id, timestamp, rollbackAllowance, false); err != nil {
		return ULID{}, err
	}
	return id, nil
}

// GenerateOrAbortCore is GenerateOrResetCore that returns ErrClockRollback,
// leaving the generator as it was, when timestamp is more than
// rollbackAllowance ms behind the last ID.
func (g *Generator) GenerateOrAbortCore(timestamp, rollbackAllowance uint64) (id ULID, err error) {
	if err = g.next(&id, timestamp, rollbackAllowance, true); err != nil {
		return ULID{}, err
	}
	return id, nil
}

// draw returns 80 random bits as the high 32 and the low 48.
func (g *Generator) draw() (hi, lo uint64, err error) {
	if g.rng == nil {
		return g.shared.Uint64() & hiMask, g.shared.Uint64() & loMask, nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	var b [10]byte
	if _, err := io.ReadFull(g.rng, b[:]); err != nil {
		return 0, 0, fmt.Errorf("ulid: reading random bytes: %w", err)
	}
	hi = uint64(binary.BigEndian.Uint32(b[0:4]))
	lo = uint64(binary.BigEndian.Uint16(b[4:6]))<<32 | uint64(binary.BigEndian.Uint32(b[6:10]))
	return hi, lo, nil
}

// pack returns the two halves of the ULID with the given timestamp and
// random part.
func pack(timestamp, randHi, randLo uint64) (hi, lo uint64) {
	return timestamp<<16 | randHi>>16, randHi<<48 | randLo
}

// next is the one engine behind every generating method: it writes the
// next ID into *dst, which is the caller's result, and returns nil, or
// returns an error with *dst unspecified. The ID is written before the
// compare-and-swap that reserves it (and rewritten if the swap fails):
// the locked instruction drains the stores, so the caller's 16-byte copy
// of the result does not stall on store forwarding, as it does when it
// follows two 8-byte stores closely. abort selects the OrAbort form.
func (g *Generator) next(dst *ULID, timestamp, allowance uint64, abort bool) (err error) {
	if timestamp == 0 || timestamp > MaxTimestamp || allowance > MaxTimestamp {
		return ErrInvalidTimestamp
	}
	var drawHi, drawLo uint64
	drawn := false
	for {
		hot := g.hot.Load()
		stamp := g.stamp.Load()
		randHi := g.randHi.Load()
		randLo := g.randLo.Load()
		tag := hot >> countBits
		if stamp&tagMask != tag || randHi&tagMask != tag || randLo&tagMask != tag {
			if stamp&tagMask == (tag+1)&tagMask {
				// An epoch change is under way: finish it, then re-read.
				if err := g.finishEpoch(hot, stamp, randHi, randLo); err != nil {
					return err
				}
			}
			continue
		}
		current := stamp >> tagBits
		if timestamp <= current && timestamp+allowance >= current {
			// The same millisecond, or a rollback within the allowance:
			// the random part is base + count + 1.
			count := hot&countMask + 1
			randomLo := randLo>>tagBits + count // < 2^49: one carry at most
			randomHi := randHi>>tagBits + randomLo>>48
			if count > countMask || randomHi > hiMask {
				return ErrMonotonicOverflow
			}
			hi, lo := pack(current, randomHi, randomLo&loMask)
			binary.BigEndian.PutUint64(dst[0:8], hi)
			binary.BigEndian.PutUint64(dst[8:16], lo)
			if g.hot.CompareAndSwap(hot, hot+1) {
				return nil
			}
			continue
		}
		if timestamp < current && abort {
			return ErrClockRollback
		}
		// A new millisecond, or a reset after a large rollback.
		if !drawn {
			if drawHi, drawLo, err = g.draw(); err != nil {
				return err
			}
			drawn = true
		}
		if g.startEpoch(dst, hot, stamp, randHi, randLo, timestamp, drawHi, drawLo) {
			return nil
		}
	}
}

// startEpoch begins a new epoch at timestamp with the random part
// drawHi:drawLo, writes its first ID into *dst and reports true. If another goroutine
// changes the state first it reports false, and next's loop reads
// the state again (helping to finish the change, if it is this one that is
// under way).
func (g *Generator) startEpoch(dst *ULID, hot, stamp, randHi, randLo, timestamp, drawHi, drawLo uint64) bool {
	tag := (hot>>countBits + 1) & tagMask
	if !g.stamp.CompareAndSwap(stamp, timestamp<<tagBits|tag) {
		return false
	}
	if g.shared != nil && stamp>>tagBits/1000 != timestamp/1000 {
		g.shared.Rekey() // at most once a second
	}
	g.randHi.CompareAndSwap(randHi, drawHi<<tagBits|tag)
	g.randLo.CompareAndSwap(randLo, drawLo<<tagBits|tag)
	// A helper may have written a random word of its own.
	hi, lo := g.randHi.Load(), g.randLo.Load()
	if hi&tagMask != tag || lo&tagMask != tag {
		return false
	}
	idHi, idLo := pack(timestamp, hi>>tagBits, lo>>tagBits)
	binary.BigEndian.PutUint64(dst[0:8], idHi)
	binary.BigEndian.PutUint64(dst[8:16], idLo)
	return g.hot.CompareAndSwap(hot, tag<<countBits)
}

// finishEpoch completes an epoch change that another goroutine began:
// stamp already carries the new tag; the random words and hot may not yet.
// The epoch's first ID (count 0) is skipped, which costs nothing.
//
// A random word is swapped only if it was read with hot's tag, the
// epoch being left. The four words are not read at one instant: a
// goroutine that read hot and stamp, then slept through later epochs, may
// read random words of a newer epoch, and swapping one of those would move
// it back to an old tag.
func (g *Generator) finishEpoch(hot, stamp, randHi, randLo uint64) error {
	oldTag, tag := hot>>countBits, stamp&tagMask
	if randHi&tagMask == oldTag || randLo&tagMask == oldTag {
		drawHi, drawLo, err := g.draw()
		if err != nil {
			return err
		}
		if randHi&tagMask == oldTag {
			g.randHi.CompareAndSwap(randHi, drawHi<<tagBits|tag)
		}
		if randLo&tagMask == oldTag {
			g.randLo.CompareAndSwap(randLo, drawLo<<tagBits|tag)
		}
	}
	if g.randHi.Load()&tagMask == tag && g.randLo.Load()&tagMask == tag {
		g.hot.CompareAndSwap(hot, tag<<countBits)
	}
	return nil
}
