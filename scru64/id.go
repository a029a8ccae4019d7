package scru64

import (
	"cmp"
	"time"

	"github.com/fastid/scru128/internal/interop"
)

// ID is a SCRU64 identifier: a non-negative integer below 36^12 (about
// 2^62.04), so it fits a signed 64-bit column and its text is 12 Base36
// digits. It packs a timestamp in 256-millisecond ticks above a 24-bit
// node_ctr field that the generator's node spec splits into node_id and
// counter:
//
//	 63 62                                                    24 23                    0
//	+-+---------------------------------------------------------+-----------------------+
//	|0|           timestamp (38.04 bits, < 36^12/2^24)          |  node_id  |  counter  |
//	+-+---------------------------------------------------------+-----------------------+
//	                                                             <- size -> <- 24-size ->
//
// value = timestamp*2^24 + node_id*2^(24-node_id_size) + counter, with
// node_id_size from 1 to 23. Comparing IDs as integers, or their texts,
// orders them by time. The zero ID is valid; IDs whose timestamp is 0 or
// [MaxTimestamp] are reserved for special purposes (dummy, error, example
// values), and no [Generator] returns them, nor any other below
// [MinTimestamp].
type ID uint64

const (
	// MinTimestamp is the smallest timestamp a [Generator] mints, the tick
	// of 1970-01-01T04:14:18.880Z: the first whose IDs are all 10^12 or
	// more, so that an ID's decimal text, which a text column holds after
	// Value, has at least 13 digits and never the 12 characters of the text
	// form, as which Scan reads 12 characters. The specification reserves
	// only timestamp 0; the ticks below MinTimestamp are 4 hours of 1970,
	// which a clock reads only before it is set.
	MinTimestamp = 59605 // 10^12 / 2^24, rounded up
	// MaxTimestamp is the largest timestamp field, 36^12/2^24 - 1 =
	// 282429536480 ticks of 256 ms, in February 4261. It is reserved.
	MaxTimestamp = 282429536480
	// MaxNodeCtr is the largest node_ctr field, 2^24-1.
	MaxNodeCtr = 1<<nodeCtrSize - 1
	// Max is the largest ID, 36^12-1, whose text is zzzzzzzzzzzz.
	Max ID = 4738381338321616895

	// nodeCtrSize is the width of node_id and counter together.
	nodeCtrSize = 24
)

// The IDs of MinTimestamp are all 10^12 or more, and those of the tick
// before it are not: the build fails if either stops being so.
const (
	_ = uint64(MinTimestamp<<nodeCtrSize - 1e12)
	_ = uint64(1e12 - 1 - (MinTimestamp-1)<<nodeCtrSize)
)

// Nil is the zero ID, whose text is 000000000000: the name
// github.com/google/uuid gives the all-zero value, with [Max] at the other
// end. The specification reserves the IDs of timestamp 0 for special
// purposes and no [Generator] returns them, so Nil can stand for "no ID":
// compare with it, or use [ID.IsZero].
const Nil ID = 0

// FromParts builds an ID from its timestamp (in 256-ms ticks) and its 24-bit
// node_ctr field (node_id and counter together). If timestamp is above
// [MaxTimestamp] or nodeCtr above [MaxNodeCtr] it returns a [*FieldError]
// (matching [ErrOutOfRange]) naming the first such field.
func FromParts(timestamp uint64, nodeCtr uint32) (ID, error) {
	switch {
	case timestamp > MaxTimestamp:
		return 0, &FieldError{Field: "timestamp", Value: timestamp, Max: MaxTimestamp}
	case nodeCtr > MaxNodeCtr:
		return 0, &FieldError{Field: "node_ctr", Value: uint64(nodeCtr), Max: MaxNodeCtr}
	}
	return ID(timestamp<<nodeCtrSize | uint64(nodeCtr)), nil
}

