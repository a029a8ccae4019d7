package ulidflake

import (
	"encoding/binary"

	"github.com/fastid/scru128/internal/interop"
)

// AppendBinary appends the 8 big-endian bytes of id to b. The error is
// [ErrOutOfRange] for a negative id, and b is then returned unchanged.
func (id ID) AppendBinary(b []byte) ([]byte, error) {
	if id < 0 {
		return b, ErrOutOfRange
	}
	return binary.BigEndian.AppendUint64(b, uint64(id)), nil
}

// MarshalBinary returns the 8 big-endian bytes of id, or [ErrOutOfRange] for
// a negative id.
func (id ID) MarshalBinary() ([]byte, error) {
	if id < 0 {
		return nil, ErrOutOfRange
	}
	return id.AppendBinary(make([]byte, 0, 8))
}

// UnmarshalBinary sets id from 8 big-endian bytes, or from the 13-byte
// text form, which some stores hand back for binary columns. It returns
// [ErrOutOfRange] if the 8 bytes have the sign bit set, a [*LengthError]
// (matching [ErrInvalidLength]) with Want 8 for any other length, and the
// errors of [Parse] for text. On error id is left
// unchanged.
func (id *ID) UnmarshalBinary(data []byte) error {
	return interop.UnmarshalBinary64(id, data, uint64(Max), EncodedSize, Parse, &errs)
}

// UnmarshalJSON accepts a JSON string holding the 13-digit text (its
// escapes decoded as encoding/json decodes them), a JSON integer (what a
// system that stores IDs as numbers may send), or null, which leaves id
// unchanged as encoding/json does for other types (json/v2 sets it to
// zero, as [ID.UnmarshalJSONFrom] says). Integers above 2^63-1
// are [ErrOutOfRange]; fractions, exponents and signs are rejected, as is ""
// (a [*LengthError] with Got 0). On error id is left unchanged. An ID marshals to
// JSON through [ID.MarshalText], as the quoted text.
//
// With the omitzero struct tag option (Go 1.24) the zero ID is left out,
// as [ID.IsZero] reports; so is it with omitempty under encoding/json, which
// goes by the integer kind, but not under json/v2, whose omitempty leaves
// out only what marshals as null, "", {} or [].
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
