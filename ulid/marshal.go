package ulid

import "github.com/fastid/scru128/internal/interop"

// AppendBinary appends the 16 big-endian bytes of id to b. The error is
// always nil.
func (id ULID) AppendBinary(b []byte) ([]byte, error) { return append(b, id[:]...), nil }

// MarshalBinary returns the 16 big-endian bytes of id. The error is always
// nil.
func (id ULID) MarshalBinary() ([]byte, error) { return id.AppendBinary(make([]byte, 0, 16)) }

// UnmarshalBinary sets id from its 16 big-endian bytes, or from the
// 26-byte text form, which some stores hand back for binary columns. Any
// other length is a [*LengthError] (matching [ErrInvalidLength]) with Want
// 16; text errors are those of [Parse]. On error id is left unchanged.
func (id *ULID) UnmarshalBinary(data []byte) error {
	return interop.UnmarshalBinary128(id, data, EncodedSize, Parse, &errs)
}

// UnmarshalJSON accepts a JSON string holding the 26-digit text, its escapes
// decoded as encoding/json decodes them, or null, which leaves id unchanged
// as encoding/json does for other types. Anything else is an error; text
// errors are those of [Parse] (so "" is a [*LengthError] with Got 0). On
// error id is left unchanged. A ULID marshals to JSON through [ULID.MarshalText], as the
// quoted text.
//
// With the omitzero struct tag option (Go 1.24) the zero ULID is left out, as
// [ULID.IsZero] reports; omitempty never leaves out a ULID, which is an
// array.
func (id *ULID) UnmarshalJSON(data []byte) error {
	text, _, kind, err := interop.DecodeJSON(data, false, 0, &errs)
	if kind == interop.JSONText {
		return id.UnmarshalText(text)
	}
	return err
}
