// Package legacy reads, validates and mints SCRU128 IDs in the legacy
// 26-digit form (SCRU128 before version 2, scru128-legacy-v1-format.md): a
// 44-bit millisecond timestamp since 2020-01-01, a 28-bit counter, a 24-bit
// per-second random number and a 32-bit per-generation random number,
// written as 26 base-32 digits [0-9A-V].
//
// It exists for systems that already hold these IDs. New systems should use
// the current SCRU128 form in package github.com/fastid/scru128 (25 Base36
// digits): the two are different encodings of different layouts, and a
// legacy ID is not a valid current one.
//
// The API is the root package's: [New] and [NewString] mint from one ordered
// stream, [NewAt] for a given time; an ID stores its text in SQL and
// Binary(id) its 16 bytes; [NullID] and [NullBinary] handle NULL; Scan also
// reads the UUID forms of a uuid column; [MinAt], [MaxAt], [MinAtTime] and
// [MaxAtTime] bound range queries. Parse errors are typed values that say
// what and where ([*LengthError], [*InvalidCharacterError]); [Validate]
// checks a text without keeping the ID, and [Nil] is the zero ID. Through
// fmt and log/slog an ID, a Binary and a valid NullID print the text (%x
// the 16 bytes), and an invalid NullID prints null.
package legacy

import (
	"encoding/binary"
	"time"

	"github.com/fastid/scru128/internal/interop"
	"github.com/fastid/scru128/internal/uint128"
)

// ID is a legacy SCRU128 ID: a 128-bit unsigned integer stored big-endian,
// timestamp*2^84 + counter*2^56 + per_sec_random*2^32 + per_gen_random.
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                      timestamp (44 bits)                      |
//	+                       +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                       |           counter (28 bits)           |
//	+-+-+-+-+-+-+-+-+-+-+-+-+               +-+-+-+-+-+-+-+-+-+-+-+-+
//	|                       |      per_sec_random (24 bits)         |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                  per_gen_random (32 bits)                     |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// The timestamp counts milliseconds since 2020-01-01T00:00:00Z
// ([TimestampBias] in Unix milliseconds). The text form is 26 digits
// [0-9A-V], each five bits from the most significant, written in upper
// case; the largest ID is 7VVVVVVVVVVVVVVVVVVVVVVVVV.
type ID [16]byte

const (
	// EncodedSize is the length of the text form.
	EncodedSize = 26
	// TimestampBias is 2020-01-01T00:00:00Z in Unix milliseconds, the
	// time of timestamp 0.
	TimestampBias = 1_577_836_800_000
	// MaxTimestamp is the largest timestamp (2^44-1 ms after 2020, about
	// 557 years).
	MaxTimestamp = 1<<44 - 1
	// MaxCounter is the largest counter (2^28-1).
	MaxCounter = 1<<28 - 1
	// MaxPerSecRandom is the largest per_sec_random (2^24-1).
	MaxPerSecRandom = 1<<24 - 1
)

// Nil is the zero ID, whose text is 00000000000000000000000000: the name
// github.com/google/uuid gives the all-zero value. It sorts before every
// other ID and can stand for "no ID": compare with it, or use [ID.IsZero].
// It is a variable only because Go has no array constants; do not assign
// to it.
var Nil ID

// FromFields builds an ID from its four fields. If timestamp, counter or
// perSecRandom is above its maximum it returns a [*FieldError] (matching
// [ErrOutOfRange]) naming the first such field.
func FromFields(timestamp uint64, counter, perSecRandom, perGenRandom uint32) (ID, error) {
	switch {
	case timestamp > MaxTimestamp:
		return ID{}, &FieldError{Field: "timestamp", Value: timestamp, Max: MaxTimestamp}
	case counter > MaxCounter:
		return ID{}, &FieldError{Field: "counter", Value: uint64(counter), Max: MaxCounter}
	case perSecRandom > MaxPerSecRandom:
		return ID{}, &FieldError{Field: "per_sec_random", Value: uint64(perSecRandom), Max: MaxPerSecRandom}
	}
	return FromUint64s(pack(timestamp, counter, perSecRandom, perGenRandom)), nil
}

// pack returns the halves of the ID with fields already known to be in
// range.
func pack(timestamp uint64, counter, perSecRandom, perGenRandom uint32) (hi, lo uint64) {
	return timestamp<<20 | uint64(counter)>>8,
		uint64(counter)<<56 | uint64(perSecRandom)<<32 | uint64(perGenRandom)
}

