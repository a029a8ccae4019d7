// Package epoch is the lock-free state machine behind the ordered
// generators (scru128.Generator and ulid.Generator): one stream of IDs,
// shared by any number of goroutines, whose state is too big for one atomic
// word. The formats supply their fields; the words, the order they are
// written in and the rule for reading them consistently live here once.
//
// # The words
//
// The state is split by how often each part changes. An epoch is a stretch
// of the stream in which the slowly changing part is constant (for SCRU128
// the time counter_hi was renewed and its random base, about a second; for
// ULID the millisecond and its random base). That part lives in up to three
// cold words, written once per epoch; everything that changes per ID lives
// in the hot word:
//
//	hot:     epoch tag (22) | per-ID part (42)
//	cold[i]: payload i (48) | low 16 bits of the epoch tag
//
// The tag numbers epochs. The format decides what the per-ID part and the
// payloads mean; an ID is a function of one epoch's cold payloads and one
// hot value of that epoch.
//
// # Transitions
//
//	reserve  hot += k                                  atomic add, never fails
//	advance  hot: (t, x) -> (t, x') with x' > x        compare-and-swap
//	start    cold[0]:   (p0, t) -> (p0', t+1)          compare-and-swap, by the starter
//	         cold[1..]: (pi, t) -> (pi', t+1)          compare-and-swap, starter or helper
//	         hot:       (t, x)  -> (t+1, x0)           compare-and-swap, starter or helper, last
//
// A reserve or an advance whose result belongs to the loaded epoch claims
// the ID of its result. The call that moves hot into a new epoch, the
// starter or a helper, claims the ID of x0; a helper may also skip it,
// which costs nothing.
//
// # Invariants
//
//  1. Each word moves from tag t only to tag t+1, by a compare-and-swap
//     from a value read with tag t: cold[0] first, then the other cold
//     words, then hot, which moves only once every cold word carries t+1.
//     So when hot carries tag t, every cold word carries t or later.
//  2. A word carries each tag value once until the tags wrap, and its
//     payload is fixed while it carries it: the first compare-and-swap
//     into tag t wins and every later one fails.
//  3. Within an epoch the hot word only grows: reserves add, advances move
//     to larger values. So a compare-and-swap on hot cannot succeed
//     against a value that was read earlier in the same epoch and has
//     since changed (no ABA within an epoch).
//
// # The snapshot rule
//
// Load reads hot first and then the cold words in the reverse of the order
// they are written, cold[0] last. If cold[0] carries hot's tag, every cold
// word read before it carried that tag too (by invariant 1 nothing moves to
// the next tag before cold[0] does, and by the same invariant hot's tag
// means they had all reached it), and by invariant 2 their payloads are
// that epoch's. One comparison therefore proves the whole snapshot belongs
// to one epoch. If cold[0] carries the next tag, an epoch change is under
// way and the caller helps finish it (Help) before reading again; anything
// else means the reads spanned more than one change, and the caller reads
// again.
//
// # Why the write orders are safe
//
// A reservation is accepted only if the value the add returned carries the
// loaded tag, so it belongs to the loaded epoch and pairs with the loaded
// cold payloads; an add that lands in a later epoch only leaves a gap in
// that epoch's counter. A starter cannot lose its epoch to a stale helper:
// helpers move a cold word only from a value carrying hot's old tag, and
// hot only once all cold words carry the new one (invariant 1), so a helper
// that stalled and woke in a later epoch fails every compare-and-swap. The
// starter and each helper read the cold payloads back after their writes
// (another call may have written one of them first) and before their
// compare-and-swap on hot; only the call whose compare-and-swap moved hot
// claims the first ID, built from those payloads, which are the epoch's
// because no later epoch can begin before hot has moved. That a helper can
// claim it matters to a format whose epochs can begin in a state that
// needs another epoch at once: each change then completes some call, so
// helping cannot go on forever without any call returning.
//
// Every argument above orders atomic operations of different goroutines,
// and relies on Go's sync/atomic operations being sequentially consistent
// (the Go memory model: they behave as if executed in one total order that
// every goroutine observes).
//
// # Late writes: what the formats must check
//
// A call writes some time after it loaded the words, and by then other
// calls may have moved them. The engine makes three kinds of late write
// harmless by itself and leaves one to the formats:
//
//   - A late compare-and-swap (Advance, and each step of Start and Help)
//     fails if its word moved: invariants 2 and 3.
//   - A late Start or Help cannot move a word of a later epoch (above).
//   - A late Reserve always succeeds, and lands on whatever state the hot
//     word has reached. Its result is checked by the format (below).
//   - A Start's cold[0] write fixes the new epoch's payloads, computed
//     from the starter's snapshot, but the old epoch goes on until the hot
//     word moves: calls that loaded it before cold[0] moved can still
//     reserve and advance in it. So a format must begin an epoch only at a
//     point above every ID the old epoch can still mint. Two ways do:
//     begin above the old epoch's whole range (a later millisecond than
//     any in it), or first move the hot word, by Advance, to a state from
//     which the format mints nothing more in that epoch (a sealed state),
//     and begin the epoch from that snapshot. The Advance fails if anyone
//     moved the hot word in between, and once it succeeds no call can move
//     it on except by the new epoch (late reserves still add to it, and
//     the format refuses what they produce).
//
// The per-ID part of the hot word is a stack of fields that a reserve can
// carry through: the lowest counts IDs, and an overflow carries into the
// next, up to the tag. For each field a late reserve can carry into, the
// format states why the result is either an ID it may mint (the loaded
// epoch's, at the loaded millisecond, within its limits: checked on every
// reserve that did not get the value it expected) or a state no ID is
// minted from, and how many late reserves, each by a different call in
// flight between its Load and its Reserve, it would take to carry further:
//
//   - SCRU128 (hot: delta | carries | counter_lo): an overflow of counter_lo
//     into carries is the specification's overflow into counter_hi, valid
//     while carries stay at most headroom (at most 254, below carries'
//     maximum). A state with carries past headroom is sealed: no ID is
//     minted from it, and only an epoch start moves it on. Carrying out of
//     carries into delta (a later millisecond) takes 2^24 late reserves
//     on one sealed state; into the tag, 2^42 in all.
//   - ULID (hot: count): counts stop at 2^41 (ErrMonotonicOverflow), 2^41
//     late reserves below the tag.
//
// # Bounds
//
// Tags are compared modulo 2^22 in hot and modulo 2^16 in the cold words.
// A goroutine that stalls between its Load and its add or compare-and-swap
// while 2^22 epochs pass could find its tag again (ABA). Epochs cannot
// start faster than calls are made; with a real clock they last a second
// (SCRU128) or a millisecond (ULID), so that takes weeks or 70 minutes of
// one goroutine never being scheduled while others mint without pause. An
// overflow of SCRU128's counter_hi also begins an epoch: with random
// draws that takes about 2^24 IDs, but an rng that keeps drawing counters
// at their maximum can make every few calls begin one, and then the bound
// is 2^22 epochs of calls.
//
// # The zero state
//
// All words zero is a consistent snapshot of epoch 0 with zero payloads;
// each format treats it as "nothing minted yet", so the zero [Engine] is
// ready for use.
package epoch

