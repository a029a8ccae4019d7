package scru64

import (
	"database/sql/driver"
	"strconv"

	"github.com/fastid/scru128/internal/interop"
)

// Scan implements database/sql.Scanner. It accepts:
//
//   - an int64 (a BIGINT column, the home SCRU64 is made for) or a uint64
//     (from drivers of unsigned columns);
//   - as a string or []byte, the 12-character text, or the decimal text of
//     the integer (what SQLite hands back for an integer stored in a TEXT
//     column): digits 0-9 only, no sign or spaces;
//   - as a []byte, the 8 big-endian bytes.
//
// The forms are told apart by length: 12 bytes are the text form, 8 bytes
// given as a []byte the binary form, and anything else decimal text.
// Digits alone can have two readings, and Scan never takes the one that
// gives another ID than was written. 12 digits are always the text form:
// the decimal text of an ID has 12 digits only below 10^12, which no
// [Generator] mints (their timestamps start at [MinTimestamp]) and for
// which Value returns an error. 8 digits given as a []byte read as two
// IDs, the binary form and decimal text: Scan takes neither and returns an
// [*AmbiguousError] (matching [ErrAmbiguous]) that names both. An integer
// source has one reading.
//
// Integers above [Max], negative ones, and decimal text above Max are
// [ErrOutOfRange]; a bad character is an [*InvalidCharacterError] with its
// offset, and empty text a [*LengthError] (matching [ErrInvalidLength]).
// SQL NULL is [ErrScanNull]: scan nullable columns into a [NullID]. Other
// source types are an error wrapping [ErrScanType]. Scan does not retain
// src; on error id is left unchanged.
func (id *ID) Scan(src any) error {
	return interop.Scan64(id, src, uint64(Max), 12, Parse, true, &errs)
}

// Value implements database/sql/driver.Valuer. It returns the ID as an
// int64, for a BIGINT column, where IDs sort as they do everywhere else. It
// returns [ErrOutOfRange] for a value above [Max] (made by converting a larger
// integer to ID), and an [*AmbiguousError] for an ID from 10^11 to
// 10^12-1, which no [Generator] mints (made by [FromParts] or a
// conversion): a text column given its int64 would hold 12 digits, which
// [ID.Scan] reads as the text form of another ID.
//
// A TEXT column given the int64 stores decimal text, which Scan reads
// back but which sorts as text, not by value, once IDs differ in their
// number of digits; to keep a text column in ID order store the 12-digit
// text instead (pass id.String()).
//
// Never pass id.String() for an integer column: a database that converts
// text to integers there (PostgreSQL, SQLite's INTEGER affinity) stores an
// ID whose text is all digits as that decimal number, another ID, which no
// Scan can tell from a stored one.
func (id ID) Value() (driver.Value, error) {
	switch {
	case id > Max:
		return nil, ErrOutOfRange
	case id >= 1e11 && id < 1e12:
		// Every 12-digit text is in range: Parse cannot fail here.
		asText, _ := Parse(strconv.FormatUint(uint64(id), 10))
		return nil, &AmbiguousError{Form: "text", AsForm: asText, AsDecimal: id, value: true}
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
