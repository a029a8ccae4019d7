package interop

import (
	"database/sql/driver"
	"fmt"
)

// The logic of the Null types (scru128.NullID, ulid.NullULID, ...), each a
// struct of an ID and a Valid flag. A format's methods pass the two fields.

// ScanNull is a Null type's Scan: SQL NULL sets the ID to zero and valid
// to false; anything else is scanned by the ID's own Scan and sets valid.
// On error both are left as they were.
func ScanNull[T any, P interface {
	*T
	Scan(src any) error
}](id *T, valid *bool, src any) error {
	if src == nil {
		var zero T
		*id, *valid = zero, false
		return nil
	}
	v := *id
	if err := P(&v).Scan(src); err != nil {
		return err
	}
	*id, *valid = v, true
	return nil
}

// NullValue is a Null type's Value: nil (SQL NULL) when not valid, the
// ID's Value otherwise.
func NullValue[T driver.Valuer](id T, valid bool) (driver.Value, error) {
	if !valid {
		return nil, nil
	}
	return id.Value()
}

// MarshalNullJSON is a Null type's MarshalJSON: null when not valid, the
// ID's text as a JSON string otherwise. The text never needs escaping.
func MarshalNullJSON[T interface {
	AppendText(b []byte) ([]byte, error)
}](id T, valid bool) ([]byte, error) {
	if !valid {
		return []byte("null"), nil
	}
	b := make([]byte, 1, 32)
	b[0] = '"'
	b, err := id.AppendText(b)
	if err != nil {
		return nil, err
	}
	return append(b, '"'), nil
}

// UnmarshalNullJSON is a Null type's UnmarshalJSON: null and the empty
// string "" set the ID to zero and valid to false; anything else is
// decoded by the ID's own UnmarshalJSON and sets valid. On error both are
// left as they were.
func UnmarshalNullJSON[T any, P interface {
	*T
	UnmarshalJSON(data []byte) error
}](id *T, valid *bool, data []byte) error {
	if string(data) == "null" || string(data) == `""` {
		var zero T
		*id, *valid = zero, false
		return nil
	}
	v := *id
	if err := P(&v).UnmarshalJSON(data); err != nil {
		return err
	}
	*id, *valid = v, true
	return nil
}

// ScanTypeError wraps e.ScanType with the type of src, for a Scan source
// the ID type does not accept.
func ScanTypeError(src any, e *Errors) error {
	return fmt.Errorf("%w %T", e.ScanType, src)
}
