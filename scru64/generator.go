package scru64

import (
	"sync/atomic"
	"time"

	"golang.org/x/sys/cpu"

	"github.com/fastid/scru128/internal/clock"
)

// DefaultRollbackAllowance is how far, in milliseconds, the clock may be
// behind the last ID's timestamp before Generate returns [ErrClockRollback]
// ([Generator.GenerateOrReset] resets, GenerateOrSleep waits) instead of
// going on from the last timestamp. It is 10 seconds, as in the reference
// implementations; in 256-ms ticks that is 39.
const DefaultRollbackAllowance = 10_000

// maxSleep bounds one wait of GenerateOrSleep, so that a clock stepped
// forward while it sleeps is noticed soon.
const maxSleep = 64 * time.Millisecond

// wallClock is the cheap millisecond clock every [Generator] reads.
var wallClock = clock.New()

// Generator mints SCRU64 IDs for one node as one monotonic stream. It is safe
// for concurrent use by any number of goroutines and takes no lock: its whole
// state is the last ID it returned, one 64-bit word, and every ID is reserved
// by one compare-and-swap on it. IDs are strictly increasing in real-time
// order across all goroutines (an ID returned before another call starts is
// smaller than that call's ID) and never repeat, except after a reset by
// [Generator.GenerateOrReset] or [Generator.GenerateOrResetCore]. No method
// allocates.
//
// Fields follow the specification. At each new timestamp tick (256 ms) the
// counter starts at a value from the [CounterMode] (random by default) and
// then counts up by one per ID. When it would pass its maximum, the
// timestamp moves one tick ahead of the clock and the counter is renewed:
// IDs stay increasing without waiting, and the clock catches up later. The
// clock may be behind the last ID's timestamp by up to the rollback
// allowance ([DefaultRollbackAllowance]) and is then treated as not having
// moved; that covers small clock rollbacks and the lead that overflows
// build up. Beyond it, which a long burst of more IDs than the counter
// holds per tick also reaches, the methods differ:
//
//	method               timestamp    beyond the allowance
//	Generate             clock        returns ErrClockRollback
//	GenerateOrSleep      clock        sleeps until the clock catches up
//	GenerateOrReset      clock        resets: goes on from the clock (may repeat IDs)
//	GenerateOrAbortCore  argument     returns ErrClockRollback
//	GenerateOrResetCore  argument     resets
//
// The next ID is computed from the last one alone (and a renewed counter
// when a tick starts), before the compare-and-swap, so a goroutine that is
// preempted holds nobody up. Random numbers are drawn only when a tick
// starts.
//
// There is no way to mint an ID for a past time outside the stream (the other
// formats' NewAt): a SCRU64 ID is unique only through its node ID and
// counter, with too few random bits to tell apart two IDs minted for the same
// tick elsewhere. To backfill, give a Generator its own node ID and call
// [Generator.GenerateOrAbortCore] with the records' times in increasing
// order.
//
// The zero Generator has no node spec: every generating method returns
// [ErrNoNodeSpec]. Make one with [NewGenerator] or
// [NewGeneratorWithCounterMode].
type Generator struct {
	_           cpu.CacheLinePad
	prev        atomic.Uint64 // the last ID returned
	nodeBits    uint64        // node_id << counterSize
	counterMask uint64        // 2^counterSize - 1
	nodeID      uint32
	counterSize uint8
	// randomShift is how far the built-in counter mode shifts a 64-bit
	// random number right (see defaultCounterMode.shift); mode is nil then.
	randomShift uint8
	mode        CounterMode // a custom mode, or nil
	_           cpu.CacheLinePad
}

// NewGenerator returns a [Generator] for the node spec, with the default
// counter mode: a random counter at each tick, with one overflow guard bit
// (see [NewDefaultCounterMode]) when the node ID size is 20 or more. Given
// the zero [NodeSpec], which no parsing or constructor function returns, it
// returns a Generator without a node spec, as the zero Generator is, whose
// methods return [ErrNoNodeSpec].
func NewGenerator(spec NodeSpec) *Generator {
	return NewGeneratorWithCounterMode(spec, nil)
}

// NewGeneratorWithCounterMode is [NewGenerator] with a counter mode of the
// caller's choice; nil means NewGenerator's default. Given the zero
// [NodeSpec] it returns a [Generator] whose methods return [ErrNoNodeSpec].
func NewGeneratorWithCounterMode(spec NodeSpec, mode CounterMode) *Generator {
	if spec.IsZero() {
		return new(Generator)
	}
	counterSize := nodeCtrSize - spec.size
	g := &Generator{
		nodeID:      spec.NodeID(),
		counterSize: counterSize,
		counterMask: 1<<counterSize - 1,
	}
	g.nodeBits = uint64(g.nodeID) << counterSize
	g.prev.Store(uint64(spec.prev))
	switch m := mode.(type) {
	case nil:
		g.randomShift = defaultCounterMode{defaultGuardSize(spec.size)}.shift(counterSize)
	case defaultCounterMode:
		g.randomShift = m.shift(counterSize)
	default:
		g.mode = mode
	}
	return g
}

