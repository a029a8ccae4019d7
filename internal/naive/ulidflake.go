package naive

import "io"

// FlakeMaxTimestamp is the largest 43-bit Ulid-Flake timestamp.
const FlakeMaxTimestamp = 1<<43 - 1

// FlakeCore is the Ulid-Flake generator of the specification, written out
// plainly. RandomBits is 20 (stand-alone) or 15 (scalable, with
// ScalabilityID in the low 5 bits); MaxStep is the largest step within a
// millisecond. Has is false until the first ID. Each random number is 4
// bytes of Rng, big-endian: a new millisecond's random part is its low
// RandomBits bits, a step is 1 + floor(n*MaxStep/2^32).
type FlakeCore struct {
	Has           bool
	Timestamp     uint64
	Random        uint64
	RandomBits    int
	ScalabilityID uint64
	MaxStep       uint64
	Rng           io.Reader
}

func (c *FlakeCore) draw() (uint64, error) {
	v, err := drawUint32(c.Rng)
	return uint64(v), err
}

// Generate returns the next ID for timestamp (ms since the epoch). On any
// error the state is left as it was.
func (c *FlakeCore) Generate(timestamp uint64) (int64, error) {
	if timestamp > FlakeMaxTimestamp {
		return 0, ErrInvalidTimestamp
	}
	maxRandom := uint64(1)<<c.RandomBits - 1
	var random uint64
	switch {
	case !c.Has || timestamp > c.Timestamp:
		r, err := c.draw()
		if err != nil {
			return 0, err
		}
		random = r % (maxRandom + 1)
	case timestamp == c.Timestamp:
		r, err := c.draw()
		if err != nil {
			return 0, err
		}
		step := 1 + r*c.MaxStep/(1<<32)
		random = c.Random + step
		if random > maxRandom {
			return 0, ErrMonotonicOverflow
		}
	default:
		return 0, ErrClockRollback
	}
	c.Has, c.Timestamp, c.Random = true, timestamp, random
	id := timestamp<<20 + random<<(20-c.RandomBits)
	if c.RandomBits == 15 {
		id += c.ScalabilityID
	}
	return int64(id), nil
}
