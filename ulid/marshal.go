package ulid

// AppendBinary appends the 16 big-endian bytes of id to b. The error is
// always nil.
func (id ULID) AppendBinary(b []byte) ([]byte, error) { return append(b, id[:]...), nil }

// MarshalBinary returns the 16 big-endian bytes of id. The error is always
// nil.
func (id ULID) MarshalBinary() ([]byte, error) { return id.AppendBinary(make([]byte, 0, 16)) }

// UnmarshalBinary sets id from its 16 big-endian bytes. Any other length is
// ErrInvalidLength, and id is left unchanged.
func (id *ULID) UnmarshalBinary(data []byte) error {
	if len(data) != 16 {
		return ErrInvalidLength
	}
	*id = ULID(data)
	return nil
}
