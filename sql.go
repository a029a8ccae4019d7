package scru128

import (
	"database/sql/driver"

	"github.com/fastid/scru128/internal/interop"
)

// Scan implements database/sql.Scanner. It accepts, as a string or []byte:
//
//   - the 25-digit text, which Value stores;
//   - the 36-character hyphenated UUID form (01a20ae5-cd8b-ec48-3da7-86bbd79a5a50),
//     which PostgreSQL returns for a uuid column, and the same 32
//     hexadecimal digits without hyphens, in either case;
//
// and, as a []byte only, the 16 raw bytes (a BYTEA or BINARY(16) column).
// Any other length is a [*LengthError] (matching [ErrInvalidLength]) with
// Want 25, whose text lists every length accepted; a bad character in a
// form of the right length is an [*InvalidCharacterError] with its offset. SQL NULL is
// [ErrScanNull]: scan nullable columns into a [NullID]. Other source types are
// an error wrapping [ErrScanType]. Scan does not retain src; on error id is
// left unchanged.
func (id *ID) Scan(src any) error {
	return interop.Scan128(id, src, 25, Parse, &errs)
}

// Value implements database/sql/driver.Valuer. It returns the 25-digit text,
// for a text column (TEXT, VARCHAR(25), CHAR(25)), where IDs sort as they
// do everywhere else. For a binary or uuid column pass Binary(id) instead:
// a driver given the text for such a column stores its 25 bytes, or fails.
func (id ID) Value() (driver.Value, error) { return id.String(), nil }

// Binary is an ID that database/sql stores as its 16 raw bytes rather than
// its text, for a BYTEA, BLOB, BINARY(16) or PostgreSQL uuid column (pgx
// binds 16 bytes to a uuid parameter). Convert to pass one:
//
//	db.Exec("INSERT INTO t (id) VALUES ($1)", scru128.Binary(id))
//	lo, _ := scru128.MinAtTime(from)
//	hi, _ := scru128.MaxAtTime(to)
//	db.Query("SELECT id FROM t WHERE id BETWEEN $1 AND $2", scru128.Binary(lo), scru128.Binary(hi))
//
// Range bounds need the conversion too: bound as text, they compare as 25
// text bytes against the stored 16, which matches nothing (or fails). To
// read, scan into an ID, which accepts the bytes; (*Binary)(&id) works as
// well. A Binary prints as its ID does ([Binary.Format]).
type Binary ID

// Value implements database/sql/driver.Valuer: the 16 big-endian bytes.
func (b Binary) Value() (driver.Value, error) { return b[:], nil }

// Scan implements database/sql.Scanner as [ID.Scan] does.
func (b *Binary) Scan(src any) error { return (*ID)(b).Scan(src) }

// NullID is an ID that may be NULL in SQL and null in JSON. Valid is false
// for NULL. It stores the text; convert to [NullBinary] for a binary or uuid
// column.
//
// In JSON, null and the empty string "" both give Valid false, and an
// invalid NullID marshals as null. With the omitzero option (Go 1.24) a
// field is left out when it is the zero NullID, which is what NULL, null
// and "" leave. omitempty never leaves one out under encoding/json
// (a struct), and under json/v2 leaves out an invalid one (it marshals
// as null). Through fmt and log/slog a NullID prints as its ID's text, or
// null when not Valid ([NullID.Format], [NullID.LogValue]).
type NullID struct {
	ID    ID
	Valid bool
}

// Scan implements database/sql.Scanner: NULL sets Valid to false (and ID
// to zero); anything else is scanned as [ID.Scan] does and sets Valid. On
// error n is left unchanged.
func (n *NullID) Scan(src any) error { return interop.ScanNull(&n.ID, &n.Valid, src) }

// Value implements database/sql/driver.Valuer: nil (NULL) when not Valid,
// the 25-digit text otherwise.
func (n NullID) Value() (driver.Value, error) { return interop.NullValue(n.ID, n.Valid) }

// MarshalJSON returns null when not Valid and the quoted 25-digit text
// otherwise.
func (n NullID) MarshalJSON() ([]byte, error) { return interop.MarshalNullJSON(n.ID, n.Valid) }

// UnmarshalJSON sets Valid false for null or "", and otherwise decodes the
// JSON string as [ID.UnmarshalJSON] does and sets Valid. On error n is left
// unchanged.
func (n *NullID) UnmarshalJSON(data []byte) error {
	return interop.UnmarshalNullJSON(&n.ID, &n.Valid, data)
}

// NullBinary is a [NullID] that database/sql stores as 16 raw bytes, as
// [Binary] does: pass scru128.NullBinary(n), or scan into
// (*scru128.NullBinary)(&n). In JSON it is what a NullID is, and it
// also reads the object it marshalled to before it had JSON methods.
type NullBinary NullID

// Value implements database/sql/driver.Valuer: nil (NULL) when not Valid,
// the 16 big-endian bytes otherwise.
func (n NullBinary) Value() (driver.Value, error) { return interop.NullValue(Binary(n.ID), n.Valid) }

// Scan implements database/sql.Scanner as [NullID.Scan] does.
func (n *NullBinary) Scan(src any) error { return (*NullID)(n).Scan(src) }
