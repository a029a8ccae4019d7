package scru128

import (
	"encoding/binary"
	"io"
	"sync"

	"github.com/fastid/scru128/internal/clock"
	"github.com/fastid/scru128/internal/entropy"
	"github.com/fastid/scru128/internal/epoch"
)

// DefaultRollbackAllowance is how far, in milliseconds, the clock may move
// back before [Generator.Generate] resets the generator (and
// [Generator.GenerateOrAbort] returns [ErrClockRollback]) instead of going on
// from the last timestamp.
const DefaultRollbackAllowance = 10_000

// renewalInterval is how long counter_hi lives, in milliseconds.
const renewalInterval = 1000

// Generator mints SCRU128 IDs as one monotonic stream. It is safe for
// concurrent use by any number of goroutines, takes no lock and does not
// allocate. IDs never repeat and are strictly increasing in real-time
// order across all goroutines and all methods (an ID returned before
// another call starts is smaller than that call's ID), with one exception
// the specification asks for: when the clock is more than the rollback
// allowance behind the last ID, [Generator.Generate], [Generator.Fill] and
// [Generator.GenerateOrResetCore] reset the generator, and IDs start again
// from the clock's time. The OrAbort methods return [ErrClockRollback]
// instead, and leave the generator as it was.
//
//	method                timestamp   beyond the rollback allowance
//	Generate, Fill        clock       resets the generator
//	GenerateOrAbort       clock       returns ErrClockRollback
//	GenerateOrResetCore   argument    resets the generator
//	GenerateOrAbortCore   argument    returns ErrClockRollback
//
// Fields follow the specification: counter_lo starts at a random value at
// each new millisecond and counts up; counter_hi is random, renewed when
// the timestamp has moved on by a second, and counts the overflows of
// counter_lo; entropy is fresh for every ID. When both counters overflow,
// the timestamp moves one millisecond ahead of the clock. Called one at a
// time, the core methods return exactly the specification's IDs (but for
// counter_hi renewed early after 254 overflows of counter_lo in a second);
// calls that overlap may see a renewal where the specification overflows
// counter_hi. The common case costs one atomic add.
//
// The zero Generator is ready for use, with the system clock and the
// default random source, like one from [NewGenerator].
type Generator struct {
	engine epoch.Engine
	clock  clock.Clock
	ent    entropy.Shared // random numbers when rng is nil
	mu     sync.Mutex     // serializes reads from rng
	rng    io.Reader
}

