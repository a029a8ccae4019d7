package scru64

import (
	"database/sql/driver"

	"github.com/fastid/scru128/internal/interop"
)

// Scan implements database/sql.Scanner. It accepts:
//
//   - an int64 (a BIGINT column, the home SCRU64 is made for) or a uint64
//     (from drivers of unsigned columns);
//   - as a string or []byte, the 12-digit text, or the decimal text of the
//     integer (what SQLite hands back for an integer stored in a TEXT
//     column): digits 0-9 only, no sign or spaces;
//   - as a []byte, the 8 big-endian bytes.
//
// The forms are told apart by length: 12 bytes are the text form (so a
// decimal number of exactly 12 digits, below 10^12, cannot be read as
// text; no real ID is that small), 8 bytes given as a []byte are the binary
// form, and anything else is decimal. Integers above [Max], negative ones,
// and decimal text above Max are [ErrOutOfRange]; a bad character is an
// [*InvalidCharacterError] with its offset, and empty text a [*LengthError]
// (matching [ErrInvalidLength]). SQL NULL is [ErrScanNull]: scan
// nullable columns into a [NullID]. Other source types are an error wrapping
// [ErrScanType]. Scan does not retain src; on error id is left unchanged.
func (id *ID) Scan(src any) error {
	return interop.Scan64(id, src, uint64(Max), 12, Parse, &errs)
}

// Value implements database/sql/driver.Valuer. It returns the ID as an
// int64, for a BIGINT column, where IDs sort as they do everywhere else. It
// returns [ErrOutOfRange] for a value above [Max] (made by converting a larger
// integer to ID).
//
// A TEXT column given the int64 stores decimal text, which Scan reads
// back but which sorts as text, not by value, once IDs differ in their
// number of digits; to keep a text column in ID order store the 12-digit
// text instead (pass id.String()).
func (id ID) Value() (driver.Value, error) {
	if id > Max {
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

// Value implements database/sql/driver.Valuer: nil when not Valid, the ID
// as an int64 otherwise.
func (n NullID) Value() (driver.Value, error) { return interop.NullValue(n.ID, n.Valid) }

// MarshalJSON returns null when not Valid and the quoted 12-digit text
// otherwise ([ErrOutOfRange] for an ID above [Max]).
func (n NullID) MarshalJSON() ([]byte, error) { return interop.MarshalNullJSON(n.ID, n.Valid) }

// UnmarshalJSON sets Valid false for null or "", and otherwise decodes
// what [ID.UnmarshalJSON] accepts and sets Valid. On error n is left
// unchanged.
func (n *NullID) UnmarshalJSON(data []byte) error {
	return interop.UnmarshalNullJSON(&n.ID, &n.Valid, data)
}
