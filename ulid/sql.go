package ulid

import (
	"database/sql/driver"
	"errors"
	"fmt"
)

// errScanNull is returned when NULL is scanned into a ULID.
var errScanNull = errors.New("ulid: cannot scan NULL into ULID (use NullULID)")

// Scan implements database/sql.Scanner. It accepts the 26-digit text as a
// string or []byte, and the 16 raw bytes as []byte. NULL is an error; scan
// nullable columns into NullULID. Scan does not retain src.
func (id *ULID) Scan(src any) error {
	switch src := src.(type) {
	case string:
		v, err := Parse(src)
		if err != nil {
			return err
		}
		*id = v
		return nil
	case []byte:
		if len(src) == 16 {
			*id = ULID(src)
			return nil
		}
		return id.UnmarshalText(src)
	case nil:
		return errScanNull
	}
	return fmt.Errorf("ulid: cannot scan %T into ULID", src)
}

// Value implements database/sql/driver.Valuer. It returns the 26-digit
// text, which sorts in a text column as the IDs do. To store the 16 raw
// bytes in a binary column (BINARY(16), BYTEA, UUID), pass Binary(id)
// instead.
func (id ULID) Value() (driver.Value, error) { return id.String(), nil }

// Binary is a ULID that database/sql stores as its 16 raw bytes rather
// than its text: db.Exec(query, ulid.Binary(id)) writes the bytes, and
// Scan((*ulid.Binary)(&id)) reads a column back (as ULID.Scan does, it
// accepts text too).
type Binary ULID

// Value implements database/sql/driver.Valuer: the 16 big-endian bytes.
func (b Binary) Value() (driver.Value, error) { return b[:], nil }

// Scan implements database/sql.Scanner as ULID.Scan does.
func (b *Binary) Scan(src any) error { return (*ULID)(b).Scan(src) }

// NullULID is a ULID that may be NULL in SQL and null in JSON. Valid is
// false for NULL.
type NullULID struct {
	ULID  ULID
	Valid bool
}

// Scan implements database/sql.Scanner: NULL sets Valid to false, anything
// else is scanned as ULID.Scan does.
func (n *NullULID) Scan(src any) error {
	if src == nil {
		*n = NullULID{}
		return nil
	}
	if err := n.ULID.Scan(src); err != nil {
		return err
	}
	n.Valid = true
	return nil
}

// Value implements database/sql/driver.Valuer: nil when not Valid, the
// 26-digit text otherwise.
func (n NullULID) Value() (driver.Value, error) {
	if !n.Valid {
		return nil, nil
	}
	return n.ULID.Value()
}

// MarshalJSON returns null when not Valid and the quoted 26-digit text
// otherwise.
func (n NullULID) MarshalJSON() ([]byte, error) {
	if !n.Valid {
		return []byte("null"), nil
	}
	b := make([]byte, 0, EncodedSize+2)
	b = append(b, '"')
	b, _ = n.ULID.AppendText(b)
	return append(b, '"'), nil
}

// UnmarshalJSON accepts null (Valid false) or a JSON string holding the
// 26-digit text.
func (n *NullULID) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*n = NullULID{}
		return nil
	}
	if len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"' {
		return fmt.Errorf("ulid: NullULID JSON must be a string or null, got %.40q", data)
	}
	if err := n.ULID.UnmarshalText(data[1 : len(data)-1]); err != nil {
		return err
	}
	n.Valid = true
	return nil
}
