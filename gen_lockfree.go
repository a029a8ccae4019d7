package scru128

import (
	"encoding/binary"
	"io"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/cpu"

	"github.com/fastid/scru128/internal/clock"
	"github.com/fastid/scru128/internal/entropy"
)

// DefaultRollbackAllowance is how far, in milliseconds, the clock may move
// back before Generate resets the generator (and GenerateOrAbort returns
// ErrClockRollback) instead of going on from the last timestamp.
const DefaultRollbackAllowance = 10_000

// renewalInterval is how long counter_hi lives, in milliseconds.
const renewalInterval = 1000

// Generator mints SCRU128 IDs as one monotonic stream. It is safe for
// concurrent use by any number of goroutines and takes no lock: every ID is
// reserved by one compare-and-swap. IDs are strictly increasing in real-time
// order across all goroutines (an ID returned before another call starts is
// smaller than that call's ID) and never repeat, except that a clock rollback
// beyond the allowance resets Generate, as the specification recommends.
//
// Fields follow the specification: counter_lo starts at a random value at
// each new millisecond and counts up; counter_hi is random, renewed when the
// timestamp has moved on by a second or more, and counts the overflows of
// counter_lo; entropy is fresh for every ID. When both counters overflow the
// timestamp moves one millisecond ahead of the clock, and a clock that
// rolls back by up to the allowance is treated as not having moved.
//
// # How the state is kept
//
// The state is 96 bits of ID (timestamp, counter_hi, counter_lo) plus the
// time counter_hi was last renewed: too much for one atomic word. It is
// split by how often each part changes. An epoch starts at each renewal of
// counter_hi and lasts about a second; within it, the renewal time and the
// random base of counter_hi are constant and live in two rarely written
// words, renewal and counterHi. Everything that changes per ID lives in the
// hot word:
//
//	hot:       tag (16) | delta (10) | carries (14) | counter_lo (24)
//	renewal:   renewal timestamp (48) | tag (16)
//	counterHi: counter_hi base (24) | tag (16)
//
// timestamp = renewal timestamp + delta, and counter_hi = (base + carries)
// mod 2^24, where carries counts overflows of counter_lo in the epoch.
// Because a renewal is due when the timestamp is 1000 ms past the last one,
// delta never exceeds 999. The tag numbers epochs; a word belongs to the
// epoch whose tag it carries.
//
// Within an epoch the hot word only grows, so a compare-and-swap on it
// cannot succeed against a stale value (no ABA) unless 65536 epochs - at
// least 18 hours of renewals - pass between one goroutine's load and its
// swap, and the fields then match again.
//
// Starting an epoch writes renewal first, then counterHi, then hot. A
// goroutine that finds renewal one tag ahead of hot knows an epoch change is
// under way and finishes it itself (it writes counterHi and hot if nobody
// has yet), so no goroutine ever waits for one that was preempted mid-way.
// Every timestamp of an epoch is below the next epoch's first one (delta <
// 1000 and a renewal is at least 1000 ms later), so finishing the change in
// any order keeps IDs increasing.
//
// One case cannot be represented: more than 2^14-1 overflows of counter_lo
// within one epoch, that is 2^38 IDs within one second of timestamps, which
// a real clock does not allow. The generator then starts a new epoch early,
// 1000 ms after the last renewal, which keeps IDs unique and increasing.
//
// The zero Generator is not usable: make one with NewGenerator or
// NewGeneratorWithRng.
type Generator struct {
	_         cpu.CacheLinePad
	hot       atomic.Uint64
	_         cpu.CacheLinePad
	renewal   atomic.Uint64
	counterHi atomic.Uint64
	clock     *clock.Clock
	shared    *entropy.Shared // random numbers when rng is nil
	mu        sync.Mutex      // serializes reads from rng
	rng       io.Reader
	_         cpu.CacheLinePad
}

// Bit layout of the hot word.
const (
	loBits      = 24
	carryBits   = 14
	deltaBits   = 10
	tagBits     = 16
	carryShift  = loBits
	deltaShift  = carryShift + carryBits
	tagShift    = deltaShift + deltaBits
	maxCarries  = 1<<carryBits - 1
	deltaMask   = 1<<deltaBits - 1
	tagMask     = 1<<tagBits - 1
	counterMask = MaxCounter
)