// How the state is kept.
//
// The state (timestamp, counter_hi, counter_lo and the time counter_hi was
// last renewed) is too big for one atomic word. It is kept in the words of
// package internal/epoch, whose doc states the snapshot rule, the order of
// writes, why that order is safe and what a format must check of late
// writes. An epoch starts at each renewal of counter_hi and at each
// overflow of counter_hi; within it the first timestamp, counter_hi's base
// and the time left until the next renewal are constant and live in the
// two cold words, and what changes per ID lives in the hot word:
//
//	hot:     tag (22) | delta (10) | carries (8) | counter_lo (24)
//	cold[0]: first timestamp (48)                              | tag (16)
//	cold[1]: headroom (8) | 0 (6) | window (10) | base (24)    | tag (16)
//
// timestamp = first timestamp + delta, and counter_hi = base + carries,
// where carries counts the overflows of counter_lo in the epoch. A renewal
// is due once the timestamp is 1000 ms past the last one, window ms past
// the epoch's first timestamp (window is 1000 in an epoch begun by a
// renewal, less in one begun by an overflow), so delta stays below window
// and every timestamp of an epoch is below the first one of the next
// (except after a reset). headroom = min(254, 2^24-1 - base) is how many
// overflows of counter_lo fit before counter_hi reaches its maximum or
// carries run out.
//
// The common case, the same millisecond with carries below headroom,
// reserves an ID with one atomic add of 1 to the hot word: counter_lo goes
// up, and its overflow carries into carries, which is exactly the
// specification's overflow into counter_hi. The add is accepted if its
// result has the loaded tag and delta and carries at most headroom. An add
// made some time after its load meets a later state: one of the same
// millisecond, which is an ID like any other, or one the check refuses,
// leaving a gap: a later millisecond or epoch, or a state whose carries
// pass headroom.
//
// A state whose carries pass headroom is sealed: no ID is minted from it.
// Refused adds leave one, after other calls used up the counters (counter_lo
// at its maximum with carries at headroom), and it stands for that state.
// A call that overflows counter_hi seals the state itself, by advancing
// the hot word from the used-up state by one, before it begins the
// overflow's epoch at the next millisecond: from a sealed state at
// counter_hi's maximum the only way on is that overflow, even for a call
// at a later millisecond, so no call can mint in the old epoch at or after
// the new one's first timestamp (the epoch doc's rule for starting an
// epoch). headroom is at most 254 so that a sealed state always fits in
// carries, and it takes 2^24 refused adds, each by a call in flight
// between its load and its add, to carry a sealed state into delta.
//
// An epoch change begun by one call can be finished by any other (package
// internal/epoch), which then writes cold[1] with a counter_hi base of its
// own drawing. A helper cannot tell a renewal from an overflow of
// counter_hi, so an overflow epoch finished by a helper gets a fresh random
// counter_hi and a window of 1000 ms, as if counter_hi had been renewed a
// little early: the order and the format hold, only the specification's
// counter_hi of 0 is replaced by a random one. Without concurrency no call
// ever helps.
//
// One case departs from the specification even one call at a time: more
// than 254 overflows of counter_lo within one epoch, that is about 2^32
// IDs within a second (or 254 new milliseconds in a second whose random
// counter_lo was drawn within a few values of its maximum). The generator
// then starts a new epoch early, at the time the next renewal is due,
// which keeps IDs unique and increasing.

// Layout of the hot word's per-ID part and of cold[1]'s payload.
const (
	loBits        = 24
	carryBits     = 8
	deltaBits     = 10
	carryShift    = loBits
	deltaShift    = carryShift + carryBits
	maxCarries    = 1<<carryBits - 1
	maxHeadroom   = maxCarries - 1 // so that a sealed state fits in carries
	counterMask   = MaxCounter
	windowShift   = 24
	headroomShift = 40
	coldWords     = 2
)

// The fields of the hot word's per-ID part and of cold[1]'s payload.
func deltaOf(hot uint64) uint64       { return hot >> deltaShift & (1<<deltaBits - 1) }
func carriesOf(hot uint64) uint64     { return hot >> carryShift & maxCarries }
func headroomOf(hiWord uint64) uint64 { return hiWord >> headroomShift }
func windowOf(hiWord uint64) uint64   { return hiWord >> windowShift & (1<<deltaBits - 1) }

// Bounds the layout relies on, checked by the compiler.
const (
	_ = uint64(deltaBits + carryBits + loBits - epoch.TagShift) // the per-ID part is full
	_ = uint64(epoch.TagShift - deltaBits - carryBits - loBits)
	_ = uint64(1<<deltaBits - renewalInterval)                // delta holds every offset below the renewal interval
	_ = uint64(epoch.PayloadBits - 48)                        // cold[0] holds a timestamp
	_ = uint64(epoch.PayloadBits - headroomShift - carryBits) // cold[1] holds headroom, window and base
	_ = uint64(headroomShift - windowShift - deltaBits)
)

// NewGenerator returns a [Generator] that takes its random numbers from
// ChaCha8 keyed from crypto/rand (see package internal/entropy for the
// scheme) and its time from the system clock.
func NewGenerator() *Generator {
	g := new(Generator)
	g.ent.Rekey()
	return g
}

