package naive

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strings"
)

const (
	// MaxTimestamp is the largest 48-bit timestamp.
	MaxTimestamp = 1<<48 - 1
	// MaxCounter is the largest 24-bit counter value.
	MaxCounter = 1<<24 - 1
	// RenewalInterval is how long counter_hi lives, in milliseconds.
	RenewalInterval = 1000
)

// Errors returned by the reference. The fast code returns its own sentinels;
// tests compare which kind of failure happened, not the values themselves.
var (
	ErrInvalidLength    = errors.New("naive: invalid length")
	ErrInvalidCharacter = errors.New("naive: invalid character")
	ErrOutOfRange       = errors.New("naive: out of range")
	ErrInvalidTimestamp = errors.New("naive: invalid timestamp")
	ErrClockRollback    = errors.New("naive: clock rollback")
)

var maxValue = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 128), big.NewInt(1))

// Encode returns the 25-digit Base36 text of id, computed with math/big.
func Encode(id [16]byte) string {
	text := new(big.Int).SetBytes(id[:]).Text(36)
	return strings.Repeat("0", 25-len(text)) + text
}

// Decode parses 25 Base36 digits, ignoring case, with math/big. It returns
// [ErrInvalidLength], [ErrInvalidCharacter] (with the offset of the first bad
// byte) or [ErrOutOfRange].
func Decode(s []byte) ([16]byte, int, error) {
	var id [16]byte
	if len(s) != 25 {
		return id, -1, ErrInvalidLength
	}
	for i, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return id, i, ErrInvalidCharacter
		}
	}
	n, ok := new(big.Int).SetString(strings.ToLower(string(s)), 36)
	if !ok {
		panic("naive: big.Int rejected validated digits")
	}
	if n.Cmp(maxValue) > 0 {
		return id, -1, ErrOutOfRange
	}
	n.FillBytes(id[:])
	return id, -1, nil
}

// FromFields packs the four fields the way the specification's formula does:
// timestamp * 2^80 + counter_hi * 2^56 + counter_lo * 2^32 + entropy.
func FromFields(timestamp uint64, counterHi, counterLo, entropy uint32) [16]byte {
	n := new(big.Int).SetUint64(timestamp)
	n.Lsh(n, 24).Add(n, big.NewInt(int64(counterHi)))
	n.Lsh(n, 24).Add(n, big.NewInt(int64(counterLo)))
	n.Lsh(n, 32).Add(n, big.NewInt(int64(entropy)))
	var id [16]byte
	n.FillBytes(id[:])
	return id
}

// Core is the generator state of the specification, stepped by its
// algorithm in the numbered steps below. Its zero value is the initial
// state.
type Core struct {
	Timestamp   uint64
	CounterHi   uint32
	CounterLo   uint32
	LastRenewal uint64
	Rng         io.Reader
}

func (c *Core) draw() (uint32, error) {
	return drawUint32(c.Rng)
}

// drawUint32 reads 4 bytes from rng as a big-endian uint32: a random
// number as every generator core here draws it.
func drawUint32(rng io.Reader) (uint32, error) {
	var b [4]byte
	if _, err := io.ReadFull(rng, b[:]); err != nil {
		return 0, fmt.Errorf("naive: rng: %w", err)
	}
	return binary.BigEndian.Uint32(b[:]), nil
}

// Generate runs one step. With abort set it is the OrAbort form, otherwise
// the OrReset form. On any error the state is left as it was.
func (c *Core) Generate(timestamp, allowance uint64, abort bool) ([16]byte, error) {
	saved := *c
	id, err := c.step(timestamp, allowance, abort)
	if err != nil {
		*c = saved
	}
	return id, err
}

func (c *Core) step(timestamp, allowance uint64, abort bool) ([16]byte, error) {
	// 1. Arguments out of range.
	if timestamp == 0 || timestamp > MaxTimestamp || allowance > MaxTimestamp {
		return [16]byte{}, ErrInvalidTimestamp
	}
	for {
		if timestamp > c.Timestamp {
			// 2. A new millisecond.
			v, err := c.draw()
			if err != nil {
				return [16]byte{}, err
			}
			c.Timestamp = timestamp
			c.CounterLo = v & MaxCounter
		} else if timestamp+allowance >= c.Timestamp {
			// 3. The same millisecond, or a rollback within the allowance.
			if c.CounterLo == MaxCounter && c.CounterHi == MaxCounter && c.Timestamp == MaxTimestamp {
				// The timestamp cannot move past its 48 bits.
				return [16]byte{}, ErrInvalidTimestamp
			}
			c.CounterLo++
			if c.CounterLo > MaxCounter {
				c.CounterLo = 0
				c.CounterHi++
				if c.CounterHi > MaxCounter {
					v, err := c.draw()
					if err != nil {
						return [16]byte{}, err
					}
					c.CounterHi = 0
					c.Timestamp++
					c.CounterLo = v & MaxCounter
				}
			}
		} else {
			// 4. A rollback beyond the allowance.
			if abort {
				return [16]byte{}, ErrClockRollback
			}
			c.Timestamp = 0
			c.LastRenewal = 0
			continue
		}
		break
	}
	// 5. counter_hi lives about a second.
	if c.Timestamp-c.LastRenewal >= RenewalInterval || c.LastRenewal == 0 {
		v, err := c.draw()
		if err != nil {
			return [16]byte{}, err
		}
		c.LastRenewal = c.Timestamp
		c.CounterHi = v & MaxCounter
	}
	// 6. Fresh entropy for every ID.
	entropy, err := c.draw()
	if err != nil {
		return [16]byte{}, err
	}
	return FromFields(c.Timestamp, c.CounterHi, c.CounterLo, entropy), nil
}
