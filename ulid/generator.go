package ulid

import (
	"encoding/binary"
	"fmt"
	"io"
	"sync"

	"github.com/fastid/scru128/internal/clock"
	"github.com/fastid/scru128/internal/entropy"
	"github.com/fastid/scru128/internal/epoch"
)

// DefaultRollbackAllowance is how far, in milliseconds, the clock may move
// back before [Generator.Generate] starts again from the clock (and
// [Generator.GenerateOrAbort] returns [ErrClockRollback]) instead of going on
// from the last timestamp.
const DefaultRollbackAllowance = 10_000

// Generator mints ULIDs as one monotonic stream, as the specification's
// monotonic factory does: at a new millisecond the 80-bit random part is
// fresh; within the same millisecond it is the previous one plus one, with
// carry, and when that would overflow 80 bits the call returns
// [ErrMonotonicOverflow] (the caller may wait for the next millisecond).
//
// A Generator is safe for concurrent use by any number of goroutines, takes
// no lock and does not allocate. IDs are strictly increasing in real-time
// order across all goroutines (an ID returned before another call starts is
// smaller than that call's ID) and never repeat. A clock that moves back by
// up to [DefaultRollbackAllowance] is treated as not having moved; beyond
// that the methods differ:
//
//	method                timestamp   beyond the rollback allowance
//	Generate              clock       starts again from the clock (IDs go back in time)
//	GenerateOrAbort       clock       returns ErrClockRollback
//	GenerateOrResetCore   argument    starts again from the argument
//	GenerateOrAbortCore   argument    returns ErrClockRollback
//
// The zero Generator is ready for use, with the system clock and the
// default random source, like one from [NewGenerator].
//
// # How the state is kept
//
// The state, a 48-bit timestamp and an 80-bit random part, is kept in the
// words of package internal/epoch, whose doc comment states the snapshot
// rule, the order of writes and why that order is safe. An epoch starts at
// each new millisecond; within it the timestamp and the random part drawn
// at its start (the base) are constant and live in the three cold words.
// The hot word counts the IDs taken in the epoch:
//
//	hot:     tag (22) | count (42)
//	cold[0]: timestamp (48)                    | tag (16)
//	cold[1]: 0 (16) | base bits 79-48 (32)     | tag (16)
//	cold[2]: base bits 47-0 (48)               | tag (16)
//
// The epoch's IDs have random parts base, base+1, ..., base+count: the
// first is the starter's, and every other is reserved by one atomic add of
// 1 to the hot word, accepted if its result carries the loaded tag. IDs
// are ordered by the operations on hot that reserve them: within an epoch
// by count, and across epochs by timestamp, because an epoch starts only
// at a later millisecond (or at a reset).
//
// Counting is limited to 2^41 IDs per epoch, which keeps concurrent adds
// far from the tag: that many IDs with a clock stuck on one millisecond
// (18 hours at 30 ns each) also end in ErrMonotonicOverflow, where the
// specification would go on counting.
type Generator struct {
	engine epoch.Engine
	clock  clock.Clock
	ent    entropy.Shared // random numbers when rng is nil
	mu     sync.Mutex     // serializes reads from rng
	rng    io.Reader
}

const (
	coldWords  = 3
	countLimit = 1 << 41   // counts at or above this fail: see the type's comment
	loMask     = 1<<48 - 1 // the low 48 bits of the random part
	hiMask     = 1<<32 - 1 // the high 32 bits of the random part
)

// The words must hold the fields.
const (
	_ = uint64(epoch.PayloadBits - 48) // cold[0] and cold[2] hold 48 bits
	_ = uint64(epoch.TagShift - 42)    // hot holds a count of 2^41 and more
)

// NewGenerator returns a [Generator] that takes its random numbers from
// ChaCha8 keyed from crypto/rand (see package internal/entropy for the
// scheme) and its time from the system clock.
func NewGenerator() *Generator {
	g := new(Generator)
	g.ent.Rekey()
	return g
}

// NewGeneratorWithRng returns a [Generator] that reads the random part of
// each new millisecond from rng, 10 bytes at a time, used as they are.
// Reads are serialized, so the Generator stays safe for concurrent use even
// if rng is not. An error from rng is returned, wrapped, by the call that
// met it. A nil rng means the default source, as in [NewGenerator]. Use a
// cryptographically strong rng: the specification asks for one.
func NewGeneratorWithRng(rng io.Reader) *Generator {
	g := NewGenerator()
	g.rng = rng
	return g
}

