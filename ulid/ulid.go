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
//   - New (or Make, the name github.com/oklog/ulid/v2 uses), or a
//     Generator: one monotonic stream, strictly increasing across all
//     goroutines, as the specification's monotonic factory describes.
//   - NewUnordered: a fresh random part for every ID from per-P sources,
//     for raw throughput when order within a millisecond does not matter.
//   - NewAt: a ULID for a given time, for backfilling old records.
//
// Parsing is strict: a wrong length, a byte outside the Crockford alphabet
// (I, L, O and U included) or a value above 7ZZZZZZZZZZZZZZZZZZZZZZZZZ is an
// error that says which and where ([*LengthError], [*InvalidCharacterError]),
// never a different ID. [Validate] checks a text without keeping the ULID,
// and [Zero] is the zero ULID.
//
// For database/sql a ULID stores its text (TEXT, VARCHAR, CHAR(26)) and
// Binary(id) its 16 bytes (BYTEA, BLOB, BINARY(16), PostgreSQL uuid);
// [NullULID] and [NullBinary] handle NULL. Scan reads all of these back,
// including the hyphenated and plain hexadecimal UUID forms that uuid
// columns return. Both storages sort as ULIDs do, so [MinAt], [MaxAt],
// [MinAtTime] and [MaxAtTime] bound range queries by time (bind the bounds as
// [Binary] for a binary column).
//
// # Coming from github.com/oklog/ulid/v2
//
// The bytes and the text are the same, and most names too: [Make], [Zero],
// [ErrOverflow], and [Parse] and [MustParse], which are strict as oklog's
// ParseStrict and MustParseStrict are. What differs where code compiles
// with either and behaves otherwise:
//
//   - [ULID.Time] and [ULID.Timestamp] are the other way round: here
//     Timestamp returns the Unix milliseconds (oklog's Time) and Time a
//     time.Time (oklog's Timestamp).
//   - [ULID.Value] stores the 26-character text; oklog's stores the 16
//     bytes. A column that oklog wrote holds bytes, so bind Binary(id) to
//     write to it or to match it in WHERE id = ?; a plain ULID there is
//     compared as 26 text bytes and matches nothing. Scan reads both.
//   - Scan of SQL NULL into a ULID is [ErrScanNull] (oklog leaves the ULID
//     as it was): scan nullable columns into a [NullULID].
//   - Parse rejects what oklog's Parse would turn into a wrong ULID.
//   - %x writes the 16 bytes in hexadecimal, where oklog's writes the
//     hexadecimal of the text; %v and %s write the text with either.
package ulid

