package ulidflake

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/cpu"

	"github.com/fastid/scru128/internal/clock"
	"github.com/fastid/scru128/internal/entropy"
)

// DefaultMaxStep is the default largest step of the random part within a
// millisecond: steps are drawn uniformly from [1, 255], as the reference
// implementation's one byte of entropy gives.
const DefaultMaxStep = 255

// none marks a Generator that has not minted yet: the sign bit, which no
// ID has.
const none = 1 << 63

// Generator mints Ulid-Flake IDs as one monotonic stream. It is safe for
// concurrent use by any number of goroutines, takes no lock and does not
// allocate: the whole state is the last ID, one atomic word, and every ID
// is reserved by one compare-and-swap on it. Because that word only ever
// grows, a stale compare-and-swap cannot succeed (no ABA), and IDs are
// strictly increasing in real-time order across all goroutines.
//
// At a new millisecond the random part starts at a random value; within
// the same millisecond it grows by a random step in [1, max step]. When it
// would pass its width (20 bits, or 15 in the scalable version), Generate
// returns ErrOverflow and GenerateOrWait waits for the next millisecond. A
// clock that reads an earlier millisecond than the last ID's yields
// ErrClockRollback.
//
// The zero Generator is not usable: make one with NewGenerator.
type Generator struct {
	_             cpu.CacheLinePad
	last          atomic.Uint64 // the last ID, or none
	_             cpu.CacheLinePad
	epochMillis   int64  // Unix ms of timestamp 0
	shift         uint   // 0 stand-alone, 5 scalable: where the random part starts
	randomMask    uint64 // the random part's largest value
	scalabilityID uint64 // in the low 5 bits when scalable
	maxStep       uint64
	clock         *clock.Clock
	shared        *entropy.Shared // random numbers when rng is nil
	mu            sync.Mutex      // serializes reads from rng
	rng           io.Reader
}

// Option configures a Generator; see NewGenerator.
type Option func(*Generator) error

// WithEpoch sets the epoch, the time of timestamp 0 (truncated to the
// millisecond). The default is 2024-01-01T00:00:00Z. IDs keep no record of
// their epoch: read them with the same one (Generator.Time).
func WithEpoch(epoch time.Time) Option {
	return func(g *Generator) error {
		g.epochMillis = epoch.UnixMilli()
		return nil
	}
}

// WithScalabilityID makes the generator mint scalable IDs: 15 random bits
// followed by id, which must be at most MaxScalabilityID (ErrInvalidOption
// otherwise). Give each generating node its own id.
func WithScalabilityID(id uint8) Option {
	return func(g *Generator) error {
		if id > MaxScalabilityID {
			return fmt.Errorf("%w: scalability ID %d above %d", ErrInvalidOption, id, MaxScalabilityID)
		}
		g.shift, g.randomMask, g.scalabilityID = scalableBits, MaxScalableRandomness, uint64(id)
		return nil
	}
}

// WithMaxStep sets the largest step of the random part within a
// millisecond, from 1 (a plain counter, the most IDs per millisecond) to
// 65535 (the hardest to guess); ErrInvalidOption otherwise. The default is
// DefaultMaxStep.
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
// Reads are serialized, so the Generator stays safe for concurrent use
// even if rng is not. An error from rng is returned, wrapped, by the call
// that met it. The default is ChaCha8 keyed from crypto/rand.
func WithRng(rng io.Reader) Option {
	return func(g *Generator) error {
		g.rng = rng
		return nil
	}
}

// NewGenerator returns a stand-alone Generator with the default epoch and
// step, changed by opts. It returns an error wrapping ErrInvalidOption for
// an option out of range.
func NewGenerator(opts ...Option) (*Generator, error) {
	g := &Generator{
		epochMillis: DefaultEpochMillis,
		randomMask:  MaxRandomness,
		maxStep:     DefaultMaxStep,
		clock:       clock.New(),
	}
	g.last.Store(none)
	for _, opt := range opts {
		if err := opt(g); err != nil {
			return nil, err
		}
	}
	if g.rng == nil {
		g.shared = entropy.NewShared()
	}
	return g, nil
}