// Generate returns a new ULID with the current time. It returns
// [ErrMonotonicOverflow] if the random part cannot grow within this
// millisecond, [ErrInvalidTimestamp] if the system clock reads before 1970
// or after [MaxTimestamp], and, for a generator made with
// [NewGeneratorWithRng], the rng's error. Generate does not allocate.
func (g *Generator) Generate() (ULID, error) {
	return g.generate(0, DefaultRollbackAllowance, epoch.Now)
}

// GenerateOrAbort is [Generator.Generate] that returns [ErrClockRollback],
// leaving the generator as it was, instead of starting again on a large
// clock rollback. The IDs it returns are always greater than all earlier
// ones.
func (g *Generator) GenerateOrAbort() (ULID, error) {
	return g.generate(0, DefaultRollbackAllowance, epoch.Now|epoch.Abort)
}

// GenerateOrResetCore returns the next ULID for a caller-supplied Unix
// timestamp in milliseconds, starting again from timestamp if it is more
// than rollbackAllowance ms behind the last ID. It returns
// [ErrInvalidTimestamp] for a timestamp of 0 or above [MaxTimestamp], or an
// allowance above MaxTimestamp. Given the same timestamps and random bytes
// it returns exactly the IDs of the specification's monotonic algorithm.
// Calls from several goroutines keep the type's guarantees; give them
// readings of one clock that never goes back, since a call whose timestamp
// is more than the allowance behind the stream resets it.
func (g *Generator) GenerateOrResetCore(timestamp, rollbackAllowance uint64) (ULID, error) {
	return g.generate(timestamp, rollbackAllowance, epoch.Reset)
}

// GenerateOrAbortCore is [Generator.GenerateOrResetCore] that returns
// [ErrClockRollback], leaving the generator as it was, when timestamp is
// more than rollbackAllowance ms behind the last ID.
func (g *Generator) GenerateOrAbortCore(timestamp, rollbackAllowance uint64) (ULID, error) {
	return g.generate(timestamp, rollbackAllowance, epoch.Abort)
}

// generate is the one engine behind every generating method. m says where
// the timestamp comes from (the argument, or the clock read here) and what
// a large rollback does. The common case comes first and takes one atomic
// add; the rest is in slow.
//
// The exported methods are one-line calls that inline into their callers,
// so generate's result is the caller's own variable. The ID is written into
// it in place before the add, as the value the add is expected to produce,
// and rewritten only if another goroutine's add came first (see the root
// package's generate for why it is not returned in registers instead).
func (g *Generator) generate(timestamp, allowance uint64, m epoch.Mode) (id ULID, err error) {
	if m&epoch.Now == epoch.Now {
		// The clock read in inlined halves (see clock.Clock.TryMillisAt).
		mono := clock.Mono()
		var ok bool
		if timestamp, ok = g.clock.TryMillisAt(mono); !ok {
			timestamp = g.clock.MillisAt(mono)
		}
	}
	if timestamp-1 >= MaxTimestamp || allowance > MaxTimestamp {
		return ULID{}, ErrInvalidTimestamp
	}
	s := g.engine.Load(coldWords)
	current := s.Payload(0)
	// The same millisecond, or a rollback within the allowance (current -
	// timestamp wraps to a huge value if timestamp is ahead).
	if s.Consistent() && current-timestamp <= allowance && s.PerID() < countLimit {
		next := s.Hot + 1
		randHi, randLo, ok := randomPart(s, next)
		if !ok {
			return ULID{}, ErrMonotonicOverflow // and the state is left as it was
		}
		putID(&id, current, randHi, randLo)
		got := g.engine.Reserve(1)
		if got == next {
			return id, nil
		}
		if s.Owns(got) {
			if randHi, randLo, ok = randomPart(s, got); !ok {
				return ULID{}, ErrMonotonicOverflow
			}
			putID(&id, current, randHi, randLo)
			return id, nil
		}
	}
	return g.slow(timestamp, allowance, m)
}

