package legacy

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/fastid/scru128/internal/clock"
	"github.com/fastid/scru128/internal/entropy"
)

// Generator mints legacy SCRU128 IDs as the format's document describes:
//
//   - at a new millisecond the counter is reset to a random number, and
//     within the same millisecond it counts up by one;
//   - per_sec_random is renewed when the timestamp is a second or more past
//     its last renewal;
//   - per_gen_random is fresh for every ID.
//
// As in the format's reference generator, a clock that moves back is
// treated as not having moved (the counter goes on from the last
// timestamp), so IDs never decrease; and when the counter passes 2^28-1
// within one millisecond, [Generator.Generate] waits for the clock to move on.
//
// A Generator is safe for concurrent use. Unlike the generators of the
// current formats it takes a mutex: it serves existing systems, not hot
// paths, and a lock keeps it plainly equal to the reference. IDs are
// strictly increasing in real-time order across goroutines. It does not
// allocate.
//
// The zero Generator is usable, and the same as one from [NewGenerator]. A
// Generator must not be copied after first use.
type Generator struct {
	mu           sync.Mutex
	timestamp    uint64 // of the last ID, ms since 2020; 0 before the first
	counter      uint32
	lastRenewal  uint64 // timestamp of the last per_sec_random renewal
	renewed      bool   // per_sec_random was ever drawn
	perSecRandom uint32
	clock        clock.Clock
	source       entropy.Source // random numbers when rng is nil
	rng          io.Reader
}

// NewGenerator returns a [Generator] that takes its random numbers from
// ChaCha8 seeded from crypto/rand and its time from the system clock.
func NewGenerator() *Generator { return new(Generator) }

// NewGeneratorWithRng returns a [Generator] that reads its random numbers
// from rng, 4 bytes per number, taken as a big-endian uint32 and masked to
// the field's width: the counter at a new millisecond, then per_sec_random
// when due, then per_gen_random. A nil rng means [NewGenerator]'s source. An
// error from rng is returned, wrapped; a reader that keeps returning no
// bytes is such an error after a hundred tries in a row, so no call waits
// forever holding the generator's lock.
func NewGeneratorWithRng(rng io.Reader) *Generator { return &Generator{rng: rng} }

// Generate returns a new ID with the current time, waiting for the next
// millisecond if the counter overflows. It returns [ErrInvalidTimestamp] if
// the clock reads before 2020 or after [MaxTimestamp], and the rng's error
// for a generator made with [NewGeneratorWithRng].
func (g *Generator) Generate() (ID, error) {
	for {
		timestamp, err := g.now()
		if err != nil {
			return ID{}, err
		}
		id, err := g.GenerateCore(timestamp)
		if !errors.Is(err, ErrMonotonicOverflow) {
			return id, err
		}
		for {
			time.Sleep(50 * time.Microsecond)
			now, err := g.now()
			if err != nil || now > g.lastTimestamp() {
				break
			}
		}
	}
}

// GenerateCore returns the next ID for a caller-supplied timestamp in
// milliseconds since 2020-01-01 (Unix milliseconds less [TimestampBias]). It
// returns [ErrInvalidTimestamp] above [MaxTimestamp] and [ErrMonotonicOverflow],
// leaving the generator as it was, when the counter would pass 2^28-1 at
// the last timestamp. Given the same timestamps and random bytes it
// returns exactly the IDs of the format's algorithm.
func (g *Generator) GenerateCore(timestamp uint64) (ID, error) {
	if timestamp > MaxTimestamp {
		return ID{}, ErrInvalidTimestamp
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	ts, counter := g.timestamp, g.counter
	if timestamp > ts || !g.renewed {
		r, err := g.draw()
		if err != nil {
			return ID{}, err
		}
		ts, counter = max(timestamp, ts), r&MaxCounter
	} else {
		if counter == MaxCounter {
			return ID{}, ErrMonotonicOverflow
		}
		counter++
	}
	lastRenewal, perSecRandom := g.lastRenewal, g.perSecRandom
	if !g.renewed || ts-lastRenewal >= 1000 {
		r, err := g.draw()
		if err != nil {
			return ID{}, err
		}
		lastRenewal, perSecRandom = ts, r&MaxPerSecRandom
	}
	perGenRandom, err := g.draw()
	if err != nil {
		return ID{}, err
	}
	g.timestamp, g.counter, g.lastRenewal, g.perSecRandom, g.renewed = ts, counter, lastRenewal, perSecRandom, true
	return FromUint64s(pack(ts, counter, perSecRandom, perGenRandom)), nil
}

func (g *Generator) lastTimestamp() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.timestamp
}

// now returns the clock's time in milliseconds since 2020.
func (g *Generator) now() (uint64, error) {
	ms := int64(g.clock.Millis()) - TimestampBias
	if ms < 0 || ms > MaxTimestamp {
		return 0, ErrInvalidTimestamp
	}
	return uint64(ms), nil
}

// draw returns 32 random bits. The caller holds g.mu.
func (g *Generator) draw() (uint32, error) {
	if g.rng == nil {
		return g.source.Uint32(), nil
	}
	var b [4]byte
	if err := entropy.ReadFull(g.rng, b[:]); err != nil {
		return 0, fmt.Errorf("legacy: reading random bytes: %w", err)
	}
	return binary.BigEndian.Uint32(b[:]), nil
}

// defaultGenerator backs [New] and [NewString].
var defaultGenerator Generator

// New returns a new ID from a package-level [Generator]: strictly increasing
// in call order across all goroutines, safe for concurrent use. It panics
// only if the system clock reads before 2020 or after the year 2577, which
// no legacy ID can represent.
func New() ID {
	id, err := defaultGenerator.Generate()
	if err != nil {
		panic(err)
	}
	return id
}

// NewString returns the 26-digit text of New(). It makes one allocation,
// the string.
func NewString() string { return New().String() }

// NewAt returns an ID whose timestamp is t (in milliseconds since 2020)
// and whose counter, per_sec_random and per_gen_random are freshly random,
// as a generator draws them for a stream that starts at t. It is for
// backfilling records with IDs of their own times. The ID is not from any
// stream: IDs of different milliseconds sort by time, but IDs of the same
// millisecond are unique by their 84 random bits only and in no particular
// order. It returns [ErrOutOfRange] for a time before 2020 or more than
// [MaxTimestamp] ms after it. It is safe for concurrent use and does not
// allocate.
func NewAt(t time.Time) (ID, error) {
	timestamp, err := timestampOf(t)
	if err != nil {
		return ID{}, err
	}
	s := entropy.Get()
	fields, perGenRandom := s.Uint64(), s.Uint32()
	entropy.Put(s)
	return FromUint64s(pack(timestamp, uint32(fields>>36), uint32(fields)&MaxPerSecRandom, perGenRandom)), nil
}
