package scru128

import (
	"encoding/binary"
	"time"

	"github.com/fastid/scru128/internal/interop"
	"github.com/fastid/scru128/internal/uint128"
)

// ID is a SCRU128 identifier: a 128-bit unsigned integer stored big-endian,
// so that comparing IDs byte by byte orders them as integers and by time.
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                     timestamp (48 bits)                      |
//	+                               +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                               |   counter_hi (24 bits)        |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|       |            counter_lo (24 bits)                       |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                      entropy (32 bits)                        |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// Bytes 0-5 hold the Unix timestamp in milliseconds, bytes 6-8 counter_hi,
// bytes 9-11 counter_lo and bytes 12-15 entropy. The zero ID is valid and
// reported by [ID.IsZero]. Its text form is 25 Base36 digits (0-9a-z).
type ID [16]byte

const (
	// MaxTimestamp is the largest timestamp an ID can hold (2^48-1 ms,
	// in the year 10889).
	MaxTimestamp = 1<<48 - 1
	// MaxCounter is the largest value of counter_hi and counter_lo (2^24-1).
	MaxCounter = 1<<24 - 1
)

// Nil is the zero ID, whose text is 0000000000000000000000000: the name
// github.com/google/uuid gives the all-zero value, with [Max] at the other
// end. It sorts before every other ID, and no generator returns it (a
// timestamp of 0 is invalid to them), so it can stand for "no ID": compare
// with it, or use [ID.IsZero]. It is a variable only because Go has no
// array constants; do not assign to it.
var Nil ID

// Max is the largest ID, 2^128-1, whose text is f5lxx1zz5pnorynqglhzmsp33.
var Max = ID{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}

// FromFields builds an ID from its four fields. If timestamp is above
// 2^48-1 or a counter above 2^24-1 it returns a [*FieldError] (matching
// [ErrOutOfRange]) naming the first such field.
func FromFields(timestamp uint64, counterHi, counterLo, entropy uint32) (ID, error) {
	if timestamp > MaxTimestamp || counterHi > MaxCounter || counterLo > MaxCounter {
		return ID{}, fieldsError(timestamp, counterHi, counterLo)
	}
	return fromFields(timestamp, counterHi, counterLo, entropy), nil
}

// fieldsError returns the [*FieldError] for the first field of
// [FromFields] out of range, or nil.
func fieldsError(timestamp uint64, counterHi, counterLo uint32) error {
	switch {
	case timestamp > MaxTimestamp:
		return &FieldError{Field: "timestamp", Value: timestamp, Max: MaxTimestamp}
	case counterHi > MaxCounter:
		return &FieldError{Field: "counter_hi", Value: uint64(counterHi), Max: MaxCounter}
	case counterLo > MaxCounter:
		return &FieldError{Field: "counter_lo", Value: uint64(counterLo), Max: MaxCounter}
	}
	return nil
}

// fromFields packs fields already known to be in range.
func fromFields(timestamp uint64, counterHi, counterLo, entropy uint32) (id ID) {
	binary.BigEndian.PutUint64(id[0:8], timestamp<<16|uint64(counterHi)>>8)
	binary.BigEndian.PutUint64(id[8:16], uint64(counterHi)<<56|uint64(counterLo)<<32|uint64(entropy))
	return id
}

// FromUint64s builds an ID from its high and low 64 bits.
func FromUint64s(hi, lo uint64) (id ID) {
	binary.BigEndian.PutUint64(id[0:8], hi)
	binary.BigEndian.PutUint64(id[8:16], lo)
	return id
}

// UUID returns the 16 bytes of id unchanged, as a value that converts to
// any UUID type: uuid.UUID(id.UUID()) with github.com/google/uuid or
// github.com/gofrs/uuid, pgtype.UUID{Bytes: id.UUID(), Valid: true} with
// pgx. The conversion is lossless both ways (see [FromUUID]), and a
// PostgreSQL uuid column compares the bytes as IDs compare, though the
// result is not an RFC 9562 UUID: an ID has no version or variant bits.
func (id ID) UUID() [16]byte { return id }