// NewGeneratorWithRng returns a [Generator] that reads its random numbers from
// rng, 4 bytes per number, taken as a big-endian uint32. Reads are
// serialized, so the Generator stays safe for concurrent use even if rng is
// not. An error from rng is returned, wrapped, by the call that met it. A
// nil rng means the default source, as in [NewGenerator]. Use a
// cryptographically strong rng: the specification asks for one.
func NewGeneratorWithRng(rng io.Reader) *Generator {
	g := NewGenerator()
	g.rng = rng
	return g
}

// Generate returns a new ID. If the clock has moved back by more than
// [DefaultRollbackAllowance] since the last ID, it resets the generator and
// goes on from the current time, so that ID may be smaller than earlier ones.
// The error is non-nil only for a generator made with
// [NewGeneratorWithRng] whose rng failed, or if the system clock reads
// before 1970 or after [MaxTimestamp] ([ErrInvalidTimestamp]). Generate
// does not allocate.
func (g *Generator) Generate() (ID, error) {
	return g.generate(0, DefaultRollbackAllowance, epoch.Now)
}

// GenerateOrAbort is [Generator.Generate] that returns [ErrClockRollback],
// leaving the generator as it was, instead of resetting on a large clock
// rollback. The IDs it returns are always greater than all earlier ones.
func (g *Generator) GenerateOrAbort() (ID, error) {
	return g.generate(0, DefaultRollbackAllowance, epoch.Now|epoch.Abort)
}

// GenerateOrResetCore returns the next ID for a caller-supplied Unix
// timestamp in milliseconds, resetting the generator if timestamp is more
// than rollbackAllowance ms behind the last ID. Given the same timestamps
// and random bytes it returns exactly the IDs of the specification's
// algorithm. It returns [ErrInvalidTimestamp] for a timestamp of 0 or above
// [MaxTimestamp], or an allowance above MaxTimestamp. Calls from several
// goroutines keep the type's guarantees; give them readings of one clock
// that never goes back, since a call whose timestamp is more than the
// allowance behind the stream resets it.
func (g *Generator) GenerateOrResetCore(timestamp, rollbackAllowance uint64) (ID, error) {
	return g.generate(timestamp, rollbackAllowance, epoch.Reset)
}

// GenerateOrAbortCore is [Generator.GenerateOrResetCore] that returns
// [ErrClockRollback], leaving the generator as it was, when timestamp is
// more than rollbackAllowance ms behind the last ID.
func (g *Generator) GenerateOrAbortCore(timestamp, rollbackAllowance uint64) (ID, error) {
	return g.generate(timestamp, rollbackAllowance, epoch.Abort)
}

// Fill fills dst with new IDs, each greater than the one before, all minted
// from one clock reading. IDs from other goroutines may fall between them.
// On a large clock rollback it resets like Generate. On error (only from a
// failing rng) the IDs already written stay and the rest of dst is left
// as it was. Fill does not allocate.
//
// With the default random source, Fill takes up to 256 IDs with one
// compare-and-swap where Generate takes one atomic operation per ID.
func (g *Generator) Fill(dst []ID) error {
	return g.fill(dst, g.clock.Millis())
}

// maxRun bounds the IDs Fill takes at once, so that a run is well below
// the 2^24 values of counter_lo and overflows it at most once.
const maxRun = 256

func (g *Generator) fill(dst []ID, timestamp uint64) error {
	for len(dst) > 0 {
		if g.rng == nil {
			// With a caller's rng the draws must follow the specification's
			// order one ID at a time; the default source's need not.
			if n := g.takeRun(dst[:min(len(dst), maxRun)], timestamp); n > 0 {
				dst = dst[n:]
				continue
			}
		}
		id, err := g.generate(timestamp, DefaultRollbackAllowance, epoch.FromClock)
		if err != nil {
			return err
		}
		dst[0] = id
		dst = dst[1:]
	}
	return nil
}

