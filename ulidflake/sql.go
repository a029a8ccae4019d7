package ulidflake

import (
	"database/sql/driver"

	"github.com/fastid/scru128/internal/interop"
)

// Scan implements database/sql.Scanner. It accepts:
//
//   - an int64 (a BIGINT column) or a uint64 (from drivers of unsigned
//     columns);
//   - as a string or []byte, the 13-character text, or the decimal text of
//     the integer (what SQLite hands back for an integer stored in a TEXT
//     column): digits 0-9 only, no sign or spaces;
//   - as a []byte, the 8 big-endian bytes.
//
// The forms are told apart by length: 13 bytes are the text form, 8 bytes
// given as a []byte the binary form, and anything else decimal text. Digits
// alone can have two readings. An ID of the first 15m53.674s to
// 2h38m56.743s after its epoch (2024-01-01T00:00:00Z, or a generator's
// own) has 13 decimal digits, which a TEXT column holds after Value, and
// some IDs' text is all digits; 8 digits given as a []byte are also the
// binary form of an ID about a century after its epoch. Where both
// readings are IDs and differ, Scan takes neither: it returns an
// [*AmbiguousError] (matching [ErrAmbiguous]) that names both, so that a
// value never reads back as another ID. Where only one reading is an ID,
// or both give the same one, Scan takes it. An integer source has one
// reading. To read a text column known to hold one form, scan into a
// string and [Parse] it (text), or into an int64 (decimal).
//
// A negative integer, or a value above 2^63-1, is [ErrOutOfRange]; a bad
// character is an [*InvalidCharacterError] with its offset, and empty text
// a [*LengthError] (matching [ErrInvalidLength]). SQL NULL is
// [ErrScanNull]: scan nullable columns into a [NullID]. Other source types
// are an error wrapping [ErrScanType]. Scan does not retain src; on error
// id is left unchanged.
func (id *ID) Scan(src any) error {
	return interop.Scan64(id, src, uint64(Max), EncodedSize, Parse, false, &errs)
}

// Value implements database/sql/driver.Valuer: the int64 form, for a
// BIGINT column, where IDs sort as they do everywhere else. It returns
// [ErrOutOfRange] for a negative id.
//
// A TEXT column given the int64 stores decimal text, which Scan reads
// back (but for IDs whose 13 digits also read as the text form of another
// ID: see [ID.Scan]) and which sorts as text, not by value, once IDs
// differ in their number of digits; to keep a text column in ID order
// store the 13-character text instead (pass id.String()).
//
// Never pass id.String() for an integer column: a database that converts
// text to integers there (PostgreSQL, SQLite's INTEGER affinity) stores an
// ID whose text is all digits as that decimal number, another ID, which no
// Scan can tell from a stored one.
func (id ID) Value() (driver.Value, error) {
	if id < 0 {
		return nil, ErrOutOfRange
	}
	return int64(id), nil
}

// NullID is an ID that may be NULL in SQL and null in JSON. Valid is false
// for NULL.
//
// In JSON, null and the empty string "" both give Valid false, and an
// invalid NullID marshals as null. With the omitzero option (Go 1.24) a
// field is left out when it is the zero NullID, which is what NULL, null
// and "" leave. omitempty never leaves one out under encoding/json
// (a struct), and under json/v2 leaves out an invalid one (it marshals
// as null).
//
// Through fmt and log/slog a NullID prints as its ID's text, or null when
// not Valid ([NullID.Format], [NullID.LogValue]).
type NullID struct {
	ID    ID
	Valid bool
}

// Scan implements database/sql.Scanner: NULL sets Valid to false (and ID
// to zero); anything else is scanned as [ID.Scan] does and sets Valid. On
// error n is left unchanged.
func (n *NullID) Scan(src any) error { return interop.ScanNull(&n.ID, &n.Valid, src) }

// Value implements database/sql/driver.Valuer: nil (NULL) when not Valid,
// the ID as an int64 otherwise.
func (n NullID) Value() (driver.Value, error) { return interop.NullValue(n.ID, n.Valid) }

// MarshalJSON returns null when not Valid and the quoted 13-digit text
// otherwise ([ErrOutOfRange] for a negative ID).
func (n NullID) MarshalJSON() ([]byte, error) { return interop.MarshalNullJSON(n.ID, n.Valid) }

// UnmarshalJSON sets Valid false for null or "", and otherwise decodes
// what [ID.UnmarshalJSON] accepts and sets Valid. On error n is left
// unchanged.
func (n *NullID) UnmarshalJSON(data []byte) error {
	return interop.UnmarshalNullJSON(&n.ID, &n.Valid, data)
}