import (
	"encoding/binary"
	"time"

	"github.com/fastid/scru128/internal/interop"
	"github.com/fastid/scru128/internal/uint128"
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
// (the spec's randomness, returned by [ULID.Entropy]). The text form is 26
// Crockford Base32 digits, 10 for the time and 16 for the random part,
// written in upper case. The zero ULID is valid and reported by [ULID.IsZero].
type ULID [16]byte

const (
	// EncodedSize is the length of the text form.
	EncodedSize = 26
	// MaxTimestamp is the largest timestamp a ULID can hold (2^48-1 ms, in
	// the year 10889).
	MaxTimestamp = 1<<48 - 1
)

// Zero is the zero ULID, whose text is 00000000000000000000000000: the
// name github.com/oklog/ulid/v2 gives it, with [Max] at the other end. It
// sorts before every other ULID, and no [Generator] returns it (a
// timestamp of 0 is invalid to them), so it can stand for "no ULID":
// compare with it, or use [ULID.IsZero]. It is a variable only because Go
// has no array constants; do not assign to it.
var Zero ULID

// Max is the largest ULID, whose text is 7ZZZZZZZZZZZZZZZZZZZZZZZZZ.
var Max = ULID{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}

// FromFields builds a ULID from a Unix timestamp in milliseconds and the 10
// bytes of the random part. If timestamp is above [MaxTimestamp] it returns
// a [*FieldError] (matching [ErrOutOfRange]).
func FromFields(timestamp uint64, entropy [10]byte) (ULID, error) {
	if timestamp > MaxTimestamp {
		return ULID{}, &FieldError{Field: "timestamp", Value: timestamp, Max: MaxTimestamp}
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

// Timestamp returns the 48-bit Unix timestamp in milliseconds, as the
// Timestamp methods of this module's other ID types do.
//
// Coming from github.com/oklog/ulid/v2: there the names are the other way
// round. oklog's id.Time() returns these milliseconds and its
// id.Timestamp() a time.Time; here Timestamp returns the milliseconds and
// [ULID.Time] the time.Time. Code such as fmt.Println(id.Timestamp())
// compiles with both and prints something else, so rename both calls when
// you switch.
func (id ULID) Timestamp() uint64 { return binary.BigEndian.Uint64(id[0:8]) >> 16 }

// Time returns the timestamp as a time.Time in UTC, to the millisecond.
//
// Coming from github.com/oklog/ulid/v2: oklog's id.Time() returns the Unix
// milliseconds as a uint64, which is [ULID.Timestamp] here, and its
// id.Timestamp() returns this time.Time.
func (id ULID) Time() time.Time { return time.UnixMilli(int64(id.Timestamp())).UTC() }

// Entropy returns the 80-bit random part, bytes 6-15.
func (id ULID) Entropy() (e [10]byte) {
	copy(e[:], id[6:])
	return e
}

// Compare returns -1, 0 or +1 as id is less than, equal to or greater than
// other, comparing them as 128-bit unsigned integers (and so as text).
func (id ULID) Compare(other ULID) int { return uint128.Compare(id, other) }

// IsZero reports whether id is the zero ULID.
func (id ULID) IsZero() bool { return id == ULID{} }

// MinAt returns the smallest ULID with the given timestamp (Unix
// milliseconds): the random part all zeros. With [MaxAt] it bounds a range
// query such as WHERE id BETWEEN MinAt(t0) AND MaxAt(t1), which then
// returns exactly the ULIDs of the milliseconds t0 to t1; bind the bounds
// as the column stores IDs (Binary(lo) for a binary or uuid column). Above
// [MaxTimestamp] it returns a [*FieldError] (matching [ErrOutOfRange]).
func MinAt(timestamp uint64) (ULID, error) { return FromFields(timestamp, [10]byte{}) }

// MaxAt returns the largest ULID with the given timestamp: the random part
// all ones. Above [MaxTimestamp] it returns a [*FieldError] (matching
// [ErrOutOfRange]).
func MaxAt(timestamp uint64) (ULID, error) { return FromFields(timestamp, maxEntropy) }

// maxEntropy is the largest random part.
var maxEntropy = [10]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}

// MinAtTime is [MinAt] for t truncated to the millisecond. It returns
// [ErrOutOfRange] for times before the Unix epoch or after [MaxTimestamp],
// however far.
func MinAtTime(t time.Time) (ULID, error) {
	ms, err := timestampOf(t)
	if err != nil {
		return ULID{}, err
	}
	return FromFields(ms, [10]byte{})
}

// MaxAtTime is [MaxAt] for t truncated to the millisecond. It returns
// [ErrOutOfRange] for times before the Unix epoch or after [MaxTimestamp],
// however far.
func MaxAtTime(t time.Time) (ULID, error) {
	ms, err := timestampOf(t)
	if err != nil {
		return ULID{}, err
	}
	return FromFields(ms, maxEntropy)
}

// timestampOf returns t's Unix millisecond as a timestamp, or
// [ErrOutOfRange] if no ULID can hold it.
func timestampOf(t time.Time) (uint64, error) {
	ms, ok := interop.UnixMillis(t, 0, MaxTimestamp)
	if !ok {
		return 0, ErrOutOfRange
	}
	return uint64(ms), nil
}

// UUID returns the 16 bytes of id unchanged, as a value that converts to
// any UUID type: uuid.UUID(id.UUID()) with github.com/google/uuid or
// github.com/gofrs/uuid, pgtype.UUID{Bytes: id.UUID(), Valid: true} with
// pgx. The conversion is lossless both ways (see [FromUUID]), and a
// PostgreSQL uuid column compares the bytes as ULIDs compare, though the
// result is not an RFC 9562 UUID: a ULID has no version or variant bits.
// uuid.UUID(id) converts directly as well.
func (id ULID) UUID() [16]byte { return id }

// FromUUID returns the ULID with the 16 bytes of u, the inverse of
// [ULID.UUID]. It accepts any [16]byte, such as a uuid.UUID, and never fails.
func FromUUID(u [16]byte) ULID { return u }
