package scru128

// AppendBinary appends the 16 big-endian bytes of id to b. The error is
// always nil.
func (id ID) AppendBinary(b []byte) ([]byte, error) { return append(b, id[:]...), nil }

// MarshalBinary returns the 16 big-endian bytes of id. The error is always
// nil.
func (id ID) MarshalBinary() ([]byte, error) { return id.AppendBinary(make([]byte, 0, 16)) }

// UnmarshalBinary sets id from 16 big-endian bytes, or from the 25-byte text
// form, which some stores hand back for binary columns. Any other length is
// ErrInvalidLength; text errors are those of Parse. On error id is left
// unchanged.
func (id *ID) UnmarshalBinary(data []byte) error {
	switch len(data) {
	case 16:
		*id = ID(data)
		return nil
	case 25:
		return id.UnmarshalText(data)
	}
	return ErrInvalidLength
}