// FromUUID returns the ID with the 16 bytes of u, the inverse of [ID.UUID]. It
// accepts any [16]byte, such as a uuid.UUID, and never fails: every 128-bit
// value is an ID.
func FromUUID(u [16]byte) ID { return u }

// Uint64s returns the high and low 64 bits of id.
func (id ID) Uint64s() (hi, lo uint64) {
	return binary.BigEndian.Uint64(id[0:8]), binary.BigEndian.Uint64(id[8:16])
}

// Timestamp returns the 48-bit Unix timestamp in milliseconds.
func (id ID) Timestamp() uint64 { return binary.BigEndian.Uint64(id[0:8]) >> 16 }

// CounterHi returns the 24-bit counter_hi field.
func (id ID) CounterHi() uint32 {
	return uint32(id[6])<<16 | uint32(id[7])<<8 | uint32(id[8])
}

// CounterLo returns the 24-bit counter_lo field.
func (id ID) CounterLo() uint32 {
	return uint32(id[9])<<16 | uint32(id[10])<<8 | uint32(id[11])
}

// Entropy returns the 32-bit entropy field.
func (id ID) Entropy() uint32 { return binary.BigEndian.Uint32(id[12:16]) }

// Time returns the timestamp as a time.Time in UTC, to the millisecond.
func (id ID) Time() time.Time { return time.UnixMilli(int64(id.Timestamp())).UTC() }

// Compare returns -1, 0 or +1 as id is less than, equal to or greater than
// other, comparing them as 128-bit unsigned integers.
func (id ID) Compare(other ID) int { return uint128.Compare(id, other) }

// IsZero reports whether id is the zero ID.
func (id ID) IsZero() bool { return id == ID{} }

// MinAt returns the smallest ID with the given timestamp (Unix
// milliseconds): all other fields zero. With [MaxAt] it bounds a range query
// such as WHERE id BETWEEN MinAt(t0) AND MaxAt(t1), which then returns
// exactly the IDs of the milliseconds t0 to t1; bind the bounds as the
// column stores IDs (Binary(lo) for a binary or uuid column). Above
// [MaxTimestamp] it returns a [*FieldError] (matching [ErrOutOfRange]).
func MinAt(timestamp uint64) (ID, error) {
	return FromFields(timestamp, 0, 0, 0)
}

// MaxAt returns the largest ID with the given timestamp: all other bits set.
// Above [MaxTimestamp] it returns a [*FieldError] (matching
// [ErrOutOfRange]).
func MaxAt(timestamp uint64) (ID, error) {
	return FromFields(timestamp, MaxCounter, MaxCounter, 1<<32-1)
}

// MinAtTime is [MinAt] for t truncated to the millisecond. It returns
// [ErrOutOfRange] for times before the Unix epoch or after [MaxTimestamp],
// however far.
func MinAtTime(t time.Time) (ID, error) {
	ms, err := timestampOf(t)
	if err != nil {
		return ID{}, err
	}
	return fromFields(ms, 0, 0, 0), nil
}

// MaxAtTime is [MaxAt] for t truncated to the millisecond. It returns
// [ErrOutOfRange] for times before the Unix epoch or after [MaxTimestamp],
// however far.
func MaxAtTime(t time.Time) (ID, error) {
	ms, err := timestampOf(t)
	if err != nil {
		return ID{}, err
	}
	return fromFields(ms, MaxCounter, MaxCounter, 1<<32-1), nil
}

// timestampOf returns t's Unix millisecond as a timestamp, or
// [ErrOutOfRange] if no ID can hold it.
func timestampOf(t time.Time) (uint64, error) {
	ms, ok := interop.UnixMillis(t, 0, MaxTimestamp)
	if !ok {
		return 0, ErrOutOfRange
	}
	return uint64(ms), nil
}