// NodeID returns the generator's node ID (0 for the zero [Generator]).
func (g *Generator) NodeID() uint32 { return g.nodeID }

// NodeIDSize returns the generator's node ID size in bits, 1 to 23, or 0
// for the zero [Generator].
func (g *Generator) NodeIDSize() uint8 {
	if g.counterSize == 0 {
		return 0
	}
	return nodeCtrSize - g.counterSize
}

// NodeSpec returns a node spec that continues after the last ID returned,
// or the generator's node ID if it has returned none. Saved and passed to
// [NewGenerator] in a later process, it keeps the stream increasing across a
// restart even if the clock has meanwhile moved back by up to the rollback
// allowance. It returns the zero NodeSpec for the zero [Generator].
func (g *Generator) NodeSpec() NodeSpec {
	if g.counterSize == 0 {
		return NodeSpec{}
	}
	return NodeSpec{prev: ID(g.prev.Load()), size: g.NodeIDSize()}
}

// Generate returns a new ID stamped with the system clock. It returns
// [ErrClockRollback], leaving the generator as it was, if the clock is more
// than [DefaultRollbackAllowance] behind the last ID, [ErrInvalidTimestamp] if
// the system clock reads before 1970-01-01T04:14:18.880Z or in the year
// 4261 or later, and [ErrNoNodeSpec] for the zero [Generator]. Generate does
// not allocate.
func (g *Generator) Generate() (ID, error) {
	return g.generate(0, DefaultRollbackAllowance, true)
}

// GenerateOrReset is Generate that, instead of returning [ErrClockRollback],
// resets the generator and goes on from the clock's timestamp with a
// renewed counter. Such an ID is smaller than earlier ones and, as the
// specification warns, may repeat one: prefer Generate or GenerateOrSleep
// unless the node ID changes too. Its errors are [ErrInvalidTimestamp], if
// the system clock reads before 1970-01-01T04:14:18.880Z or in the year
// 4261 or later, and [ErrNoNodeSpec] for the zero [Generator].
func (g *Generator) GenerateOrReset() (ID, error) {
	return g.next(wallClock.Millis(), DefaultRollbackAllowance, true)
}

// GenerateOrSleep is Generate that, instead of returning [ErrClockRollback],
// sleeps until the clock is back within [DefaultRollbackAllowance] of the
// last ID and then returns an ID. It waits after a large clock rollback
// (for as long as the rollback) and when a long burst has overflowed the
// counter so often that the IDs' timestamps ran ahead of the clock by more
// than the allowance. It checks the clock at least every 64 ms while
// waiting. Its errors are [ErrInvalidTimestamp], if the system clock reads
// before 1970-01-01T04:14:18.880Z or in the year 4261 or later, and
// [ErrNoNodeSpec] for the zero [Generator].
func (g *Generator) GenerateOrSleep() (ID, error) {
	for {
		id, err := g.Generate()
		if err != ErrClockRollback {
			return id, err
		}
		// The clock is within the allowance from the first millisecond of
		// the tick that many ticks before the last ID's.
		now := wallClock.Millis()
		catchUp := (g.prev.Load()>>nodeCtrSize - DefaultRollbackAllowance>>8) << 8
		wait := time.Duration(int64(catchUp)-int64(now)) * time.Millisecond
		time.Sleep(min(max(wait, time.Millisecond), maxSleep))
	}
}

// GenerateOrAbortCore returns the next ID for a caller-supplied Unix time in
// milliseconds (the timestamp is unixMillis >> 8), or [ErrClockRollback] if
// that timestamp is more than rollbackAllowance milliseconds (counted in
// whole 256-ms ticks, rollbackAllowance >> 8) behind the last ID's. On error
// the generator is left as it was. It returns [ErrInvalidTimestamp] for a
// time before 1970-01-01T04:14:18.880Z, a timestamp at or past
// [MaxTimestamp], or a counter overflow that would reach MaxTimestamp (those
// IDs are reserved), and [ErrNoNodeSpec] for the zero [Generator]. Given the
// same times and counter renewals it returns exactly the IDs of the
// specification's algorithm. It is safe for concurrent use, but times given
// out of order by several goroutines make an order of IDs that no clock
// would.
func (g *Generator) GenerateOrAbortCore(unixMillis, rollbackAllowance uint64) (ID, error) {
	return g.generate(unixMillis, rollbackAllowance, false)
}