// takeRun is generate's common case for len(run) IDs at once: in the same
// millisecond, with carries below headroom, moving the hot word on by
// len(run) takes that many consecutive values, exactly the IDs len(run)
// calls would get from the specification's algorithm with this timestamp
// (an overflow of counter_lo carries into carries, leaving a valid state
// as "How the state is kept" says). It moves the word by compare-and-swap from
// the loaded value, not by an add: an add could land on a later state,
// where only part of the run might be valid IDs. It returns
// len(run), or 0 without writing run if the common case does not hold or
// another call moved the word first.
func (g *Generator) takeRun(run []ID, timestamp uint64) int {
	if timestamp-1 >= MaxTimestamp {
		return 0 // generate returns the error
	}
	s := g.engine.Load(coldWords)
	startedAt, hiWord := s.Payload(0), s.Payload(1)
	if !countable(s, startedAt, hiWord, timestamp, DefaultRollbackAllowance) || !g.engine.Advance(s, s.Hot+uint64(len(run))) {
		return 0
	}
	for i := range run {
		putID(&run[i], startedAt, hiWord, s.Hot+1+uint64(i), uint32(g.ent.Uint64()))
	}
	return len(run)
}

// countable reports whether the state in s, whose cold payloads are
// startedAt and hiWord, goes on by counting at timestamp, generate's common
// case: s is consistent, its millisecond is
// timestamp's or at most allowance ahead of it (current - timestamp wraps
// to a huge value if timestamp is ahead), and carries are below headroom,
// so that counter_lo has room for an overflow.
func countable(s epoch.Snapshot, startedAt, hiWord, timestamp, allowance uint64) bool {
	return s.Consistent() && startedAt+deltaOf(s.Hot)-timestamp <= allowance && carriesOf(s.Hot) < headroomOf(hiWord)
}

// generate is the one engine behind every generating method: the
// specification's algorithm, run on the epoch words. m says where the
// timestamp comes from (the argument, or the clock read here) and what a
// large rollback does. Reading the clock here rather than in Generate
// keeps Generate a call that inlines into its caller, so the ID is written
// once, into the caller's result, rather than copied out of a wrapper. The
// common case comes first and takes one atomic add; the rest is in slow.
//
// The exported methods are one-line calls that inline into their callers,
// so generate's result is the caller's own variable. The ID is written into
// it before the add, as the value the add is expected to produce, and
// rewritten only if another goroutine's add came first. (An ID goes
// through memory however it is returned: two halves in registers would be
// cheaper, but a wrapper that assembles them does not fit the inlining
// budget, and a copy made by a wrapper that does not inline stalls on
// store forwarding.)
func (g *Generator) generate(timestamp, allowance uint64, m epoch.Mode) (id ID, err error) {
	if m&epoch.Now == epoch.Now {
		// The clock read in inlined halves (see clock.Clock.TryMillisAt).
		mono := clock.Mono()
		var ok bool
		if timestamp, ok = g.clock.TryMillisAt(mono); !ok {
			timestamp = g.clock.MillisAt(mono)
		}
	}
	if timestamp-1 >= MaxTimestamp || allowance > MaxTimestamp {
		return ID{}, ErrInvalidTimestamp
	}
	s := g.engine.Load(coldWords)
	startedAt, hiWord := s.Payload(0), s.Payload(1)
	var d draws // kept out of memory: nothing here takes its address
	if countable(s, startedAt, hiWord, timestamp, allowance) {
		if g.rng == nil {
			d.entropy = uint32(g.ent.Uint64())
		} else if d.entropy, err = g.draw(); err != nil {
			return ID{}, err
		}
		d.drawn = wantEntropy
		next := s.Hot + 1
		putID(&id, startedAt, hiWord, next, d.entropy)
		got := g.engine.Reserve(1)
		if got == next {
			return id, nil
		}
		// Another goroutine's add or advance came first: the reservation is
		// good if it has the loaded tag and delta (the difference is then
		// its carries; otherwise at least 2^8, or wrapped) and carries at
		// most headroom.
		if got>>carryShift-s.Hot>>deltaShift<<carryBits <= headroomOf(hiWord) {
			putID(&id, startedAt, hiWord, got, d.entropy)
			return id, nil
		}
	}
	return g.slow(timestamp, allowance, m, d)
}

