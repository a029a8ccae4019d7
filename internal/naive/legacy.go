package naive

import (
	"errors"
	"io"
	"math/big"
)

// Limits of the legacy 26-digit SCRU128 form.
const (
	LegacyMaxTimestamp = 1<<44 - 1
	LegacyMaxCounter   = 1<<28 - 1
)

// ErrCounterOverflow is the reference's error for a legacy counter that
// cannot grow within its millisecond.
var ErrCounterOverflow = errors.New("naive: counter overflow")

// LegacyFromFields packs the four fields by the legacy document's formula:
// timestamp * 2^84 + counter * 2^56 + per_sec_random * 2^32 +
// per_gen_random.
func LegacyFromFields(timestamp uint64, counter, perSecRandom, perGenRandom uint32) [16]byte {
	n := new(big.Int).Lsh(new(big.Int).SetUint64(timestamp), 84)
	n.Add(n, new(big.Int).Lsh(big.NewInt(int64(counter)), 56))
	n.Add(n, new(big.Int).Lsh(big.NewInt(int64(perSecRandom)), 32))
	n.Add(n, big.NewInt(int64(perGenRandom)))
	var id [16]byte
	n.FillBytes(id[:])
	return id
}

// LegacyCore is the legacy document's generator: the counter resets to a
// random number at each new millisecond and counts up within one,
// per_sec_random renews when the timestamp is 1000 ms or more past its last
// renewal, per_gen_random is fresh for every ID, and a clock that moved
// back counts on from the last timestamp. Started is false before the
// first ID. Random numbers are 4 bytes of Rng, big-endian, masked.
type LegacyCore struct {
	Started      bool
	Timestamp    uint64
	Counter      uint32
	LastRenewal  uint64
	PerSecRandom uint32
	Rng          io.Reader
}

func (c *LegacyCore) draw() (uint32, error) {
	return drawUint32(c.Rng)
}

// Generate runs one step for timestamp (ms since 2020). On any error the
// state is left as it was.
func (c *LegacyCore) Generate(timestamp uint64) ([16]byte, error) {
	saved := *c
	id, err := c.step(timestamp)
	if err != nil {
		*c = saved
	}
	return id, err
}

func (c *LegacyCore) step(timestamp uint64) ([16]byte, error) {
	if timestamp > LegacyMaxTimestamp {
		return [16]byte{}, ErrInvalidTimestamp
	}
	if !c.Started || timestamp > c.Timestamp {
		r, err := c.draw()
		if err != nil {
			return [16]byte{}, err
		}
		if timestamp > c.Timestamp {
			c.Timestamp = timestamp
		}
		c.Counter = r % (LegacyMaxCounter + 1)
	} else {
		c.Counter++
		if c.Counter > LegacyMaxCounter {
			return [16]byte{}, ErrCounterOverflow
		}
	}
	if !c.Started || c.Timestamp-c.LastRenewal >= 1000 {
		r, err := c.draw()
		if err != nil {
			return [16]byte{}, err
		}
		c.LastRenewal = c.Timestamp
		c.PerSecRandom = r % (1 << 24)
	}
	perGen, err := c.draw()
	if err != nil {
		return [16]byte{}, err
	}
	c.Started = true
	return LegacyFromFields(c.Timestamp, c.Counter, c.PerSecRandom, perGen), nil
}