// generate is Generate and GenerateOrAbortCore: with now set it reads the
// clock itself, so that both are one-line calls that inline. The common
// case comes first: the time is in the last ID's tick or a little behind
// it and the counter has room, so the next ID is the last one plus one. It
// is next's first case, with the same checks. The zero Generator never
// takes it: with counterMask 0 the counter always looks full.
func (g *Generator) generate(unixMillis, allowance uint64, now bool) (ID, error) {
	if now {
		// The clock read in inlined halves (see clock.Clock.TryMillisAt).
		mono := clock.Mono()
		var ok bool
		if unixMillis, ok = wallClock.TryMillisAt(mono); !ok {
			unixMillis = wallClock.MillisAt(mono)
		}
	}
	timestamp, prev := unixMillis>>8, g.prev.Load()
	if prev>>nodeCtrSize-timestamp <= allowance>>8 && timestamp >= MinTimestamp &&
		prev&g.counterMask != g.counterMask && prev>>nodeCtrSize < MaxTimestamp &&
		g.prev.CompareAndSwap(prev, prev+1) {
		return ID(prev + 1), nil
	}
	return g.next(unixMillis, allowance, false)
}

// GenerateOrResetCore is [Generator.GenerateOrAbortCore] that resets the
// generator instead of returning [ErrClockRollback]: it goes on from the
// given timestamp with a renewed counter. Its errors are
// [ErrInvalidTimestamp] and, for the zero [Generator], [ErrNoNodeSpec].
func (g *Generator) GenerateOrResetCore(unixMillis, rollbackAllowance uint64) (ID, error) {
	return g.next(unixMillis, rollbackAllowance, true)
}

// next is the one engine behind every generating method: the
// specification's algorithm run against the state word, with reset
// selecting the OrReset form. Every branch computes the next state from the
// loaded one; the swap publishes it, or fails because another goroutine got
// there first and the loop starts over from the state it left.
//
// Without a reset the state only grows, so a swap cannot succeed against a
// stale value that happens to match (no ABA). After a reset the state can
// pass through an old value again, but the specification accepts
// duplicates there anyway.
func (g *Generator) next(unixMillis, allowanceMillis uint64, reset bool) (ID, error) {
	if g.counterSize == 0 {
		// The zero Generator: without a node spec its IDs would carry
		// node ID 0 of no size, and its zero state would read as an ID.
		return 0, ErrNoNodeSpec
	}
	timestamp := unixMillis >> 8
	// One comparison for timestamp < MinTimestamp || timestamp >= MaxTimestamp.
	if timestamp-MinTimestamp >= MaxTimestamp-MinTimestamp {
		return 0, ErrInvalidTimestamp
	}
	allowance := allowanceMillis >> 8
	for {
		prev := g.prev.Load()
		prevTimestamp := prev >> nodeCtrSize
		var next uint64
		switch {
		case timestamp <= prevTimestamp && prevTimestamp-timestamp <= allowance:
			// The same tick, or a rollback within the allowance: count
			// on, unless the counter is full or the state is on the
			// reserved last tick (only a NodeSpec's previous ID can be).
			if prev&g.counterMask != g.counterMask && prevTimestamp < MaxTimestamp {
				next = prev + 1
				break
			}
			// Counter overflow: the timestamp moves on by one tick.
			if prevTimestamp+1 >= MaxTimestamp {
				return 0, ErrInvalidTimestamp
			}
			next = (prevTimestamp+1)<<nodeCtrSize | g.renew(prevTimestamp+1)
		case timestamp > prevTimestamp:
			// A new tick.
			next = timestamp<<nodeCtrSize | g.renew(timestamp)
		case reset:
			// A rollback beyond the allowance, in the OrReset form.
			next = timestamp<<nodeCtrSize | g.renew(timestamp)
		default:
			return 0, ErrClockRollback
		}
		if g.prev.CompareAndSwap(prev, next) {
			return ID(next), nil
		}
	}
}

// renew returns node_ctr for a new tick: the node ID and a renewed counter.
func (g *Generator) renew(timestamp uint64) uint64 {
	if g.mode == nil {
		return g.nodeBits | random.Uint64()>>g.randomShift
	}
	counter := g.mode.Renew(g.counterSize, RenewContext{Timestamp: timestamp, NodeID: g.nodeID})
	return g.nodeBits | uint64(counter)&g.counterMask
}
