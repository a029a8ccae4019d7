package ulidflake

import (
	"encoding/binary"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/cpu"

	"github.com/fastid/scru128/internal/clock"
	"github.com/fastid/scru128/internal/entropy"
	"github.com/fastid/scru128/internal/interop"
)

// DefaultMaxStep is the default largest step of the random part within a
// millisecond: steps are drawn uniformly from [1, 255], as the reference
// implementation's one byte of entropy gives.
const DefaultMaxStep = 255

// maxEpochMillis bounds the epoch [WithEpoch] accepts, 2^48-1 ms after 1970
// (in the year 10889), so that clock readings minus the epoch never
// overflow.
const maxEpochMillis = 1<<48 - 1

// Generator mints Ulid-Flake IDs as one monotonic stream. It is safe for
// concurrent use by any number of goroutines, takes no lock and does not
// allocate: the whole state is the last ID, one atomic word, and every ID
// is reserved by one compare-and-swap on it. Because that word only ever
// grows, a stale compare-and-swap cannot succeed (no ABA), and IDs are
// strictly increasing in real-time order across all goroutines.
//
// At a new millisecond the random part starts at a random value; within the
// same millisecond it grows by a random step in [1, max step]. When it would
// pass its width (20 bits, or 15 in the scalable version),
// [Generator.Generate] returns [ErrMonotonicOverflow] and
// [Generator.GenerateOrWait] waits for the next millisecond. A clock that
// reads an earlier millisecond than the last ID's yields [ErrClockRollback]
// from Generate; GenerateOrWait waits for it to catch up.
//
// The zero Generator is usable, and the same as one from [NewGenerator] with
// no options: stand-alone, the default epoch and step, random numbers from
// ChaCha8 keyed from crypto/rand. A Generator must not be copied after
// first use.
type Generator struct {
	_ cpu.CacheLinePad
	// state is the last ID plus one, so that the zero state means no ID
	// yet: IDs are below 2^63, so the sum never wraps.
	state atomic.Uint64
	_     cpu.CacheLinePad
	// epochOffset is the epoch less the default epoch, in ms: 0 for the
	// default, so the zero [Generator] has it.
	epochOffset   int64
	shift         uint   // 0 stand-alone, 5 scalable: where the random part starts
	scalabilityID uint64 // in the low 5 bits when scalable
	maxStep       uint64 // 0 means DefaultMaxStep
	clock         clock.Clock
	shared        entropy.Shared // random numbers when rng is nil
	mu            sync.Mutex     // serializes reads from rng
	rng           io.Reader
}

// Option configures a [Generator]; see [NewGenerator].
type Option func(*Generator) error

// WithEpoch sets the epoch, the time of timestamp 0 (truncated to the
// millisecond). The default is 2024-01-01T00:00:00Z. An epoch before 1970
// or after the year 10889 is [ErrInvalidOption]. IDs keep no record of their
// epoch: read them with the same one ([Generator.Time]).
func WithEpoch(epoch time.Time) Option {
	return func(g *Generator) error {
		ms, ok := interop.UnixMillis(epoch, 0, maxEpochMillis)
		if !ok {
			return fmt.Errorf("%w: epoch %v outside 1970 to 10889", ErrInvalidOption, epoch)
		}
		g.epochOffset = ms - DefaultEpochMillis
		return nil
	}
}

// WithScalabilityID makes the generator mint scalable IDs: 15 random bits
// followed by id, which must be at most [MaxScalabilityID] ([ErrInvalidOption]
// otherwise). Give each generating node its own id.
func WithScalabilityID(id uint8) Option {
	return func(g *Generator) error {
		if id > MaxScalabilityID {
			return fmt.Errorf("%w: scalability ID %d above %d", ErrInvalidOption, id, MaxScalabilityID)
		}
		g.shift, g.scalabilityID = scalableBits, uint64(id)
		return nil
	}
}

// WithMaxStep sets the largest step of the random part within a
// millisecond, from 1 (a plain counter, the most IDs per millisecond) to
// 65535 (the hardest to guess); [ErrInvalidOption] otherwise. The default is
// [DefaultMaxStep].
func WithMaxStep(n uint32) Option {
	return func(g *Generator) error {
		if n == 0 || n > 1<<16-1 {
			return fmt.Errorf("%w: max step %d outside [1, 65535]", ErrInvalidOption, n)
		}
		g.maxStep = uint64(n)
		return nil
	}
}

