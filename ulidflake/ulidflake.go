// Package ulidflake implements Ulid-Flake (https://github.com/ulid-flake/spec),
// a 64-bit ULID variant after Twitter's Snowflake: a sign bit that is always
// 0, a 43-bit millisecond timestamp since a configurable epoch (by default
// 2024-01-01T00:00:00Z), and 20 random bits, or 15 random bits and a 5-bit
// scalability ID in the scalable version. The text form is 13 Crockford
// Base32 digits, at most 7ZZZZZZZZZZZZ; the integer form fits an int64
// (SQL BIGINT).
//
// A [Generator] mints IDs as the specification describes: a fresh random part
// at each new millisecond, and within a millisecond the previous one plus a
// random step (+n rather than +1, so neighbours are hard to guess). When the
// random part would overflow, [Generator.Generate] returns
// [ErrMonotonicOverflow] and leaves waiting to the caller, as the
// specification asks; [Generator.GenerateOrWait] waits for the next
// millisecond itself (and for the clock to catch up after a rollback). [New]
// and [NewString] mint from a package-level Generator and never fail; [NewAt]
// mints an ID for a given time, for backfills. Configuration (epoch,
// scalability ID, step) is given to [NewGenerator] as options; nothing is
// configured through package variables.
//
// In SQL an ID is an int64 (Value) for a BIGINT column, and Scan reads
// integers, the 13-digit text, decimal text (what SQLite hands back for an
// integer in a TEXT column) or 8 big-endian bytes; [NullID] handles NULL.
// A value never reads back as another ID: digits that are both the text
// form and another ID's decimal (an ID of the first hours after its epoch
// has 13 digits) are refused with an [*AmbiguousError].
// [MinAt], [MaxAt], [MinAtTime] and [MaxAtTime] bound range queries. In JSON an ID
// is the 13-digit string, and a JSON integer is also accepted on input.
//
// Parse errors are typed values that say what and where ([*LengthError],
// [*InvalidCharacterError]); [Validate] checks a text without keeping the
// ID, and [Zero] is the zero ID. Through fmt and log/slog an ID and a valid
// NullID print the text (%x the 8 bytes, %d the integer), and an invalid
// NullID prints null.
package ulidflake

import (
	"time"

	"github.com/fastid/scru128/internal/interop"
)

// ID is a Ulid-Flake: a 64-bit integer whose sign bit is 0.
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|0|              timestamp (high 31 of 43 bits)                 |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	| timestamp (low 12)    |          randomness (20 bits)         |  stand-alone
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	| timestamp (low 12)    |   randomness (15 bits)      |scal. ID |  scalable
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// The timestamp counts milliseconds since the generator's epoch, which the
// ID does not record: Time assumes the default epoch, [ID.TimeWithEpoch] takes
// another, and [Generator.Time] uses the generator's. The text form is 13
// Crockford Base32 digits in upper case (9 for the timestamp, 4 for the
// rest); a negative ID is invalid, no function of this package returns
// one, and every encoder refuses one with [ErrOutOfRange].
type ID int64

const (
	// EncodedSize is the length of the text form.
	EncodedSize = 13
	// MaxTimestamp is the largest timestamp, 2^43-1 ms after the epoch
	// (about 278 years).
	MaxTimestamp = 1<<43 - 1
	// MaxRandomness is the largest random part of a stand-alone ID.
	MaxRandomness = 1<<20 - 1
	// MaxScalableRandomness is the largest random part of a scalable ID.
	MaxScalableRandomness = 1<<15 - 1
	// MaxScalabilityID is the largest scalability ID.
	MaxScalabilityID = 31
	// Zero is the zero ID, whose text is 0000000000000: the name
	// github.com/oklog/ulid/v2 gives the zero ULID, with Max at the other
	// end. It sorts before every other ID and can stand for "no ID":
	// compare with it, or use IsZero.
	Zero ID = 0
	// Max is the largest ID, 2^63-1, whose text is 7ZZZZZZZZZZZZ.
	Max ID = 1<<63 - 1
	// DefaultEpochMillis is the default epoch, 2024-01-01T00:00:00Z, in
	// Unix milliseconds.
	DefaultEpochMillis = 1_704_067_200_000
)

const (
	randomBits   = 20
	scalableBits = 5
	randomMask   = 1<<randomBits - 1
)

// DefaultEpoch returns the default epoch, 2024-01-01T00:00:00Z.
func DefaultEpoch() time.Time { return time.UnixMilli(DefaultEpochMillis).UTC() }

// FromInt64 returns v as an ID. It returns a [*RangeError] (matching
// [ErrOutOfRange]) naming [Max] for a negative v, whose sign bit is set.
func FromInt64(v int64) (ID, error) {
	if v < 0 {
		return 0, errIntRange
	}
	return ID(v), nil
}

// FromUint64 returns v as an ID. It returns a [*RangeError] (matching
// [ErrOutOfRange]) naming [Max] for a v above it (2^63-1).
func FromUint64(v uint64) (ID, error) {
	if v > uint64(Max) {
		return 0, errIntRange
	}
	return ID(v), nil
}

