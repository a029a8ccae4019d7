package legacy

import (
	"database/sql/driver"
	"errors"
	"fmt"
)

// AppendBinary appends the 16 big-endian bytes of id to b. The error is
// always nil.
func (id ID) AppendBinary(b []byte) ([]byte, error) { return append(b, id[:]...), nil }

// MarshalBinary returns the 16 big-endian bytes of id. The error is always
// nil.
func (id ID) MarshalBinary() ([]byte, error) { return id.AppendBinary(make([]byte, 0, 16)) }

// UnmarshalBinary sets id from its 16 big-endian bytes. Any other length is
// ErrInvalidLength, and id is left unchanged.
func (id *ID) UnmarshalBinary(data []byte) error {
	if len(data) != 16 {
		return ErrInvalidLength
	}
	*id = ID(data)
	return nil
}

// errScanNull is returned when NULL is scanned into an ID.
var errScanNull = errors.New("legacy: cannot scan NULL into ID")

// Scan implements database/sql.Scanner. It accepts the 26-digit text as a
// string or []byte, and the 16 raw bytes as []byte. NULL is an error. Scan
// does not retain src.
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
		if len(src) == 16 {
			*id = ID(src)
			return nil
		}
		return id.UnmarshalText(src)
	case nil:
		return errScanNull
	}
	return fmt.Errorf("legacy: cannot scan %T into ID", src)
}

// Value implements database/sql/driver.Valuer: the 26-digit text, which
// sorts in a text column as the IDs do.
func (id ID) Value() (driver.Value, error) { return id.String(), nil }
