package naive

import (
	"errors"
	"fmt"
	"io"
)

// ErrMonotonicOverflow is the reference's error for a random part that
// cannot grow within its millisecond.
var ErrMonotonicOverflow = errors.New("naive: monotonic overflow")

// ULIDCore is the ULID specification's monotonic factory, with the
// rollback allowance of the SCRU128 generators: its zero value is the
// initial state, Timestamp is the last timestamp and Random the last
// 80-bit random part, big-endian.
type ULIDCore struct {
	Timestamp uint64
	Random    [10]byte
	Rng       io.Reader
}

// Generate runs one step. With abort set a rollback beyond the allowance is
// [ErrClockRollback], otherwise it starts again from timestamp. On any error
// the state is left as it was.
func (c *ULIDCore) Generate(timestamp, allowance uint64, abort bool) ([16]byte, error) {
	var id [16]byte
	if timestamp == 0 || timestamp > MaxTimestamp || allowance > MaxTimestamp {
		return id, ErrInvalidTimestamp
	}
	switch {
	case timestamp <= c.Timestamp && timestamp+allowance >= c.Timestamp:
		// The same millisecond: the random part plus one, with carry.
		next := c.Random
		i := len(next) - 1
		for ; i >= 0; i-- {
			next[i]++
			if next[i] != 0 {
				break
			}
		}
		if i < 0 {
			return id, ErrMonotonicOverflow
		}
		c.Random = next
	case timestamp < c.Timestamp && abort:
		return id, ErrClockRollback
	default:
		// A new millisecond, or a reset: a fresh random part.
		var r [10]byte
		if _, err := io.ReadFull(c.Rng, r[:]); err != nil {
			return id, fmt.Errorf("naive: rng: %w", err)
		}
		c.Timestamp, c.Random = timestamp, r
	}
	for i := range 6 {
		id[i] = byte(c.Timestamp >> (40 - 8*i))
	}
	copy(id[6:], c.Random[:])
	return id, nil
}
