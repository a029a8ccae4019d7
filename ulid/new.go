package ulid

import (
	"errors"
	"time"

	"github.com/fastid/scru128/internal/clock"
	"github.com/fastid/scru128/internal/entropy"
)

// defaultGenerator backs [New], [NewString], [AppendNew], [Make] and
// [MakeString].
var defaultGenerator = NewGenerator()

// New returns a new ULID from a package-level [Generator]: monotonic across
// the whole process (strictly increasing in call order across all
// goroutines), safe for concurrent use, without allocation. It never
// returns an error: if the random part cannot grow within the current
// millisecond (practically never, as each millisecond starts it at random)
// it waits for the next one. It panics only if the system clock reads
// before 1970 or after the year 10889, which no ULID can represent.
//
// [Make] is the same function under the name github.com/oklog/ulid/v2
// gives its monotonic default. For a fresh random part per ULID without
// the order within a millisecond, use [NewUnordered].
func New() ULID {
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

// NewString returns the text of New(). It makes one allocation, the string.
func NewString() string { return New().String() }

// AppendNew mints a new ULID as [New] does and appends its 26-digit text to
// b. It does not allocate when b has room for 26 more bytes.
func AppendNew(b []byte) []byte {
	b, _ = New().AppendText(b)
	return b
}

// Make is [New], under the name github.com/oklog/ulid/v2 uses for its
// monotonic default.
func Make() ULID { return New() }

// MakeString is [NewString], under the name that goes with [Make].
func MakeString() string { return New().String() }

// unorderedClock is the clock of [NewUnordered].
var unorderedClock clock.Clock

// NewUnordered returns a ULID with the current time and a fresh 80-bit
// random part, without the monotonic step: ULIDs are time-ordered to the
// millisecond but not within it, even from one goroutine. It is safe for
// concurrent use, scales with cores (each P draws from its own ChaCha8
// buffer) and does not allocate. Use [New] or a [Generator] when order
// matters. It panics only if the system clock reads before 1970 or after
// the year 10889.
func NewUnordered() ULID {
	timestamp := unorderedClock.Millis()
	if timestamp == 0 || timestamp > MaxTimestamp {
		panic(ErrInvalidTimestamp)
	}
	return randomAt(timestamp)
}

// NewUnorderedString returns the text of NewUnordered(). It makes one
// allocation, the string.
func NewUnorderedString() string { return NewUnordered().String() }

// AppendNewUnordered mints a new ULID as [NewUnordered] does and appends its
// 26-digit text to b. It does not allocate when b has room for 26 more
// bytes.
func AppendNewUnordered(b []byte) []byte {
	b, _ = NewUnordered().AppendText(b)
	return b
}

// NewAt returns a ULID whose timestamp is t's Unix millisecond and whose
// 80-bit random part is fresh, as the specification's generator draws it
// at a new millisecond. It is for backfilling records with ULIDs of their
// own times. The ULID is not from any stream: ULIDs of different
// milliseconds sort by time, but ULIDs of the same millisecond are unique
// by their random part only and in no particular order. It returns
// [ErrOutOfRange] for a time before 1970 or after [MaxTimestamp]. It is safe
// for concurrent use and does not allocate.
func NewAt(t time.Time) (ULID, error) {
	timestamp, err := timestampOf(t)
	if err != nil {
		return ULID{}, err
	}
	return randomAt(timestamp), nil
}

// randomAt returns the ULID of timestamp with a random part drawn from the
// calling P's Source.
func randomAt(timestamp uint64) ULID {
	s := entropy.Get()
	random16, random64 := s.Uint32(), s.Uint64()
	entropy.Put(s)
	return FromUint64s(timestamp<<16|uint64(uint16(random16)), random64)
}