// Epoch returns the generator's epoch.
func (g *Generator) Epoch() time.Time { return time.UnixMilli(g.epochMillis).UTC() }

// Time returns the time of id's timestamp counted from the generator's
// epoch, in UTC.
func (g *Generator) Time(id ID) time.Time { return id.TimeWithEpoch(g.Epoch()) }

// Generate returns a new ID with the current time. It returns ErrOverflow
// if the random part cannot grow within this millisecond, ErrClockRollback
// if the clock reads earlier than the last ID, ErrInvalidTimestamp if it
// reads before the epoch or more than MaxTimestamp ms after it, and the
// rng's error for a generator given WithRng. It does not allocate.
func (g *Generator) Generate() (ID, error) {
	timestamp, err := g.now()
	if err != nil {
		return 0, err
	}
	return g.next(timestamp, true)
}

// GenerateOrWait is Generate that, when the random part overflows, waits
// for the clock to reach the next millisecond and tries again, so it never
// returns ErrOverflow. Its other errors are Generate's.
func (g *Generator) GenerateOrWait() (ID, error) {
	for {
		timestamp, err := g.now()
		if err != nil {
			return 0, err
		}
		id, err := g.next(timestamp, true)
		if !errors.Is(err, ErrOverflow) {
			return id, err
		}
		for {
			// Overflows are rare with the default step; sleeping briefly
			// beats spinning on the clock.
			time.Sleep(50 * time.Microsecond)
			if now, err := g.now(); err != nil || now > timestamp {
				break
			}
		}
	}
}

// GenerateCore returns the next ID for a caller-supplied timestamp in
// milliseconds since the generator's epoch. It returns ErrInvalidTimestamp
// above MaxTimestamp and otherwise fails as Generate does. Given the same
// timestamps and random bytes it returns exactly the IDs of the
// specification's algorithm.
func (g *Generator) GenerateCore(timestamp uint64) (ID, error) {
	if timestamp > MaxTimestamp {
		return 0, ErrInvalidTimestamp
	}
	return g.next(timestamp, false)
}

// now returns the clock's time in milliseconds since the epoch.
func (g *Generator) now() (uint64, error) {
	ms := int64(g.clock.Millis()) - g.epochMillis
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
	if _, err := io.ReadFull(g.rng, b[:]); err != nil {
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
// and only a reading still behind it is ErrClockRollback: that ID's
// timestamp was itself read from the clock before it was seen.
func (g *Generator) next(timestamp uint64, fromClock bool) (ID, error) {
	for {
		last := g.last.Load()
		lastTimestamp := last >> randomBits
		fresh := last == none || timestamp > lastTimestamp
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
		r, err := g.draw()
		if err != nil {
			return 0, err
		}
		random := r & g.randomMask
		if !fresh {
			// The same millisecond. Lemire's multiply-shift maps r onto
			// [0, maxStep) without a division; the bias is below
			// maxStep/2^32.
			random = last&randomMask>>g.shift + 1 + r*g.maxStep>>32
			if random > g.randomMask {
				return 0, ErrOverflow
			}
		}
		next := timestamp<<randomBits | random<<g.shift | g.scalabilityID
		if g.last.CompareAndSwap(last, next) {
			if g.shared != nil && fresh && lastTimestamp/1000 != timestamp/1000 {
				g.shared.Rekey() // at most once a second
			}
			return ID(next), nil
		}
	}
}

// defaultGenerator backs New: stand-alone, default epoch and step.
var defaultGenerator, _ = NewGenerator()

// New returns a new stand-alone ID with the default epoch from a
// package-level Generator, waiting for the next millisecond if the random
// part overflows (GenerateOrWait). It returns ErrClockRollback if the clock
// moved back, or ErrInvalidTimestamp outside the epoch's 278 years. For
// another epoch or a scalability ID, use a Generator.
func New() (ID, error) { return defaultGenerator.GenerateOrWait() }