func packHot(tag, delta, carries, counterLo uint64) uint64 {
	return tag<<tagShift | delta<<deltaShift | carries<<carryShift | counterLo
}

// NewGenerator returns a Generator that takes its random numbers from
// ChaCha8 keyed from crypto/rand (see package internal/entropy for the
// scheme) and its time from the system clock.
func NewGenerator() *Generator {
	return &Generator{clock: clock.New(), shared: entropy.NewShared()}
}

// NewGeneratorWithRng returns a Generator that reads its random numbers from
// rng, 4 bytes per number, taken as a big-endian uint32. Reads are
// serialized, so the Generator stays safe for concurrent use even if rng is
// not. An error from rng is returned, wrapped, by the call that met it.
// Use a cryptographically strong rng: the specification asks for one.
func NewGeneratorWithRng(rng io.Reader) *Generator {
	return &Generator{clock: clock.New(), rng: rng}
}

// Generate returns a new ID. If the clock has moved back by more than
// DefaultRollbackAllowance since the last ID, it resets the generator and
// goes on from the current time, so that ID may be smaller than earlier ones.
// The error is non-nil only for a generator made with NewGeneratorWithRng
// whose rng failed, or if the system clock reads before 1970 or after
// MaxTimestamp (ErrInvalidTimestamp). Generate does not allocate.
func (g *Generator) Generate() (ID, error) {
	return g.generate(g.clock.Millis(), DefaultRollbackAllowance, false)
}

// GenerateOrAbort is Generate that returns ErrClockRollback, leaving the
// generator as it was, instead of resetting on a large clock rollback. The
// IDs it returns are always greater than all earlier ones.
func (g *Generator) GenerateOrAbort() (ID, error) {
	return g.generate(g.clock.Millis(), DefaultRollbackAllowance, true)
}

// GenerateOrResetCore returns the next ID for a caller-supplied Unix
// timestamp in milliseconds, resetting the generator if timestamp is more
// than rollbackAllowance ms behind the last ID. Given the same timestamps
// and random bytes it returns exactly the IDs of the specification's
// algorithm. It returns ErrInvalidTimestamp for a timestamp of 0 or above
// MaxTimestamp, or an allowance above MaxTimestamp. Like any core it is not
// meant for concurrent use: interleaving calls with other timestamps breaks
// the order the timestamps imply.
func (g *Generator) GenerateOrResetCore(timestamp, rollbackAllowance uint64) (ID, error) {
	return g.generate(timestamp, rollbackAllowance, false)
}

// GenerateOrAbortCore is GenerateOrResetCore that returns ErrClockRollback,
// leaving the generator as it was, when timestamp is more than
// rollbackAllowance ms behind the last ID.
func (g *Generator) GenerateOrAbortCore(timestamp, rollbackAllowance uint64) (ID, error) {
	return g.generate(timestamp, rollbackAllowance, true)
}

// Fill fills dst with new IDs, each greater than the one before, all minted
// from one clock reading. IDs from other goroutines may fall between them.
// On a large clock rollback it resets like Generate. On error (only from a
// failing rng) the IDs already written stay and the rest of dst is left
// as it was. Fill does not allocate.
func (g *Generator) Fill(dst []ID) error {
	timestamp := g.clock.Millis()
	for i := range dst {
		id, err := g.generate(timestamp, DefaultRollbackAllowance, false)
		if err != nil {
			return err
		}
		dst[i] = id
	}
	return nil
}

// draw returns 32 random bits.
func (g *Generator) draw() (uint32, error) {
	if g.rng == nil {
		return uint32(g.shared.Uint64()), nil
	}
	return g.drawFromReader()
}

func (g *Generator) drawFromReader() (uint32, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return readUint32(g.rng)
}

// notDrawn marks a random number a call has not drawn yet. A
// compare-and-swap that fails publishes nothing, so a retry reuses what was
// drawn; drawing lazily in the order counter_lo, counter_hi, entropy is what
// makes the core return the reference algorithm's IDs for the same byte
// stream.
const notDrawn = 1 << 32

// drawIfNeeded returns v, or a fresh draw if v is notDrawn, masked by mask.
func (g *Generator) drawIfNeeded(v uint64, mask uint32) (uint64, error) {
	if v != notDrawn {
		return v, nil
	}
	r, err := g.draw()
	return uint64(r & mask), err
}