// randomPart returns the random part that the hot word's count stands for in
// the epoch of s, base + count, as its high 32 and low 48 bits, and ok
// false if it does not fit 80 bits.
func randomPart(s epoch.Snapshot, hot uint64) (hi, lo uint64, ok bool) {
	lo = s.Payload(2) + hot&epoch.PerIDMask // < 2^49: one carry at most
	hi = s.Payload(1) + lo>>48
	return hi, lo & loMask, hi <= hiMask
}

// putID writes into *id the ULID with the given timestamp and random
// part, in place (see the root package's putID).
func putID(id *ULID, timestamp, randHi, randLo uint64) {
	hi, lo := pack(timestamp, randHi, randLo)
	binary.BigEndian.PutUint64(id[0:8], hi)
	binary.BigEndian.PutUint64(id[8:16], lo)
}

// slow handles what generate's fast path leaves: a new millisecond, a
// reset, an epoch change under way, and the retries of a reservation that
// fell into a later epoch.
//
// For a timestamp read from the clock, a state more than the allowance
// ahead is checked against a reading taken after the state was loaded
// before it counts as a rollback. Without that, a goroutine descheduled
// between its clock reading and its look at the state would reset the
// stream to its stale time, and two such goroutines could keep resetting
// each other's epochs.
func (g *Generator) slow(timestamp, allowance uint64, m epoch.Mode) (ULID, error) {
	e := &g.engine
	var r random
	for {
		s := e.Load(coldWords)
		if !s.Consistent() {
			if s.Changing() {
				// An epoch change is under way: finish it with a random part
				// of this call's own, then read again.
				if err := r.take(g); err != nil {
					return ULID{}, err
				}
				e.Help(s, coldWords, [epoch.MaxCold]uint64{1: r.hi, 2: r.lo}, 0) // the first ID is skipped
				r.drawn = false
			}
			continue
		}
		current := s.Payload(0)
		if m&epoch.FromClock != 0 && timestamp < current && current-timestamp > allowance {
			// A stale reading, or a rollback: see the doc comment.
			if timestamp = g.clock.Millis(); timestamp-1 >= MaxTimestamp {
				return ULID{}, ErrInvalidTimestamp
			}
		}
		switch {
		case current-timestamp <= allowance:
			// The same millisecond, or a rollback within the allowance.
			if s.PerID() >= countLimit {
				return ULID{}, ErrMonotonicOverflow
			}
			randHi, randLo, ok := randomPart(s, s.Hot+1)
			if !ok {
				return ULID{}, ErrMonotonicOverflow
			}
			if e.Advance(s, s.Hot+1) {
				return FromUint64s(pack(current, randHi, randLo)), nil
			}
			continue
		case timestamp < current && m&epoch.Abort != 0:
			return ULID{}, ErrClockRollback
		}
		// A new millisecond, or a reset after a large rollback: a new epoch
		// with a fresh random part, whose first ID (count 0) is the base.
		if err := r.take(g); err != nil {
			return ULID{}, err
		}
		st := e.Start(s, coldWords, [epoch.MaxCold]uint64{timestamp, r.hi, r.lo}, 0)
		if st.Began && g.rng == nil && current/1000 != timestamp/1000 {
			g.ent.Rekey() // at most about once a second
		}
		if st.Claimed {
			hi, lo := pack(timestamp, st.Payload[1], st.Payload[2])
			return FromUint64s(hi, lo), nil
		}
	}
}

// random holds the 80-bit random part a call has drawn, as its high 32 and
// low 48 bits. A compare-and-swap that fails publishes nothing, so a retry
// reuses it.
type random struct {
	hi, lo uint64
	drawn  bool
}

// take draws the random part if it is not drawn yet.
func (r *random) take(g *Generator) (err error) {
	if !r.drawn {
		if r.hi, r.lo, err = g.draw(); err != nil {
			return err
		}
		r.drawn = true
	}
	return nil
}

// draw returns 80 random bits as the high 32 and the low 48.
func (g *Generator) draw() (hi, lo uint64, err error) {
	if g.rng == nil {
		return g.ent.Uint64() & hiMask, g.ent.Uint64() & loMask, nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	var b [10]byte
	if err := entropy.ReadFull(g.rng, b[:]); err != nil {
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
