package ulid

import (
	"database/sql/driver"

	"github.com/fastid/scru128/internal/interop"
)

// Scan implements database/sql.Scanner. It accepts, as a string or []byte:
//
//   - the 26-digit text, which Value stores;
//   - the 36-character hyphenated UUID form (01563e3a-b5d3-d676-4c61-efb99302bd5b),
//     which PostgreSQL returns for a uuid column, and the same 32
//     hexadecimal digits without hyphens, in either case;
//
// and, as a []byte only, the 16 raw bytes (a BYTEA or BINARY(16) column).
// Any other length is a [*LengthError] (matching [ErrInvalidLength]) with
// Want 26, whose text lists every length accepted; a bad character in a
// form of the right length is an [*InvalidCharacterError] with its offset. SQL NULL is
// [ErrScanNull]: scan nullable columns into a [NullULID]. Other source types
// are an error wrapping [ErrScanType]. Scan does not retain src; on error id
// is left unchanged.
func (id *ULID) Scan(src any) error {
	return interop.Scan128(id, src, EncodedSize, Parse, &errs)
}

// Value implements database/sql/driver.Valuer. It returns the 26-digit
// text, for a text column (TEXT, VARCHAR(26), CHAR(26)), where IDs sort as
// they do everywhere else. For a binary or uuid column pass Binary(id)
// instead: a driver given the text for such a column stores its 26 bytes,
// or fails.
//
// Coming from github.com/oklog/ulid/v2, whose Value returns the 16 bytes:
// a column written through oklog holds those bytes (a BLOB, BYTEA or
// BINARY(16) column), so bind Binary(id) to match a row there, as in
// db.QueryRow("SELECT ... WHERE id = ?", ulid.Binary(id)), and to write
// rows that match later. A plain ULID bound there compares its 26 text
// bytes with the 16 stored and matches nothing. Scan reads the 16 bytes
// and the text alike.
func (id ULID) Value() (driver.Value, error) { return id.String(), nil }

// Binary is a ULID that database/sql stores as its 16 raw bytes rather
// than its text, for a BYTEA, BLOB, BINARY(16) or PostgreSQL uuid column
// (pgx binds 16 bytes to a uuid parameter). Convert to pass one:
//
//	db.Exec("INSERT INTO t (id) VALUES ($1)", ulid.Binary(id))
//	lo, _ := ulid.MinAtTime(from)
//	hi, _ := ulid.MaxAtTime(to)
//	db.Query("SELECT id FROM t WHERE id BETWEEN $1 AND $2", ulid.Binary(lo), ulid.Binary(hi))
//
// Range bounds need the conversion too: bound as text, they compare as 26
// text bytes against the stored 16, which matches nothing (or fails). To
// read, scan into a ULID, which accepts the bytes; (*Binary)(&id) works as
// well.
//
// A Binary prints as its ULID does ([Binary.Format]).
type Binary ULID

// Value implements database/sql/driver.Valuer: the 16 big-endian bytes.
func (b Binary) Value() (driver.Value, error) { return b[:], nil }

// Scan implements database/sql.Scanner as [ULID.Scan] does.
func (b *Binary) Scan(src any) error { return (*ULID)(b).Scan(src) }

// NullULID is a ULID that may be NULL in SQL and null in JSON. Valid is
// false for NULL. It stores the text; convert to [NullBinary] for a binary
// or uuid column.
//
// In JSON, null and the empty string "" both give Valid false, and an
// invalid NullULID marshals as null. With the omitzero option (Go 1.24) a
// field is left out when it is the zero NullULID, which is what NULL, null
// and "" leave. omitempty never leaves one out under encoding/json
// (a struct), and under json/v2 leaves out an invalid one (it marshals
// as null).
//
// Through fmt and log/slog a NullULID prints as its ULID's text, or null when
// not Valid ([NullULID.Format], [NullULID.LogValue]).
type NullULID struct {
	ULID  ULID
	Valid bool
}

// Scan implements database/sql.Scanner: NULL sets Valid to false (and ULID
// to zero); anything else is scanned as [ULID.Scan] does and sets Valid.
// On error n is left unchanged.
func (n *NullULID) Scan(src any) error { return interop.ScanNull(&n.ULID, &n.Valid, src) }

// Value implements database/sql/driver.Valuer: nil (NULL) when not Valid,
// the 26-digit text otherwise.
func (n NullULID) Value() (driver.Value, error) { return interop.NullValue(n.ULID, n.Valid) }

// MarshalJSON returns null when not Valid and the quoted 26-digit text
// otherwise.
func (n NullULID) MarshalJSON() ([]byte, error) { return interop.MarshalNullJSON(n.ULID, n.Valid) }

// UnmarshalJSON sets Valid false for null or "", and otherwise decodes the
// JSON string as [ULID.UnmarshalJSON] does and sets Valid. On error n is
// left unchanged.
func (n *NullULID) UnmarshalJSON(data []byte) error {
	return interop.UnmarshalNullJSON(&n.ULID, &n.Valid, data)
}

// NullBinary is a [NullULID] that database/sql stores as 16 raw bytes, as
// [Binary] does: pass ulid.NullBinary(n), or scan into
// (*ulid.NullBinary)(&n). In JSON it is what a NullULID is, and it
// also reads the object it marshalled to before it had JSON methods.
type NullBinary NullULID

// Value implements database/sql/driver.Valuer: nil (NULL) when not Valid,
// the 16 big-endian bytes otherwise.
func (n NullBinary) Value() (driver.Value, error) { return interop.NullValue(Binary(n.ULID), n.Valid) }

// Scan implements database/sql.Scanner as [NullULID.Scan] does.
func (n *NullBinary) Scan(src any) error { return (*NullULID)(n).Scan(src) }
