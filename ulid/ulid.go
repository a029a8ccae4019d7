// Package ulid implements ULID, the Universally Unique Lexicographically
// Sortable Identifier (https://github.com/ulid/spec): a 48-bit millisecond
// timestamp and 80 random bits, written as 26 Crockford Base32 digits.
//
// The bytes and the text are those of every other ULID library, so a ULID
// converts to and from github.com/oklog/ulid/v2's ULID and to a UUID
// (github.com/google/uuid, github.com/gofrs/uuid) with a plain type
// conversion, and the text round-trips unchanged.
//
// Which way to mint:
//
//   - Make, or a Generator: one monotonic stream, strictly increasing across
//     all goroutines, as the specification's monotonic factory describes.
//   - New: a fresh random part for every ID from per-P shards, for raw
//     throughput when order within a millisecond does not matter.
//
// Parsing is strict: a wrong length, a byte outside the Crockford alphabet
// (I, L, O and U included) or a value above 7ZZZZZZZZZZZZZZZZZZZZZZZZZ is an
// error, never a different ID.
package ulid

import (
	"encoding/binary"
	"time"
)

// ULID is a 128-bit identifier stored big-endian, so comparing ULIDs byte by
// byte orders them as integers and by time.
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                      32_bit_uint_time_high                    |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|     16_bit_uint_time_low      |       16_bit_uint_random      |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                       32_bit_uint_random                      |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                       32_bit_uint_random                      |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// Bytes 0-5 hold the Unix time in milliseconds, bytes 6-15 the random part
// (the spec's randomness, returned by Entropy). The text form is 26
// Crockford Base32 digits, 10 for the time and 16 for the random part,
// written in upper case. The zero ULID is valid and reported by IsZero.
type ULID [16]byte

const (
	// EncodedSize is the length of the text form.
	EncodedSize = 26
	// MaxTimestamp is the largest timestamp a ULID can hold (2^48-1 ms, in
	// the year 10889).
	MaxTimestamp = 1<<48 - 1
)

// Max is the largest ULID, whose text is 7ZZZZZZZZZZZZZZZZZZZZZZZZZ.
var Max = ULID{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}

// FromFields builds a ULID from a Unix timestamp in milliseconds and the 10
// bytes of the random part. It returns ErrInvalidTimestamp if timestamp is
// above MaxTimestamp.
func FromFields(timestamp uint64, entropy [10]byte) (ULID, error) {
	if timestamp > MaxTimestamp {
		return ULID{}, ErrInvalidTimestamp
	}
	var id ULID
	putTimestamp(&id, timestamp)
	copy(id[6:], entropy[:])
	return id, nil
}

// FromUint64s builds a ULID from its high and low 64 bits.
func FromUint64s(hi, lo uint64) (id ULID) {
	binary.BigEndian.PutUint64(id[0:8], hi)
	binary.BigEndian.PutUint64(id[8:16], lo)
	return id
}

// Uint64s returns the high and low 64 bits of id.
func (id ULID) Uint64s() (hi, lo uint64) {
	return binary.BigEndian.Uint64(id[0:8]), binary.BigEndian.Uint64(id[8:16])
}

func putTimestamp(id *ULID, timestamp uint64) {
	id[0], id[1], id[2] = byte(timestamp>>40), byte(timestamp>>32), byte(timestamp>>24)
	id[3], id[4], id[5] = byte(timestamp>>16), byte(timestamp>>8), byte(timestamp)
}

// Timestamp returns the 48-bit Unix timestamp in milliseconds.
func (id ULID) Timestamp() uint64 { return binary.BigEndian.Uint64(id[0:8]) >> 16 }

// Time returns the timestamp as a time.Time in UTC, to the millisecond.
func (id ULID) Time() time.Time { return time.UnixMilli(int64(id.Timestamp())).UTC() }

// Entropy returns the 80-bit random part, bytes 6-15.
func (id ULID) Entropy() (e [10]byte) {
	copy(e[:], id[6:])
	return e
}

// Compare returns -1, 0 or +1 as id is less than, equal to or greater than
// other, comparing them as 128-bit unsigned integers (and so as text).
func (id ULID) Compare(other ULID) int {
	ah, al := id.Uint64s()
	bh, bl := other.Uint64s()
	switch {
	case ah < bh:
		return -1
	case ah > bh:
		return 1
	case al < bl:
		return -1
	case al > bl:
		return 1
	}
	return 0
}

// IsZero reports whether id is the zero ULID.
func (id ULID) IsZero() bool { return id == ULID{} }

// MinAt returns the smallest ULID with the given timestamp: the random part
// all zeros. With MaxAt it bounds a range query such as
// WHERE id BETWEEN MinAt(t0) AND MaxAt(t1). It returns ErrInvalidTimestamp
// above MaxTimestamp.
func MinAt(timestamp uint64) (ULID, error) { return FromFields(timestamp, [10]byte{}) }

// MaxAt returns the largest ULID with the given timestamp: the random part
// all ones. It returns ErrInvalidTimestamp above MaxTimestamp.
func MaxAt(timestamp uint64) (ULID, error) {
	return FromFields(timestamp, [10]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
}

// MinAtTime is MinAt for t truncated to the millisecond. It returns
// ErrInvalidTimestamp for times before the Unix epoch or after MaxTimestamp.
func MinAtTime(t time.Time) (ULID, error) {
	ms := t.UnixMilli()
	if ms < 0 {
		return ULID{}, ErrInvalidTimestamp
	}
	return MinAt(uint64(ms))
}

// MaxAtTime is MaxAt for t truncated to the millisecond. It returns
// ErrInvalidTimestamp for times before the Unix epoch or after MaxTimestamp.
func MaxAtTime(t time.Time) (ULID, error) {
	ms := t.UnixMilli()
	if ms < 0 {
		return ULID{}, ErrInvalidTimestamp
	}
	return MaxAt(uint64(ms))
}

// UUID returns the 16 bytes of id unchanged, as a value that converts to
// any UUID type: uuid.UUID(id.UUID()) with github.com/google/uuid or
// github.com/gofrs/uuid. The conversion is lossless both ways (see
// FromUUID), though the result is not an RFC 9562 UUID: a ULID has no
// version or variant bits. uuid.UUID(id) converts directly as well.
func (id ULID) UUID() [16]byte { return id }

// FromUUID returns the ULID with the 16 bytes of u, the inverse of UUID. It
// accepts any [16]byte, such as a uuid.UUID, and never fails.
func FromUUID(u [16]byte) ULID { return u }
