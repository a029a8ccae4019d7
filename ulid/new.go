package ulid

import (
	"errors"
	"sync"
	"time"

	"golang.org/x/sys/cpu"

	"github.com/fastid/scru128/internal/clock"
	"github.com/fastid/scru128/internal/entropy"
)

// defaultGenerator backs Make.
var defaultGenerator = NewGenerator()

// Make returns a new ULID from a package-level Generator: monotonic across
// the whole process, safe for concurrent use, without allocation. It never
// returns an error: if the random part cannot grow within the current
// millisecond (practically never, as each millisecond starts it at random)
// it waits for the next one. It panics only if the system clock reads
// before 1970 or after the year 10889, which no ULID can represent.
func Make() ULID {
	for {
		id, err := defaultGenerator.Generate()
		if err == nil {
			return id
		}
		if !errors.Is(err, ErrMonotonicOverflow) {
			panic(err)
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// shard is one per-P random source of New, alone on its cache lines.
type shard struct {
	_      cpu.CacheLinePad
	source entropy.Source
	_      cpu.CacheLinePad
}

var (
	// shards holds the per-P sources of New: a sync.Pool keeps one cached
	// per P, so concurrent calls on different cores write different
	// memory. A shard dropped at a garbage collection is never used again;
	// its successor is seeded afresh from crypto/rand.
	shards = sync.Pool{New: func() any {
		s := new(shard)
		s.source.Init()
		return s
	}}
	newClock = clock.New()
)

// New returns a ULID with the current time and a fresh 80-bit random part,
// without the monotonic step: IDs are time-ordered to the millisecond but
// not within it, even from one goroutine. It is safe for concurrent use,
// scales with cores (each P draws from its own ChaCha8 buffer) and does not
// allocate. Use Make or a Generator when order matters. It panics only if
// the system clock reads before 1970 or after the year 10889.
func New() ULID {
	timestamp := newClock.Millis()
	s := shards.Get().(*shard)
	randHi, randLo := uint64(s.source.Uint32()), s.source.Uint64()&loMask
	shards.Put(s)
	if timestamp == 0 || timestamp > MaxTimestamp {
		panic(ErrInvalidTimestamp)
	}
	return FromUint64s(pack(timestamp, randHi, randLo))
}

// NewString returns the text of New(). It makes one allocation, the string.
func NewString() string { return New().String() }

// MakeString returns the text of Make(). It makes one allocation, the
// string.
func MakeString() string { return Make().String() }
