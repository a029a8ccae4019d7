package scru128

import (
	"time"

	"github.com/fastid/scru128/internal/entropy"
)

// defaultGenerator backs [New], [NewString] and [AppendNew].
var defaultGenerator = NewGenerator()

// New returns a new ID from a package-level [Generator]: monotonic across the
// whole process, safe for concurrent use, without allocation. It panics only
// if the system clock reads before 1970 or after the year 10889, which no
// ID can represent.
func New() ID {
	id, err := defaultGenerator.Generate()
	if err != nil {
		panic(err)
	}
	return id
}

// NewString returns the text of a new ID from the package-level [Generator].
// It makes one allocation, the string.
func NewString() string { return New().String() }

// AppendNew mints a new ID as [New] does and appends its 25-digit text to b.
// It does not allocate when b has room for 25 more bytes.
func AppendNew(b []byte) []byte {
	b, _ = New().AppendText(b)
	return b
}

// defaultPool backs [NewUnordered], [NewUnorderedString] and
// [AppendNewUnordered].
var defaultPool = NewPool()

// NewUnordered returns a new ID from a package-level [Pool]. It scales with
// cores where [New] contends, but IDs minted at the same time by different
// goroutines are not ordered within their millisecond; IDs from one
// goroutine are not ordered either, since it may move between Ps. Use New
// when order matters.
func NewUnordered() ID { return defaultPool.Generate() }

// NewUnorderedString returns the text of a new ID from the package-level
// [Pool]. It makes one allocation, the string.
func NewUnorderedString() string { return defaultPool.Generate().String() }

// AppendNewUnordered mints a new ID from the package-level [Pool] and appends
// its 25-digit text to b. It does not allocate when b has room.
func AppendNewUnordered(b []byte) []byte { return defaultPool.AppendNew(b) }

// NewAt returns an ID whose timestamp is t's Unix millisecond and whose
// counter_hi, counter_lo and entropy are freshly random, as a generator
// draws them for a stream that starts at t. It is for backfilling records
// with IDs of their own times. The ID is not from any stream: IDs of
// different milliseconds sort by time, but IDs of the same millisecond are
// unique by their 80 random bits only and in no particular order. It
// returns [ErrOutOfRange] for a time before 1970 or after [MaxTimestamp]. It is
// safe for concurrent use and does not allocate.
func NewAt(t time.Time) (ID, error) {
	timestamp, err := timestampOf(t)
	if err != nil {
		return ID{}, err
	}
	s := entropy.Get()
	counters, random := s.Uint64(), s.Uint32()
	entropy.Put(s)
	return fromFields(timestamp, uint32(counters>>40), uint32(counters>>16)&MaxCounter, random), nil
}
