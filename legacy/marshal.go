package legacy

import (
	"encoding/json"

	"github.com/fastid/scru128/internal/interop"
)

// AppendBinary appends the 16 big-endian bytes of id to b. The error is
// always nil.
func (id ID) AppendBinary(b []byte) ([]byte, error) { return append(b, id[:]...), nil }

// MarshalBinary returns the 16 big-endian bytes of id. The error is always
// nil.
func (id ID) MarshalBinary() ([]byte, error) { return id.AppendBinary(make([]byte, 0, 16)) }

// UnmarshalBinary sets id from its 16 big-endian bytes, or from the
// 26-byte text form, which some stores hand back for binary columns. Any
// other length is a [*LengthError] (matching [ErrInvalidLength]) with Want
// 16; text errors are those of [Parse]. On error id is left unchanged.
func (id *ID) UnmarshalBinary(data []byte) error {
	return interop.UnmarshalBinary128(id, data, EncodedSize, Parse, &errs)
}

// UnmarshalJSON accepts a JSON string holding the 26-digit text, its
// escapes decoded as encoding/json decodes them, or null, which leaves id
// unchanged as encoding/json does for other types (json/v2 sets it to
// zero, as [ID.UnmarshalJSONFrom] says). Anything else is an
// error; text errors are those of [Parse] (so "" is a [*LengthError] with
// Got 0). On error id is left unchanged. An ID marshals to JSON through [ID.MarshalText],
// as the quoted text.
//
// With the omitzero struct tag option (Go 1.24) the zero ID is left out,
// as [ID.IsZero] reports; omitempty never leaves out an ID, under
// encoding/json because it is an array and under json/v2 because its
// text is not empty.
func (id *ID) UnmarshalJSON(data []byte) error {
	text, _, kind, err := interop.DecodeJSON(data, false, 0, &errs)
	if kind == interop.JSONText {
		return id.UnmarshalText(text)
	}
	return err
}

// AppendText appends the 26-digit text of b's ID to dst, as [ID.AppendText]
// does, so that JSON and other text encoders write a Binary as its ID.
func (b Binary) AppendText(dst []byte) ([]byte, error) { return ID(b).AppendText(dst) }

// MarshalText returns the 26-digit text of b's ID, as [ID.MarshalText] does.
func (b Binary) MarshalText() ([]byte, error) { return ID(b).MarshalText() }

// UnmarshalText parses the 26-digit text into b, as [ID.UnmarshalText]
// does.
func (b *Binary) UnmarshalText(text []byte) error { return (*ID)(b).UnmarshalText(text) }

// UnmarshalJSON reads what [ID.UnmarshalJSON] reads, and also the form
// encoding/json wrote before Binary had JSON methods: an array of the 16
// bytes as numbers from 0 to 255. A Binary marshals to JSON as its ID's
// text, under encoding/json and encoding/json/v2 alike. On error b is left
// unchanged.
func (b *Binary) UnmarshalJSON(data []byte) error {
	v, isArray, ok := interop.JSONBytes16(data)
	switch {
	case !isArray:
		return (*ID)(b).UnmarshalJSON(data)
	case !ok:
		return interop.JSONValueError(data, errBinaryJSON)
	}
	*b = v
	return nil
}

// MarshalJSON returns null when not Valid and the quoted 26-digit text
// otherwise, as [NullID.MarshalJSON] does.
func (n NullBinary) MarshalJSON() ([]byte, error) { return interop.MarshalNullJSON(n.ID, n.Valid) }

// UnmarshalJSON reads what [NullID.UnmarshalJSON] reads, the array of 16
// numbers [Binary.UnmarshalJSON] reads, and the object a NullBinary
// marshalled to before it had JSON methods, {"ID":"...","Valid":true}
// (Valid false gives the zero NullBinary). On error n is left unchanged.
func (n *NullBinary) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '{' {
		var old struct {
			ID    ID
			Valid bool
		}
		if err := json.Unmarshal(data, &old); err != nil {
			return err
		}
		if !old.Valid {
			old.ID = ID{}
		}
		*n = NullBinary(old)
		return nil
	}
	return interop.UnmarshalNullJSON((*Binary)(&n.ID), &n.Valid, data)
}