// putID writes into *id the ID that the hot word's per-ID part stands for
// in the epoch whose cold payloads are startedAt and hiWord. It writes in
// place: an ID built in a temporary with two 8-byte stores and copied out
// with one 16-byte load stalls on store forwarding.
func putID(id *ID, startedAt, hiWord, hot uint64, entropy uint32) {
	timestamp := startedAt + deltaOf(hot)
	counterHi := (hiWord + carriesOf(hot)) & counterMask
	binary.BigEndian.PutUint64(id[0:8], timestamp<<16|counterHi>>8)
	binary.BigEndian.PutUint64(id[8:16], counterHi<<56|(hot&counterMask)<<32|uint64(entropy))
}

// perID packs the per-ID part of the hot word.
func perID(delta, carries, counterLo uint64) uint64 {
	return delta<<deltaShift | carries<<carryShift | counterLo
}

// hiWordOf packs cold[1]'s payload for a counter_hi base and a window.
func hiWordOf(base, window uint64) uint64 {
	return min(maxHeadroom, counterMask-base)<<headroomShift | window<<windowShift | base
}

// A move is what the specification's algorithm does next from a state.
type move uint8

const (
	moveCount    move = iota // counter_lo + 1, with any overflow into carries: hot + 1
	moveAdvance              // a new hot word in the same epoch
	moveStart                // a new epoch at a given timestamp, with a fresh counter_hi
	moveOverflow             // a new epoch at a given timestamp and window, with counter_hi 0
)

// plan is one step of the specification's algorithm from a consistent
// snapshot: what to do, and for moveAdvance the new delta and carries (with
// a fresh counter_lo to add) or for moveStart and moveOverflow the new
// epoch's first timestamp (and for moveOverflow its window).
type plan struct {
	move              move
	delta, carries    uint64
	timestamp, window uint64
}

// next returns the plan for timestamp from the state in s.
func next(s epoch.Snapshot, timestamp, allowance uint64, abort bool) (p plan, err error) {
	startedAt, hiWord := s.Payload(0), s.Payload(1)
	window, headroom := windowOf(hiWord), headroomOf(hiWord)
	delta, carries := deltaOf(s.Hot), carriesOf(s.Hot)
	current := startedAt + delta
	atMax := (hiWord+headroom)&counterMask == counterMask // counter_hi reaches its maximum at headroom
	switch {
	case timestamp > current && (startedAt == 0 || timestamp-startedAt >= window):
		// counter_hi is due a renewal (or was never drawn): a new epoch.
		return plan{move: moveStart, timestamp: timestamp}, nil
	case timestamp > current && (carries <= headroom || !atMax):
		// A new millisecond: counter_lo starts at random. Carries past
		// headroom stand for carries at headroom (see below).
		return plan{move: moveAdvance, delta: timestamp - startedAt, carries: min(carries, headroom)}, nil
	case timestamp > current || current-timestamp <= allowance:
		// The same millisecond, a rollback within the allowance, or a
		// new millisecond from a sealed state (below).
		if carries < headroom || carries == headroom && s.Hot&counterMask != counterMask {
			// counter_lo + 1, or its overflow into counter_hi.
			return plan{move: moveCount}, nil
		}
		// counter_lo is at its maximum and carries at headroom, or carries
		// are past headroom, which stands for the same: the state is
		// sealed. Adds that landed after other calls had used up the
		// counters leave a sealed state, and so does a call about to
		// overflow counter_hi, which seals the state before it begins the
		// overflow's epoch (see slow). From a sealed state at counter_hi's
		// maximum the only way on is that overflow, even at a new
		// millisecond: an advance to a later millisecond of this epoch,
		// made while another call's overflow epoch was being begun at
		// current+1, would mint IDs above that epoch's first ones.
		// headroom is at most maxHeadroom so that sealing always fits in
		// carries.
		switch {
		case !atMax:
			// counter_hi is below its maximum but out of carries: see
			// "How the state is kept" (the early epoch).
			if startedAt+window > MaxTimestamp {
				return p, ErrInvalidTimestamp
			}
			return plan{move: moveStart, timestamp: startedAt + window}, nil
		case current == MaxTimestamp:
			return p, ErrInvalidTimestamp
		case delta+1 < window:
			// counter_hi overflows too: the timestamp moves on by one, with
			// counter_hi 0 and a fresh counter_lo, in an epoch of its own.
			return plan{move: moveOverflow, timestamp: current + 1, window: window - delta - 1}, nil
		default:
			// ... and that timestamp is due a renewal.
			return plan{move: moveStart, timestamp: current + 1}, nil
		}
	case abort:
		return p, ErrClockRollback
	default:
		// A rollback beyond the allowance: start again from timestamp.
		return plan{move: moveStart, timestamp: timestamp}, nil
	}
}