// WithRng makes the generator read its random numbers from rng, 4 bytes
// per number, taken as a big-endian uint32: the random part of a new
// millisecond is its low bits, and a step is 1 + floor(n*maxStep/2^32).
// Reads are serialized, so the [Generator] stays safe for concurrent use
// even if rng is not. An error from rng is returned, wrapped, by the call
// that met it; a reader that keeps returning no bytes is such an error
// after a hundred tries in a row, so no call waits forever holding the
// lock. A nil rng means the default, ChaCha8 keyed from crypto/rand.
func WithRng(rng io.Reader) Option {
	return func(g *Generator) error {
		g.rng = rng
		return nil
	}
}

// NewGenerator returns a stand-alone [Generator] with the default epoch and
// step, changed by opts. It returns an error wrapping [ErrInvalidOption] for
// an option out of range.
func NewGenerator(opts ...Option) (*Generator, error) {
	g := new(Generator)
	for _, opt := range opts {
		if err := opt(g); err != nil {
			return nil, err
		}
	}
	if g.rng == nil {
		g.shared.Rekey()
	}
	return g, nil
}

// epochMillis returns the epoch in Unix milliseconds.
func (g *Generator) epochMillis() int64 { return DefaultEpochMillis + g.epochOffset }

// randomMask returns the random part's largest value: 20 bits, or 15 when
// scalable.
func (g *Generator) randomMask() uint64 { return randomMask >> g.shift }

// Epoch returns the generator's epoch.
func (g *Generator) Epoch() time.Time { return time.UnixMilli(g.epochMillis()).UTC() }

// Time returns the time of id's timestamp counted from the generator's
// epoch, in UTC.
func (g *Generator) Time(id ID) time.Time { return id.TimeWithEpoch(g.Epoch()) }

// Generate returns a new ID with the current time. It returns
// [ErrMonotonicOverflow] if the random part cannot grow within this
// millisecond, [ErrClockRollback] if the clock reads earlier than the last
// ID, [ErrInvalidTimestamp] if it reads before the epoch or more than
// [MaxTimestamp] ms after it, and the rng's error for a generator given
// [WithRng]. It does not allocate.
func (g *Generator) Generate() (ID, error) {
	timestamp, err := g.now()
	if err != nil {
		return 0, err
	}
	return g.next(timestamp, true)
}

// GenerateOrWait is [Generator.Generate] that waits instead of failing where
// waiting helps: when the random part overflows it waits for the clock to
// reach the next millisecond, and when the clock reads earlier than the last
// ID (a rollback) it waits for the clock to catch up, for as long as the
// rollback, checking at least every 64 ms. It never returns
// [ErrMonotonicOverflow] or [ErrClockRollback]; its other errors are
// Generate's.
func (g *Generator) GenerateOrWait() (ID, error) {
	for {
		timestamp, err := g.now()
		if err != nil {
			return 0, err
		}
		id, err := g.next(timestamp, true)
		if err != ErrMonotonicOverflow && err != ErrClockRollback {
			return id, err
		}
		// Wait until the clock passes the last ID's millisecond (after an
		// overflow) or reaches it (after a rollback, when that millisecond
		// can still take a step). A clock error ends the wait, and the
		// next attempt returns it.
		rollback := err == ErrClockRollback
		for {
			last := (g.state.Load() - 1) >> randomBits
			now, err := g.now()
			if err != nil || now > last || rollback && now == last {
				break
			}
			// Overflows are rare with the default step and last under a
			// millisecond; a rollback can last longer.
			time.Sleep(min(max(time.Duration(last-now)*time.Millisecond, 50*time.Microsecond), 64*time.Millisecond))
		}
	}
}

// GenerateCore returns the next ID for a caller-supplied timestamp in
// milliseconds since the generator's epoch. It returns [ErrInvalidTimestamp]
// above [MaxTimestamp] and otherwise fails as [Generator.Generate] does.
// Given the same timestamps and random bytes it returns exactly the IDs of
// the specification's algorithm.
func (g *Generator) GenerateCore(timestamp uint64) (ID, error) {
	if timestamp > MaxTimestamp {
		return 0, ErrInvalidTimestamp
	}
	return g.next(timestamp, false)
}

// now returns the clock's time in milliseconds since the epoch.
func (g *Generator) now() (uint64, error) {
	ms := int64(g.clock.Millis()) - g.epochMillis()
	if ms < 0 || ms > MaxTimestamp {
		return 0, ErrInvalidTimestamp
	}
	return uint64(ms), nil
}

