// Package scru128 mints, encodes and parses SCRU128 IDs: 128-bit,
// time-ordered, unique identifiers with a 25-digit case-insensitive Base36
// text form (for example 0372hg16csmsm50l8dikcvukc), as defined by the
// SCRU128 specification v2.1.1.
//
// An [ID] is a 48-bit Unix timestamp in milliseconds, a 24-bit counter_hi
// renewed about once a second, a 24-bit counter_lo renewed every
// millisecond and incremented for each ID within it, and 32 bits of entropy
// fresh for every ID. IDs sort by time both as 16 big-endian bytes and as
// text.
//
// # Minting
//
// [New] returns an ID from a package-level [Generator]; [NewString] returns
// its text and [AppendNew] appends its text to a buffer without
// allocating. A Generator is one monotonic stream shared by any number of
// goroutines, without a lock: IDs are strictly increasing in the order the
// calls happen, across all goroutines, and never repeat. New,
// [Generator.Generate] and AppendNew do not allocate.
//
// [NewUnordered], [NewUnorderedString] and [AppendNewUnordered] mint from a
// package-level [Pool] instead: per-P shards that scale with cores, giving
// up the order between goroutines within a millisecond. IDs stay unique
// and time-ordered to the millisecond. Use New when order matters.
//
// Make your own Generator with [NewGenerator] when you want a stream of
// your own, or [NewGeneratorWithRng] to supply the random bytes. Generate
// resets the stream if the clock moves back by more than 10 seconds, as the
// specification recommends; [Generator.GenerateOrAbort] returns
// [ErrClockRollback] instead. The Core methods
// ([Generator.GenerateOrResetCore], [Generator.GenerateOrAbortCore]) take
// the timestamp from the caller, for tests and simulations, and return
// exactly the IDs of the specification's algorithm. [NewAt] mints an ID
// for a given time with fresh random fields, for backfilling old records.
//
// # Encoding and parsing
//
// [ID.String], [ID.AppendText] and [ID.MarshalText] write the 25 lower-case
// digits; AppendText does not allocate. [Parse] and [ParseBytes] accept
// upper or lower case and are strict: any other length is a [*LengthError]
// with the length received and expected, a character outside [0-9a-zA-Z]
// is an [*InvalidCharacterError] with the character and its offset, and a
// value above 2^128-1 is a [*RangeError] naming the largest text,
// f5lxx1zz5pnorynqglhzmsp33; the typed errors match the sentinels
// [ErrInvalidLength], [ErrInvalidCharacter] and [ErrOutOfRange] under
// errors.Is. [Validate] checks a text without
// keeping the ID. [Nil] is the zero ID and [Max] the largest. JSON uses the
// text form; binary marshalling uses the 16 bytes, which [ID.UUID] and
// [FromUUID] exchange with UUID types.
//
// Through fmt an ID prints its text for %v and %s and its 16 bytes in
// hexadecimal for %x ([ID.Format]); [Binary], [NullID] and [NullBinary]
// print the same text, or null for a NULL, and so does log/slog, through
// their LogValue methods.
//
// # Databases
//
// For database/sql, an ID stores its text (a TEXT or VARCHAR column), and
// [Binary](id) its 16 bytes (BYTEA, BLOB, BINARY(16), or a PostgreSQL uuid
// column); [NullID] and [NullBinary] handle NULL. [ID.Scan] reads any of
// these back: the text, the 16 bytes, and the hyphenated and plain
// hexadecimal UUID forms that uuid columns return. Stored either way, IDs
// sort in the database as they do here, so [MinAt], [MaxAt], [MinAtTime]
// and [MaxAtTime] bound range queries by time: bind the bounds the way the
// column stores IDs (Binary(lo) for a binary column). NULL scanned into an
// ID is [ErrScanNull]; an unsupported source type is [ErrScanType].
package scru128