import (
	"sync/atomic"

	"golang.org/x/sys/cpu"
)

const (
	// TagBits is the width of the epoch tag in the hot word.
	TagBits = 22
	// TagShift is where the tag starts in the hot word.
	TagShift = 64 - TagBits
	// PerIDMask selects the per-ID part of the hot word.
	PerIDMask = 1<<TagShift - 1
	// ColdTagBits is the width of the tag in a cold word.
	ColdTagBits = 16
	// ColdTagMask selects the tag of a cold word.
	ColdTagMask = 1<<ColdTagBits - 1
	// PayloadBits is the width of a cold word's payload.
	PayloadBits = 64 - ColdTagBits
	// MaxCold is the most cold words an [Engine] holds.
	MaxCold = 3

	tagMask = 1<<TagBits - 1
)

// The layout must fill the words exactly.
const (
	_ = uint64(TagBits + TagShift - 64)
	_ = uint64(64 - TagBits - TagShift)
	_ = uint64(TagBits - ColdTagBits) // the cold tag is the hot tag's low bits
)

// Engine holds the words. The hot word has a cache line of its own; the
// cold words share the next one, which is read on every call and written
// once per epoch, so it stays in every core's cache. A format's Generator
// embeds an Engine first and may put its own read-mostly fields after it.
// The zero Engine is ready for use.
type Engine struct {
	_    cpu.CacheLinePad
	hot  atomic.Uint64
	_    cpu.CacheLinePad
	cold [MaxCold]atomic.Uint64
	hook func(Point) // test only: see SetHook
}

// Snapshot is the words as Load read them. It is four scalar fields, not
// an array, so that the compiler keeps a snapshot in registers: an array
// lives in memory, and copying one made of 8-byte stores with 16-byte
// loads stalls on store forwarding. Its methods take it by value for the
// same reason.
type Snapshot struct {
	Hot                 uint64
	cold0, cold1, cold2 uint64
}