// slow runs the specification's algorithm for the cases generate's fast
// path leaves: every step that needs a compare-and-swap, and the retries of
// a reservation that fell into a later epoch. d holds what the caller has
// drawn already.
//
// For a timestamp read from the clock, a state more than the allowance
// ahead is checked against a reading taken after the state was loaded
// before it counts as a rollback. Without that, a goroutine descheduled
// between its clock reading and its look at the state would reset the
// stream to its stale time, and two such goroutines could keep resetting
// each other's epochs.
func (g *Generator) slow(timestamp, allowance uint64, m epoch.Mode, d draws) (id ID, err error) {
	e := &g.engine
	for {
		s := e.Load(coldWords)
		if !s.Consistent() {
			if s.Changing() {
				if claimed, err := g.help(&id, s, timestamp, allowance, &d); claimed || err != nil {
					return id, err
				}
			}
			continue
		}
		if current := s.Payload(0) + deltaOf(s.Hot); m&epoch.FromClock != 0 &&
			timestamp < current && current-timestamp > allowance {
			// A clock reading taken before other calls minted later IDs is
			// stale, not a rollback (the call may have been descheduled
			// after reading the clock): only a reading taken after loading
			// this snapshot can show one, and it is compared with this
			// snapshot, which a reset then replaces only if it is still
			// the state.
			if timestamp = g.clock.Millis(); timestamp-1 >= MaxTimestamp {
				return ID{}, ErrInvalidTimestamp
			}
		}
		p, err := next(s, timestamp, allowance, m&epoch.Abort != 0)
		if err != nil {
			return ID{}, err
		}
		startedAt, hiWord := s.Payload(0), s.Payload(1)
		switch p.move {
		case moveCount:
			if err := d.take(g, wantEntropy); err != nil {
				return ID{}, err
			}
			if e.Advance(s, s.Hot+1) {
				putID(&id, startedAt, hiWord, s.Hot+1, d.entropy)
				return id, nil
			}
		case moveAdvance:
			if err := d.take(g, wantCounterLo|wantEntropy); err != nil {
				return ID{}, err
			}
			hot := s.Hot&^epoch.PerIDMask | perID(p.delta, p.carries, uint64(d.counterLo))
			if e.Advance(s, hot) {
				putID(&id, startedAt, hiWord, hot, d.entropy)
				return id, nil
			}
		case moveStart, moveOverflow:
			if p.move == moveOverflow && carriesOf(s.Hot) <= headroomOf(hiWord) {
				// Seal the state first (see next): once it is sealed, no
				// call can mint in this epoch, so the new epoch's first
				// timestamp, current+1, is above all of its IDs. Without
				// the seal another call could advance the hot word to a
				// later millisecond after this call moved cold[0] and
				// before it moved hot, and the overflow's IDs would come
				// after that call's in real time but below them.
				if !e.Advance(s, s.Hot+1) {
					continue
				}
				s.Hot++
			}
			want, newHiWord := wantCounterLo|wantEntropy, hiWordOf(0, p.window)
			if p.move == moveStart {
				want |= wantCounterHi
			}
			if err := d.take(g, want); err != nil {
				return ID{}, err
			}
			if p.move == moveStart {
				newHiWord = hiWordOf(uint64(d.counterHi), renewalInterval)
			}
			first := perID(0, 0, uint64(d.counterLo))
			r := e.Start(s, coldWords, [epoch.MaxCold]uint64{p.timestamp, newHiWord}, first)
			if r.Began && g.rng == nil {
				g.ent.Rekey() // once per epoch: about once a second
			}
			if r.Claimed {
				putID(&id, r.Payload[0], r.Payload[1], first, d.entropy)
				return id, nil
			}
		}
	}
}

