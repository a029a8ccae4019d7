package scru64

import (
	"encoding/binary"

	"github.com/fastid/scru128/internal/interop"
)

// AppendBinary appends the 8 big-endian bytes of id to b. The error is
// always nil.
func (id ID) AppendBinary(b []byte) ([]byte, error) {
	return binary.BigEndian.AppendUint64(b, uint64(id)), nil
}

// MarshalBinary returns the 8 big-endian bytes of id. The error is always
// nil.
func (id ID) MarshalBinary() ([]byte, error) { return id.AppendBinary(make([]byte, 0, 8)) }

// UnmarshalBinary sets id from 8 big-endian bytes, or from the 12-byte text
// form, which some stores hand back for binary columns. It returns
// [ErrOutOfRange] if the 8 bytes hold a value above [Max], a [*LengthError]
// (matching [ErrInvalidLength]) with Want 8 for any other length, and the
// errors of [Parse] for text. On error id is
// left unchanged.
func (id *ID) UnmarshalBinary(data []byte) error {
	return interop.UnmarshalBinary64(id, data, uint64(Max), 12, Parse, &errs)
}

// MarshalJSON returns the 12-digit text in quotes. JSON carries SCRU64 IDs
// as strings because JavaScript numbers lose precision above 2^53, which
// every ID with a timestamp after May 1974 exceeds. It returns
// [ErrOutOfRange] for an ID above [Max].
//
// With the omitzero struct tag option (Go 1.24) the zero ID is left out,
// as IsZero reports; so is it with omitempty under encoding/json, which
// goes by the integer kind, but not under json/v2, whose omitempty leaves
// out only what marshals as null, "", {} or [].
func (id ID) MarshalJSON() ([]byte, error) {
	if id > Max {
		return nil, ErrOutOfRange
	}
	b := make([]byte, 14)
	b[0], b[13] = '"', '"'
	encode((*[12]byte)(b[1:13]), uint64(id))
	return b, nil
}

// UnmarshalJSON accepts a JSON string holding the 12-digit text (its
// escapes decoded as encoding/json decodes them), a JSON integer (what a
// system that stores IDs as numbers may send), or null, which leaves id
// unchanged as encoding/json does for other types (json/v2 sets it to
// zero, as [ID.UnmarshalJSONFrom] says). Integers above [Max] are
// [ErrOutOfRange]; fractions, exponents and signs are rejected, as is ""
// (a [*LengthError] with Got 0). On error id is left unchanged.
func (id *ID) UnmarshalJSON(data []byte) error {
	text, n, kind, err := interop.DecodeJSON(data, true, uint64(Max), &errs)
	switch kind {
	case interop.JSONText:
		return id.UnmarshalText(text)
	case interop.JSONInt:
		*id = ID(n)
	}
	return err
}