// Cold returns cold word i as loaded.
func (s Snapshot) Cold(i int) uint64 {
	switch i {
	case 0:
		return s.cold0
	case 1:
		return s.cold1
	}
	return s.cold2
}

// Tag returns the epoch tag of the snapshot's hot word.
func (s Snapshot) Tag() uint64 { return s.Hot >> TagShift }

// PerID returns the per-ID part of the snapshot's hot word.
func (s Snapshot) PerID() uint64 { return s.Hot & PerIDMask }

// Payload returns the payload of cold word i.
func (s Snapshot) Payload(i int) uint64 { return s.Cold(i) >> ColdTagBits }

// Consistent reports whether the snapshot belongs to one epoch (the
// snapshot rule in the package comment).
func (s Snapshot) Consistent() bool {
	return s.cold0&ColdTagMask == s.Hot>>TagShift&ColdTagMask
}

// Changing reports whether the snapshot shows an epoch change under way:
// cold[0] carries the tag after hot's.
func (s Snapshot) Changing() bool {
	return s.cold0&ColdTagMask == (s.Hot>>TagShift+1)&ColdTagMask
}

// Load reads the hot word and then cold words n-1 down to 0, the order the
// snapshot rule needs. n is 1 to [MaxCold], a constant at every call site, so
// that the unused loads compile away.
func (e *Engine) Load(n int) (s Snapshot) {
	s.Hot = e.hot.Load()
	if n > 2 {
		if HooksEnabled {
			e.at(Loading, 2)
		}
		s.cold2 = e.cold[2].Load()
	}
	if n > 1 {
		if HooksEnabled {
			e.at(Loading, 1)
		}
		s.cold1 = e.cold[1].Load()
	}
	if HooksEnabled {
		e.at(Loading, 0)
	}
	s.cold0 = e.cold[0].Load()
	return s
}

// Reserve adds k to the hot word and returns the value it produced. The
// reservation is the caller's if that value carries the snapshot's tag
// (Owns) and passes the format's own checks; otherwise it is abandoned,
// leaving a gap.
func (e *Engine) Reserve(k uint64) uint64 {
	if HooksEnabled {
		e.at(Reserving, 0)
	}
	return e.hot.Add(k)
}

// Owns reports whether got, a value Reserve returned, belongs to the epoch
// of s.
func (s Snapshot) Owns(got uint64) bool { return got>>TagShift == s.Hot>>TagShift }

// Advance moves the hot word from the snapshot's value to next, which must
// be a larger value with the same tag, and reports whether it did.
func (e *Engine) Advance(s Snapshot, next uint64) bool {
	e.at(Advancing, 0)
	return e.hot.CompareAndSwap(s.Hot, next)
}

// Started is what Start or Help did.
type Started struct {
	// Began reports that this call moved cold[0]: it began the epoch.
	Began bool
	// Claimed reports that this call moved the hot word: the ID of the new
	// epoch's first per-ID part is the caller's.
	Claimed bool
	// Payload holds the cold payloads in effect in the new epoch when
	// Claimed is set (another call may have written one of them first).
	Payload [MaxCold]uint64
}

// Start begins the epoch after the snapshot's, which must be consistent,
// with the given cold payloads (each below 2^48) and the per-ID part
// perID: it moves cold[0], then cold[1..n-1], then the hot word, each by
// compare-and-swap from the snapshot's value. If cold[0] has moved since
// the snapshot, nothing is written.
func (e *Engine) Start(s Snapshot, n int, payload [MaxCold]uint64, perID uint64) (r Started) {
	tag := (s.Hot>>TagShift + 1) & tagMask
	coldTag := tag & ColdTagMask
	e.at(StartingCold, 0)
	if !e.cold[0].CompareAndSwap(s.cold0, payload[0]<<ColdTagBits|coldTag) {
		return r
	}
	r.Began = true
	r.Payload[0] = payload[0]
	for i := 1; i < n; i++ {
		e.at(StartingCold, i)
		e.cold[i].CompareAndSwap(s.Cold(i), payload[i]<<ColdTagBits|coldTag)
		// A helper may have moved the word first, with its own payload.
		w := e.cold[i].Load()
		if w&ColdTagMask != coldTag {
			return r // a later epoch has begun: this one is over
		}
		r.Payload[i] = w >> ColdTagBits
	}
	e.at(StartingHot, 0)
	r.Claimed = e.hot.CompareAndSwap(s.Hot, tag<<TagShift|perID)
	return r
}

