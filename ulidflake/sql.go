package ulidflake

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"
)

// errScanNull is returned when NULL is scanned into an ID.
var errScanNull = errors.New("ulidflake: cannot scan NULL into ID")

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// Scan implements database/sql.Scanner. It accepts the integer form as an
// int64 (a BIGINT column) and the 13-digit text as a string or []byte; a
// negative integer is ErrOverflow and NULL is an error. Scan does not
// retain src.
func (id *ID) Scan(src any) error {
	switch src := src.(type) {
	case int64:
		v, err := FromInt64(src)
		if err != nil {
			return err
		}
		*id = v
		return nil
	case string:
		v, err := Parse(src)
		if err != nil {
			return err
		}
		*id = v
		return nil
	case []byte:
		return id.UnmarshalText(src)
	case nil:
		return errScanNull
	}
	return fmt.Errorf("ulidflake: cannot scan %T into ID", src)
}

// Value implements database/sql/driver.Valuer: the int64 form, for a
// BIGINT column. It returns ErrOverflow for a negative id.
func (id ID) Value() (driver.Value, error) {
	if id < 0 {
		return nil, ErrOverflow
	}
	return int64(id), nil
}