// generate is the one engine behind every generating method: the
// specification's algorithm with a caller-supplied timestamp, run against
// the three state words. abort selects the OrAbort form. The two common
// cases, the same millisecond and a new millisecond within the epoch, come
// first. The ID is written into the result before the swap: the swap's
// locked instruction drains those two 8-byte stores, so the caller's
// 16-byte copy of the result does not stall on store forwarding (writing
// it after the swap measured about 5 ns slower per ID).
func (g *Generator) generate(timestamp, allowance uint64, abort bool) (id ID, err error) {
	if timestamp == 0 || timestamp > MaxTimestamp || allowance > MaxTimestamp {
		return ID{}, ErrInvalidTimestamp
	}
	lo, hi, entropy := uint64(notDrawn), uint64(notDrawn), uint64(notDrawn)
	for {
		hot := g.hot.Load()
		renewal := g.renewal.Load()
		counterHi := g.counterHi.Load()
		tag := hot >> tagShift
		if renewal&tagMask != tag || counterHi&tagMask != tag {
			if renewal&tagMask == (tag+1)&tagMask {
				// An epoch change is under way: finish it, then re-read.
				if lo, hi, err = g.finishEpoch(hot, renewal, counterHi, lo, hi); err != nil {
					return ID{}, err
				}
			}
			continue
		}

		renewedAt := renewal >> tagBits
		hiBase := counterHi >> tagBits
		delta := hot >> deltaShift & deltaMask
		carries := hot >> carryShift & maxCarries
		current := renewedAt + delta // the state's timestamp

		var next, nextTs uint64 // the next hot word and its timestamp
		switch {
		case timestamp <= current && timestamp+allowance >= current && hot&counterMask < counterMask:
			// The same millisecond, or a rollback within the allowance.
			next, nextTs = hot+1, current
		case timestamp > current && timestamp-renewedAt < renewalInterval && renewedAt != 0:
			// A new millisecond in the epoch: counter_lo starts at random.
			if lo == notDrawn && entropy == notDrawn && g.rng == nil {
				// One 64-bit draw covers both numbers.
				r := g.shared.Uint64()
				lo, entropy = r>>40, r&(1<<32-1)
			} else if lo, err = g.drawIfNeeded(lo, counterMask); err != nil {
				return ID{}, err
			}
			next, nextTs = packHot(tag, timestamp-renewedAt, carries, lo), timestamp
		default:
			var epochStart uint64
			next, nextTs, epochStart, lo, err = g.rareStep(hot, timestamp, allowance, abort, renewedAt, hiBase, lo)
			if err != nil {
				return ID{}, err
			}
			if next == 0 {
				var ok bool
				id, ok, hi, entropy, err = g.startEpoch(hot, renewal, counterHi, epochStart, lo, hi, entropy)
				if ok || err != nil {
					return id, err
				}
				continue
			}
		}

		if entropy == notDrawn {
			if g.rng == nil {
				entropy = g.shared.Uint64() & (1<<32 - 1) // inlined: the hot path
			} else if entropy, err = g.drawIfNeeded(entropy, 1<<32-1); err != nil {
				return ID{}, err
			}
		}
		counterHiNow := uint32(hiBase+next>>carryShift&maxCarries) & counterMask
		binary.BigEndian.PutUint64(id[0:8], nextTs<<16|uint64(counterHiNow)>>8)
		binary.BigEndian.PutUint64(id[8:16], uint64(counterHiNow)<<56|(next&counterMask)<<32|entropy)
		if g.hot.CompareAndSwap(hot, next) {
			return id, nil
		}
	}
}