// draw returns 32 random bits.
func (g *Generator) draw() (uint64, error) {
	if g.rng == nil {
		return g.shared.Uint64() & (1<<32 - 1), nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	var b [4]byte
	if err := entropy.ReadFull(g.rng, b[:]); err != nil {
		return 0, fmt.Errorf("ulidflake: reading random bytes: %w", err)
	}
	return uint64(binary.BigEndian.Uint32(b[:])), nil
}

// next is the specification's algorithm on the one state word. Each
// attempt draws the one random number it needs (a fresh random part or a
// step), none for a rollback; a swap that fails publishes nothing, and the
// retry draws again.
//
// With fromClock set, timestamp is a clock reading, and a last ID ahead of
// it is not yet a rollback: another goroutine may have read the clock
// later and minted first. The clock is read again after that ID was seen,
// and only a reading still behind it is [ErrClockRollback]: that ID's
// timestamp was itself read from the clock before it was seen.
func (g *Generator) next(timestamp uint64, fromClock bool) (ID, error) {
	maxStep := g.maxStep
	if maxStep == 0 {
		maxStep = DefaultMaxStep
	}
	for {
		state := g.state.Load()
		last := state - 1 // meaningless when state is 0
		lastTimestamp := last >> randomBits
		fresh := state == 0 || timestamp > lastTimestamp
		if !fresh && timestamp < lastTimestamp {
			if !fromClock {
				return 0, ErrClockRollback
			}
			now, err := g.now()
			if err != nil {
				return 0, err
			}
			if now < lastTimestamp {
				return 0, ErrClockRollback
			}
			timestamp = now
			continue
		}
		if state == 0 && g.rng == nil {
			// The zero Generator's first ID: key the shared source, which
			// NewGenerator has done already.
			g.shared.Rekey()
		}
		r, err := g.draw()
		if err != nil {
			return 0, err
		}
		random := r & g.randomMask()
		if !fresh {
			// The same millisecond. Lemire's multiply-shift maps r onto
			// [0, maxStep) without a division; the bias is below
			// maxStep/2^32.
			random = last&randomMask>>g.shift + 1 + r*maxStep>>32
			if random > g.randomMask() {
				return 0, ErrMonotonicOverflow
			}
		}
		next := timestamp<<randomBits | random<<g.shift | g.scalabilityID
		if g.state.CompareAndSwap(state, next+1) {
			if g.rng == nil && fresh && state != 0 && lastTimestamp/1000 != timestamp/1000 {
				g.shared.Rekey() // at most once a second
			}
			return ID(next), nil
		}
	}
}

// defaultGenerator backs [New] and [NewString]: stand-alone, default epoch and
// step.
var defaultGenerator Generator

// New returns a new stand-alone ID with the default epoch from a
// package-level [Generator], strictly increasing in call order across all
// goroutines. It never returns an error: it waits for the next millisecond if
// the random part overflows, and for the clock to catch up if it moved back
// ([Generator.GenerateOrWait]). It panics only if the system clock reads
// before the default epoch (2024) or more than [MaxTimestamp] ms after it
// (about the year 2302), which no ID of this epoch can represent. For another
// epoch or a scalability ID, use a Generator; for the errors instead of the
// waits, [Generator.Generate].
func New() ID {
	id, err := defaultGenerator.GenerateOrWait()
	if err != nil {
		panic(err)
	}
	return id
}

// NewString returns the 13-digit text of New(). It makes one allocation,
// the string.
func NewString() string { return New().String() }

// NewAt returns a stand-alone ID whose timestamp is t, counted in
// milliseconds from the default epoch, and whose 20-bit random part is
// fresh, as the generator draws it at a new millisecond. It is for
// backfilling records with IDs of their own times. The ID is not from any
// stream: IDs of different milliseconds sort by time, but IDs of the same
// millisecond are unique by their 20 random bits only (so a millisecond
// holds few before two are likely to collide: about 1,200 for an even
// chance) and in no particular order. It returns [ErrOutOfRange] for a time
// before the default epoch or more than [MaxTimestamp] ms after it. It is
// safe for concurrent use and does not allocate.
func NewAt(t time.Time) (ID, error) {
	timestamp, err := timestampOf(t)
	if err != nil {
		return 0, err
	}
	s := entropy.Get()
	random := s.Uint32()
	entropy.Put(s)
	return ID(timestamp<<randomBits | uint64(random)&randomMask), nil
}