// FromUint64s builds an ID from its high and low 64 bits.
func FromUint64s(hi, lo uint64) (id ID) {
	binary.BigEndian.PutUint64(id[0:8], hi)
	binary.BigEndian.PutUint64(id[8:16], lo)
	return id
}

// Uint64s returns the high and low 64 bits of id.
func (id ID) Uint64s() (hi, lo uint64) {
	return binary.BigEndian.Uint64(id[0:8]), binary.BigEndian.Uint64(id[8:16])
}

// Timestamp returns the 44-bit timestamp: milliseconds since 2020-01-01.
func (id ID) Timestamp() uint64 { return binary.BigEndian.Uint64(id[0:8]) >> 20 }

// Time returns the timestamp as a time.Time in UTC, to the millisecond.
func (id ID) Time() time.Time {
	return time.UnixMilli(int64(id.Timestamp()) + TimestampBias).UTC()
}

// Counter returns the 28-bit counter.
func (id ID) Counter() uint32 {
	return uint32(binary.BigEndian.Uint64(id[4:12]) >> 24 & MaxCounter)
}

// PerSecRandom returns the 24-bit per_sec_random field.
func (id ID) PerSecRandom() uint32 {
	return uint32(id[9])<<16 | uint32(id[10])<<8 | uint32(id[11])
}

// PerGenRandom returns the 32-bit per_gen_random field.
func (id ID) PerGenRandom() uint32 { return binary.BigEndian.Uint32(id[12:16]) }

// Compare returns -1, 0 or +1 as id is less than, equal to or greater than
// other, comparing them as 128-bit unsigned integers (and so as text).
func (id ID) Compare(other ID) int { return uint128.Compare(id, other) }

// IsZero reports whether id is the zero ID.
func (id ID) IsZero() bool { return id == ID{} }

// MinAt returns the smallest ID with the given timestamp (milliseconds
// since 2020-01-01): all other fields zero. With [MaxAt] it bounds a range
// query such as WHERE id BETWEEN MinAt(t0) AND MaxAt(t1), which then
// returns exactly the IDs of the milliseconds t0 to t1; bind the bounds as
// the column stores IDs (Binary(lo) for a binary or uuid column). Above
// [MaxTimestamp] it returns a [*FieldError] (matching [ErrOutOfRange]).
func MinAt(timestamp uint64) (ID, error) { return FromFields(timestamp, 0, 0, 0) }

// MaxAt returns the largest ID with the given timestamp: all other bits
// set. Above [MaxTimestamp] it returns a [*FieldError] (matching
// [ErrOutOfRange]).
func MaxAt(timestamp uint64) (ID, error) {
	return FromFields(timestamp, MaxCounter, MaxPerSecRandom, 1<<32-1)
}

// MinAtTime is [MinAt] for t truncated to the millisecond. It returns
// [ErrOutOfRange] for times before 2020 or more than [MaxTimestamp] ms after
// it, however far.
func MinAtTime(t time.Time) (ID, error) {
	ts, err := timestampOf(t)
	if err != nil {
		return ID{}, err
	}
	return MinAt(ts)
}

// MaxAtTime is [MaxAt] for t truncated to the millisecond. It returns
// [ErrOutOfRange] for times before 2020 or more than [MaxTimestamp] ms after
// it, however far.
func MaxAtTime(t time.Time) (ID, error) {
	ts, err := timestampOf(t)
	if err != nil {
		return ID{}, err
	}
	return MaxAt(ts)
}

// timestampOf returns t as milliseconds since 2020, or [ErrOutOfRange] if no
// ID can hold it.
func timestampOf(t time.Time) (uint64, error) {
	ms, ok := interop.UnixMillis(t, TimestampBias, TimestampBias+MaxTimestamp)
	if !ok {
		return 0, ErrOutOfRange
	}
	return uint64(ms - TimestampBias), nil
}

// UUID returns the 16 bytes of id unchanged, as a value that converts to
// any UUID type: uuid.UUID(id.UUID()) with github.com/google/uuid or
// github.com/gofrs/uuid. The conversion is lossless both ways (see
// [FromUUID]), though the result is not an RFC 9562 UUID.
func (id ID) UUID() [16]byte { return id }

// FromUUID returns the ID with the 16 bytes of u, the inverse of [ID.UUID]. It
// accepts any [16]byte, such as a uuid.UUID, and never fails.
func FromUUID(u [16]byte) ID { return u }