// rareStep handles what generate's common cases do not: a new millisecond
// that is due a counter_hi renewal, overflows of counter_lo, and rollbacks
// beyond the allowance. It returns the next hot word and its timestamp, or
// next == 0 and the timestamp at which a new epoch must start. lo is
// counter_lo as drawn so far (notDrawn if not yet); it returns it drawn if
// the step needs one.
func (g *Generator) rareStep(hot, timestamp, allowance uint64, abort bool, renewedAt, hiBase, lo uint64) (next, nextTs, epochStart, loOut uint64, err error) {
	tag := hot >> tagShift
	delta := hot >> deltaShift & deltaMask
	carries := hot >> carryShift & maxCarries
	current := renewedAt + delta
	switch {
	case timestamp > current:
		// A new millisecond, a second or more after the last renewal.
		lo, err = g.drawIfNeeded(lo, counterMask)
		return 0, 0, timestamp, lo, err
	case timestamp+allowance >= current:
		// counter_lo is at its maximum and overflows.
		if carries == maxCarries {
			// Not reachable with a real clock: see the type's comment.
			if renewedAt+renewalInterval > MaxTimestamp {
				return 0, 0, 0, lo, ErrInvalidTimestamp
			}
			lo, err = g.drawIfNeeded(lo, counterMask)
			return 0, 0, renewedAt + renewalInterval, lo, err
		}
		if (hiBase+carries+1)&counterMask != 0 {
			// Into counter_hi.
			return packHot(tag, delta, carries+1, 0), current, 0, lo, nil
		}
		// counter_hi overflows too: the timestamp moves on by one and
		// counter_lo starts at random.
		if current == MaxTimestamp {
			return 0, 0, 0, lo, ErrInvalidTimestamp
		}
		if lo, err = g.drawIfNeeded(lo, counterMask); err != nil {
			return 0, 0, 0, lo, err
		}
		if delta+1 >= renewalInterval {
			return 0, 0, current + 1, lo, nil
		}
		return packHot(tag, delta+1, carries+1, lo), current + 1, 0, lo, nil
	default:
		// A rollback beyond the allowance.
		if abort {
			return 0, 0, 0, lo, ErrClockRollback
		}
		lo, err = g.drawIfNeeded(lo, counterMask)
		return 0, 0, timestamp, lo, err
	}
}

// startEpoch renews counter_hi and begins a new epoch at timestamp with
// counter_lo lo, and returns that epoch's first ID with ok set. If another
// goroutine changes the state first it returns ok unset and the numbers it
// drew, and generate's loop reads the state again (helping finish the
// change, if it is this one that is under way).
func (g *Generator) startEpoch(hot, renewal, counterHi, timestamp, lo, hi, entropy uint64) (id ID, ok bool, hiOut, entropyOut uint64, err error) {
	if hi, err = g.drawIfNeeded(hi, counterMask); err != nil {
		return ID{}, false, hi, entropy, err
	}
	if entropy, err = g.drawIfNeeded(entropy, 1<<32-1); err != nil {
		return ID{}, false, hi, entropy, err
	}
	tag := (hot>>tagShift + 1) & tagMask
	if g.renewal.CompareAndSwap(renewal, timestamp<<tagBits|tag) {
		if g.shared != nil {
			g.shared.Rekey() // once per epoch: about once a second
		}
		g.counterHi.CompareAndSwap(counterHi, hi<<tagBits|tag)
		if current := g.counterHi.Load(); current&tagMask == tag {
			// A helper may have written a counter_hi of its own.
			if g.hot.CompareAndSwap(hot, packHot(tag, 0, 0, lo)) {
				return fromFields(timestamp, uint32(current>>tagBits), uint32(lo), uint32(entropy)), true, hi, entropy, nil
			}
		}
	}
	return ID{}, false, hi, entropy, nil
}

// finishEpoch completes an epoch change that another goroutine began:
// renewal already carries the new tag; counterHi and hot may not yet. The
// first state of the new epoch is the renewal timestamp with a random
// counter_lo; the ID it stands for is skipped, which costs nothing. It
// returns the draws it did not use.
func (g *Generator) finishEpoch(hot, renewal, counterHi, lo, hi uint64) (loOut, hiOut uint64, err error) {
	tag := renewal & tagMask
	if counterHi&tagMask != tag {
		// The words were loaded one after another: if this goroutine
		// stalled between the loads, counterHi may already belong to a
		// later epoch. Only a word still carrying hot's tag may be moved
		// on; writing anything else back would undo a newer epoch (and
		// leave the tags unable to agree again).
		if counterHi&tagMask != hot>>tagShift {
			return lo, hi, nil // re-read
		}
		if hi, err = g.drawIfNeeded(hi, counterMask); err != nil {
			return lo, hi, err
		}
		g.counterHi.CompareAndSwap(counterHi, hi<<tagBits|tag)
		hi = notDrawn
	}
	if lo, err = g.drawIfNeeded(lo, counterMask); err != nil {
		return lo, hi, err
	}
	if g.hot.CompareAndSwap(hot, packHot(tag, 0, 0, lo)) {
		lo = notDrawn
	}
	return lo, hi, nil
}