// FromFields builds a stand-alone ID. If timestamp is above [MaxTimestamp]
// or randomness above [MaxRandomness] it returns a [*FieldError] (matching
// [ErrOutOfRange]) naming the first such field.
func FromFields(timestamp uint64, randomness uint32) (ID, error) {
	switch {
	case timestamp > MaxTimestamp:
		return 0, &FieldError{Field: "timestamp", Value: timestamp, Max: MaxTimestamp}
	case randomness > MaxRandomness:
		return 0, &FieldError{Field: "randomness", Value: uint64(randomness), Max: MaxRandomness}
	}
	return ID(timestamp<<randomBits | uint64(randomness)), nil
}

// FromScalableFields builds a scalable ID. If timestamp is above
// [MaxTimestamp], randomness above [MaxScalableRandomness] or scalabilityID
// above [MaxScalabilityID] it returns a [*FieldError] (matching
// [ErrOutOfRange]) naming the first such field.
func FromScalableFields(timestamp uint64, randomness uint32, scalabilityID uint8) (ID, error) {
	switch {
	case timestamp > MaxTimestamp:
		return 0, &FieldError{Field: "timestamp", Value: timestamp, Max: MaxTimestamp}
	case randomness > MaxScalableRandomness:
		return 0, &FieldError{Field: "randomness", Value: uint64(randomness), Max: MaxScalableRandomness}
	case scalabilityID > MaxScalabilityID:
		return 0, &FieldError{Field: "scalability_id", Value: uint64(scalabilityID), Max: MaxScalabilityID}
	}
	return ID(timestamp<<randomBits | uint64(randomness)<<scalableBits | uint64(scalabilityID)), nil
}

// Int64 returns id as an int64, its SQL BIGINT form.
func (id ID) Int64() int64 { return int64(id) }

// Timestamp returns the 43-bit timestamp: milliseconds since the epoch of
// the generator that made id.
func (id ID) Timestamp() uint64 { return uint64(id) >> randomBits }

// Time returns the timestamp as a time.Time in UTC, to the millisecond,
// assuming the default epoch.
func (id ID) Time() time.Time { return id.TimeWithEpoch(DefaultEpoch()) }

// TimeWithEpoch returns the timestamp as a time.Time in epoch's location,
// counting from epoch.
func (id ID) TimeWithEpoch(epoch time.Time) time.Time {
	return epoch.Add(time.Duration(id.Timestamp()) * time.Millisecond)
}

// Randomness returns the 20-bit random part of a stand-alone ID.
func (id ID) Randomness() uint32 { return uint32(id) & randomMask }

// ScalableRandomness returns the 15-bit random part of a scalable ID.
func (id ID) ScalableRandomness() uint32 { return uint32(id) & randomMask >> scalableBits }

// ScalabilityID returns the 5-bit scalability ID of a scalable ID.
func (id ID) ScalabilityID() uint8 { return uint8(id) & MaxScalabilityID }

// IsZero reports whether id is the zero ID.
func (id ID) IsZero() bool { return id == 0 }

// MinAt returns the smallest ID with the given timestamp (milliseconds
// since the epoch): the random part (and scalability ID) zero. With [MaxAt]
// it bounds a range query such as WHERE id BETWEEN MinAt(t0) AND
// MaxAt(t1), which then returns exactly the IDs of the milliseconds t0 to
// t1, stand-alone or scalable. Above [MaxTimestamp] it returns a
// [*FieldError] (matching [ErrOutOfRange]).
func MinAt(timestamp uint64) (ID, error) { return FromFields(timestamp, 0) }

// MaxAt returns the largest ID with the given timestamp: the 20 bits below
// it all ones. Above [MaxTimestamp] it returns a [*FieldError] (matching
// [ErrOutOfRange]).
func MaxAt(timestamp uint64) (ID, error) { return FromFields(timestamp, MaxRandomness) }

// MinAtTime is [MinAt] for t truncated to the millisecond and counted from
// the default epoch (for a [Generator] with another epoch, pass MinAt the
// milliseconds since that epoch). It returns [ErrOutOfRange] for times
// before the default epoch or more than [MaxTimestamp] ms after it, however
// far.
func MinAtTime(t time.Time) (ID, error) {
	ts, err := timestampOf(t)
	if err != nil {
		return 0, err
	}
	return ID(ts << randomBits), nil
}

// MaxAtTime is [MaxAt] for t truncated to the millisecond and counted from
// the default epoch. It returns [ErrOutOfRange] for times before the default
// epoch or more than [MaxTimestamp] ms after it, however far.
func MaxAtTime(t time.Time) (ID, error) {
	ts, err := timestampOf(t)
	if err != nil {
		return 0, err
	}
	return ID(ts<<randomBits | randomMask), nil
}

// timestampOf returns t as milliseconds since the default epoch, or
// [ErrOutOfRange] if no ID can hold it.
func timestampOf(t time.Time) (uint64, error) {
	ms, ok := interop.UnixMillis(t, DefaultEpochMillis, DefaultEpochMillis+MaxTimestamp)
	if !ok {
		return 0, ErrOutOfRange
	}
	return uint64(ms - DefaultEpochMillis), nil
}

// Compare returns -1, 0 or +1 as id is less than, equal to or greater than
// other.
func (id ID) Compare(other ID) int {
	switch {
	case id < other:
		return -1
	case id > other:
		return 1
	}
	return 0
}
