package scru64

import (
	"database/sql/driver"
	"errors"
	"fmt"
)

// errScanNull is returned when NULL is scanned into an ID.
var errScanNull = errors.New("scru64: cannot scan NULL into ID (use NullID)")

// Scan implements database/sql.Scanner. It accepts an int64 (a BIGINT
// column, the home SCRU64 is made for), a uint64 (from drivers of unsigned
// columns), the 12-digit text as a string or []byte, and the 8 big-endian
// bytes as []byte. Negative integers and integers above Max are
// ErrOutOfRange. NULL is an error; scan nullable columns into NullID. Scan
// does not retain src. On error id is left unchanged.
func (id *ID) Scan(src any) error {
	var v ID
	var err error
	switch src := src.(type) {
	case int64:
		v, err = FromInt64(src)
	case uint64:
		v, err = FromUint64(src)
	case string:
		v, err = Parse(src)
	case []byte:
		return id.UnmarshalBinary(src)
	case nil:
		return errScanNull
	default:
		return fmt.Errorf("scru64: cannot scan %T into ID", src)
	}
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// Value implements database/sql/driver.Valuer. It returns the ID as an
// int64, for a BIGINT column, where IDs sort as they do everywhere else. It
// returns ErrOutOfRange for a value above Max (made by converting a larger
// integer to ID).
func (id ID) Value() (driver.Value, error) {
	if id > Max {
		return nil, ErrOutOfRange
	}
	return int64(id), nil
}

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

// Value implements database/sql/driver.Valuer: nil when not Valid, the ID
// as an int64 otherwise.
func (n NullID) Value() (driver.Value, error) {
	if !n.Valid {
		return nil, nil
	}
	return n.ID.Value()
}

// MarshalJSON returns null when not Valid and the quoted 12-digit text
// otherwise.
func (n NullID) MarshalJSON() ([]byte, error) {
	if !n.Valid {
		return []byte("null"), nil
	}
	return n.ID.MarshalJSON()
}

// UnmarshalJSON accepts null (Valid false), or what ID.UnmarshalJSON
// accepts.
func (n *NullID) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*n = NullID{}
		return nil
	}
	if err := n.ID.UnmarshalJSON(data); err != nil {
		return err
	}
	n.Valid = true
	return nil
}
