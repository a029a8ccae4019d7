package scru128

import (
	"database/sql/driver"
	"errors"
	"fmt"
)

// errScanNull is returned when NULL is scanned into an ID.
var errScanNull = errors.New("scru128: cannot scan NULL into ID (use NullID)")

// Scan implements database/sql.Scanner. It accepts the 25-digit text as a
// string or []byte, and the 16 raw bytes as []byte. NULL is an error; scan
// nullable columns into NullID. Scan does not retain src.
func (id *ID) Scan(src any) error {
	switch src := src.(type) {
	case string:
		v, err := Parse(src)
		if err != nil {
			return err
		}
		*id = v
		return nil
	case []byte:
		return id.UnmarshalBinary(src)
	case nil:
		return errScanNull
	}
	return fmt.Errorf("scru128: cannot scan %T into ID", src)
}

// Value implements database/sql/driver.Valuer. It returns the 25-digit text,
// which sorts in a text column as the IDs do.
func (id ID) Value() (driver.Value, error) { return id.String(), nil }

// NullID is an ID that may be NULL in SQL and null in JSON. Valid is false
// for NULL.
type NullID struct {
	ID    ID
	Valid bool
}

// Scan implements database/sql.Scanner: NULL sets Valid to false, anything
// else is scanned as ID.Scan does.
func (n *NullID) Scan(src any) error {
	if src == nil {
		*n = NullID{}
		return nil
	}
	if err := n.ID.Scan(src); err != nil {
		return err
	}
	n.Valid = true
	return nil
}

// Value implements database/sql/driver.Valuer: nil when not Valid, the
// 25-digit text otherwise.
func (n NullID) Value() (driver.Value, error) {
	if !n.Valid {
		return nil, nil
	}
	return n.ID.Value()
}

// MarshalJSON returns null when not Valid and the quoted 25-digit text
// otherwise.
func (n NullID) MarshalJSON() ([]byte, error) {
	if !n.Valid {
		return []byte("null"), nil
	}
	b := make([]byte, 0, 27)
	b = append(b, '"')
	b, _ = n.ID.AppendText(b)
	return append(b, '"'), nil
}

// UnmarshalJSON accepts null (Valid false) or a JSON string holding the
// 25-digit text.
func (n *NullID) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*n = NullID{}
		return nil
	}
	if len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"' {
		return fmt.Errorf("scru128: NullID JSON must be a string or null, got %.40q", data)
	}
	if err := n.ID.UnmarshalText(data[1 : len(data)-1]); err != nil {
		return err
	}
	n.Valid = true
	return nil
}