// help finishes an epoch change another goroutine began (see epoch.Help)
// with a counter_hi base and a first counter_lo of its own, which are used
// up whether or not they land. It writes a renewal's cold[1] whatever
// began the epoch ("How the state is kept" says why that is safe). If its
// compare-and-swap moved the hot word, the epoch's first ID is the
// helper's to take, and it takes it, writing it to *id, when its call
// could have: timestamp at most allowance behind the epoch's first one.
// Otherwise that ID is skipped. Taking it is what keeps helping from
// going on without end: an epoch a helper finishes can need another
// epoch at once (counter_hi and counter_lo both drawn at their maximum).
func (g *Generator) help(id *ID, s epoch.Snapshot, timestamp, allowance uint64, d *draws) (claimed bool, err error) {
	if err := d.take(g, wantCounterLo|wantCounterHi); err != nil {
		return false, err
	}
	first := perID(0, 0, uint64(d.counterLo))
	r := g.engine.Help(s, coldWords, [epoch.MaxCold]uint64{1: hiWordOf(uint64(d.counterHi), renewalInterval)}, first)
	d.drawn &^= wantCounterLo | wantCounterHi
	if !r.Claimed || r.Payload[0]-timestamp > allowance {
		return false, nil
	}
	if err := d.take(g, wantEntropy); err != nil {
		return false, err
	}
	putID(id, r.Payload[0], r.Payload[1], first, d.entropy)
	return true, nil
}

// draws holds the random numbers a call has drawn. A compare-and-swap that
// fails publishes nothing, so a retry reuses what was drawn; drawing each
// number only when the algorithm needs it, in the order counter_lo,
// counter_hi, entropy, is what makes the core return the specification's
// IDs for the same byte stream.
type draws struct {
	counterLo, counterHi, entropy uint32
	drawn                         uint8 // which of the want bits hold a value
}

const (
	wantCounterLo uint8 = 1 << iota
	wantCounterHi
	wantEntropy
)

// take draws those of want that are not drawn yet, in the specification's
// order.
func (d *draws) take(g *Generator, want uint8) error {
	for _, w := range [...]uint8{wantCounterLo, wantCounterHi, wantEntropy} {
		if want&w == 0 || d.drawn&w != 0 {
			continue
		}
		r, err := g.draw()
		if err != nil {
			return err
		}
		switch w {
		case wantCounterLo:
			d.counterLo = r & counterMask
		case wantCounterHi:
			d.counterHi = r & counterMask
		default:
			d.entropy = r
		}
		d.drawn |= w
	}
	return nil
}

// draw returns 32 random bits.
func (g *Generator) draw() (uint32, error) {
	if g.rng == nil {
		return uint32(g.ent.Uint64()), nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return readUint32(g.rng)
}