// Help finishes the epoch change that the snapshot shows under way
// (Changing): it moves each cold word from 1 to n-1 that still carries the
// hot word's tag to the given payload, and then the hot word to the per-ID
// part perID. payload[0] is not used. Began is never set; Claimed reports
// that this call moved the hot word, and Payload then holds the new
// epoch's cold payloads (the ID of perID is the caller's to take or skip).
//
// The words were read one after another: a goroutine that stalled between
// its reads may hold cold words of a newer epoch, and writing such a word
// back would move it to an old tag. Only a word read with hot's tag moves.
//
// The compare-and-swap on hot expects the snapshot's value, with the old
// tag. If it succeeds, hot had not moved, so no later epoch had begun
// either (beginning one needs a consistent snapshot of this one), and each
// cold word, read with the old tag or the new one and moved from the old
// one if need be, carries the new tag: invariant 1 holds without checking
// the words again.
//
// As in Start, the payloads are read back after the cold words are moved
// and before hot is: a later epoch cannot begin before hot moves, so if
// the compare-and-swap on hot succeeds they are still the new epoch's.
func (e *Engine) Help(s Snapshot, n int, payload [MaxCold]uint64, perID uint64) (r Started) {
	oldTag := s.Hot >> TagShift & ColdTagMask
	tag := (s.Hot>>TagShift + 1) & tagMask
	coldTag := tag & ColdTagMask
	r.Payload[0] = s.Payload(0)
	for i := 1; i < n; i++ {
		if s.Cold(i)&ColdTagMask == oldTag {
			e.at(HelpingCold, i)
			e.cold[i].CompareAndSwap(s.Cold(i), payload[i]<<ColdTagBits|coldTag)
		}
		w := e.cold[i].Load()
		if w&ColdTagMask != coldTag {
			return Started{} // a later epoch has begun: this change is over
		}
		r.Payload[i] = w >> ColdTagBits
	}
	e.at(HelpingHot, 0)
	if !e.hot.CompareAndSwap(s.Hot, tag<<TagShift|perID) {
		return Started{}
	}
	r.Claimed = true
	return r
}

// Mode says where a generating call's timestamp comes from and what a
// rollback beyond the allowance does, for the formats' generate functions.
type Mode uint8

const (
	// Reset starts the stream again from the timestamp after a rollback
	// beyond the allowance.
	Reset Mode = 0
	// Abort returns the format's ErrClockRollback instead, leaving the
	// state as it was.
	Abort Mode = 1 << 0
	// FromClock says the timestamp is a clock reading: a state more than
	// the allowance ahead of it counts as a rollback only after a second
	// reading, taken after the state was seen, confirms it (a call
	// descheduled after reading the clock holds a stale reading, not a
	// rolled-back clock).
	FromClock Mode = 1 << 1
	// Now has the generate function read the clock itself, so that the
	// exported methods stay one-line calls that inline.
	Now Mode = 1<<2 | FromClock
)

// Step names a point between the engine's steps at which a test hook runs.
// Each is a point after the call has loaded the words and before it writes
// one, which is where another call's writes can come between.
type Step uint8

// The steps, in the order a call meets them.
const (
	Loading      Step = iota // before Load reads cold word Point.Word
	Reserving                // before Reserve's add
	Advancing                // before Advance's compare-and-swap
	StartingCold             // before Start moves cold word Point.Word
	StartingHot              // before Start moves the hot word
	HelpingCold              // before Help moves cold word Point.Word
	HelpingHot               // before Help moves the hot word
)

// Point is where a call is when the test hook runs.
type Point struct {
	Step Step
	Word int // the cold word, for the steps that move one
}

// at runs the test hook, if any. Without the epochhooks build tag it is
// empty.
func (e *Engine) at(step Step, word int) {
	if HooksEnabled && e.hook != nil {
		e.hook(Point{step, word})
	}
}

// Words returns the words without the snapshot rule's order and without
// running the test hook, for tests that watch the state between steps.
func (e *Engine) Words() Snapshot {
	return Snapshot{e.hot.Load(), e.cold[0].Load(), e.cold[1].Load(), e.cold[2].Load()}
}

// SetHook installs f to run at every step of every call, for tests that
// drive several calls through chosen interleavings; nil removes it. Hooks
// run only in builds with the epochhooks build tag ([HooksEnabled]). It must
// not be called while the [Engine] is in use.
func (e *Engine) SetHook(f func(Point)) { e.hook = f }