// FromUint64 returns v as an ID, or a [*RangeError] (matching
// [ErrOutOfRange]) naming [Max] if v is above it.
func FromUint64(v uint64) (ID, error) {
	if v > uint64(Max) {
		return 0, errIntRange
	}
	return ID(v), nil
}

// FromInt64 returns v as an ID, or a [*RangeError] (matching
// [ErrOutOfRange]) naming [Max] if v is negative or above it. It is the
// inverse of [ID.Int64], for values read from a BIGINT column.
func FromInt64(v int64) (ID, error) {
	if v < 0 || v > int64(Max) {
		return 0, errIntRange
	}
	return ID(v), nil
}

// Timestamp returns the timestamp field: Unix time in 256-millisecond
// ticks (Unix milliseconds >> 8).
func (id ID) Timestamp() uint64 { return uint64(id) >> nodeCtrSize }

// NodeCtr returns the 24-bit node_ctr field, node_id and counter together.
// Splitting it needs the node ID size of the generator that made the ID,
// which the ID does not record: nodeCtr >> (24-size) is node_id.
func (id ID) NodeCtr() uint32 { return uint32(id) & MaxNodeCtr }

// Time returns the start of the ID's 256-ms tick as a time.Time in UTC.
func (id ID) Time() time.Time { return time.UnixMilli(int64(id.Timestamp() << 8)).UTC() }

// Uint64 returns id as an unsigned integer.
func (id ID) Uint64() uint64 { return uint64(id) }

// Int64 returns id as a signed integer, never negative for an ID from this
// package, for a BIGINT column.
func (id ID) Int64() int64 { return int64(id) }

// Compare returns -1, 0 or +1 as id is less than, equal to or greater than
// other.
func (id ID) Compare(other ID) int { return cmp.Compare(id, other) }

// IsZero reports whether id is the zero ID.
func (id ID) IsZero() bool { return id == 0 }

// MinAt returns the smallest ID with the given timestamp (in 256-ms ticks,
// Unix milliseconds >> 8): node_ctr zero. With [MaxAt] it bounds a range
// query such as WHERE id BETWEEN MinAt(t0) AND MaxAt(t1), which then
// returns exactly the IDs of the ticks t0 to t1. Above [MaxTimestamp] it
// returns a [*FieldError] (matching [ErrOutOfRange]).
func MinAt(timestamp uint64) (ID, error) { return FromParts(timestamp, 0) }

// MaxAt returns the largest ID with the given timestamp: node_ctr all
// ones. Above [MaxTimestamp] it returns a [*FieldError] (matching
// [ErrOutOfRange]).
func MaxAt(timestamp uint64) (ID, error) { return FromParts(timestamp, MaxNodeCtr) }

// MinAtTime is [MinAt] for the tick that holds t: the 256 ms from
// t.UnixMilli() rounded down to a multiple of 256. Its bound is therefore
// coarser than t: IDs minted up to 255 ms before t share its tick and fall
// inside the range. It returns [ErrOutOfRange] for times before 1970 or
// after [MaxTimestamp]'s tick, however far.
func MinAtTime(t time.Time) (ID, error) {
	ts, err := timestampOf(t)
	if err != nil {
		return 0, err
	}
	return ID(ts << nodeCtrSize), nil
}

// MaxAtTime is [MaxAt] for the tick that holds t; IDs minted up to 255 ms
// after t share its tick and fall inside the range. It returns
// [ErrOutOfRange] for times before 1970 or after [MaxTimestamp]'s tick,
// however far.
func MaxAtTime(t time.Time) (ID, error) {
	ts, err := timestampOf(t)
	if err != nil {
		return 0, err
	}
	return ID(ts<<nodeCtrSize | MaxNodeCtr), nil
}

// timestampOf returns the tick of t, or [ErrOutOfRange] if no ID can hold
// it.
func timestampOf(t time.Time) (uint64, error) {
	ms, ok := interop.UnixMillis(t, 0, (MaxTimestamp+1)<<8-1)
	if !ok {
		return 0, ErrOutOfRange
	}
	return uint64(ms) >> 8, nil
}
