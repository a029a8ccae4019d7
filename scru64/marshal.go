package scru64

import (
	"encoding/binary"
	"errors"
	"strconv"
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
// ErrOutOfRange if the 8 bytes hold a value above Max, ErrInvalidLength for
// any other length, and the errors of Parse for text. On error id is left
// unchanged.
func (id *ID) UnmarshalBinary(data []byte) error {
	switch len(data) {
	case 8:
		v, err := FromUint64(binary.BigEndian.Uint64(data))
		if err != nil {
			return err
		}
		*id = v
		return nil
	case 12:
		return id.UnmarshalText(data)
	}
	return ErrInvalidLength
}

// MarshalJSON returns the 12-digit text in quotes. JSON carries SCRU64 IDs
// as strings because JavaScript numbers lose precision above 2^53, which
// every ID with a timestamp after May 1974 exceeds. The error is always nil.
func (id ID) MarshalJSON() ([]byte, error) {
	b := make([]byte, 14)
	b[0], b[13] = '"', '"'
	encode((*[12]byte)(b[1:13]), uint64(id))
	return b, nil
}

// errJSON describes JSON that is neither a string nor an integer.
var errJSON = errors.New("scru64: an ID in JSON must be a 12-digit string or a non-negative integer")

// UnmarshalJSON accepts the quoted 12-digit text, a JSON integer (what a
// system that stores IDs as numbers may send), or null, which leaves id
// unchanged as encoding/json does for other types. Integers above Max are
// ErrOutOfRange; fractions, exponents and signs are rejected. On error id
// is left unchanged.
func (id *ID) UnmarshalJSON(data []byte) error {
	switch {
	case string(data) == "null":
		return nil
	case len(data) >= 2 && data[0] == '"' && data[len(data)-1] == '"':
		return id.UnmarshalText(data[1 : len(data)-1])
	case len(data) == 0 || len(data) > 20:
		// 20 digits are always above Max; longer input need not be read.
		return errJSON
	}
	v, err := strconv.ParseUint(string(data), 10, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return ErrOutOfRange
		}
		return errJSON
	}
	parsed, err := FromUint64(v)
	if err != nil {
		return err
	}
	*id = parsed
	return nil
}
