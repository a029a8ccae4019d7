package scru128

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/fastid/scru128/internal/entropy"
)

// shardGenerator is the generator of one [Pool] shard: the specification's
// algorithm for one goroutine at a time, with the state as plain fields,
// stepped exactly as the reference algorithm does and drawing from an
// entropy.Source of its own or from an io.Reader. The zero shardGenerator
// is not usable: set src or rng.
type shardGenerator struct {
	timestamp   uint64
	lastRenewal uint64 // 0 means counter_hi was never drawn
	counterHi   uint32
	counterLo   uint32
	src         *entropy.Source // used when rng is nil
	rng         io.Reader
}

// draw returns 32 random bits.
func (g *shardGenerator) draw() (uint32, error) {
	if g.rng == nil {
		return g.src.Uint32(), nil
	}
	return readUint32(g.rng)
}

// readUint32 reads 4 bytes from r as a big-endian uint32. A reader that
// keeps returning no bytes is an error after entropy.MaxEmptyReads tries,
// so a caller holding a lock around the read never waits forever on it.
func readUint32(r io.Reader) (uint32, error) {
	var b [4]byte
	if err := entropy.ReadFull(r, b[:]); err != nil {
		return 0, fmt.Errorf("scru128: reading random bytes: %w", err)
	}
	return binary.BigEndian.Uint32(b[:]), nil
}

// next returns the next ID for a Unix timestamp in milliseconds, with the
// rollback allowance and the OrAbort (abort set) or OrReset form of the
// specification. It draws counter_lo, then counter_hi, then entropy, each
// only when the algorithm needs it, and leaves the state as it was on any
// error. The ID comes back as its two halves, in registers, for [Pool] to
// assemble after other work: built with two 8-byte stores and copied at
// once with a 16-byte load, an ID stalls on store forwarding.
func (g *shardGenerator) next(timestamp, allowance uint64, abort bool) (hi, lo uint64, err error) {
	if timestamp == 0 || timestamp > MaxTimestamp || allowance > MaxTimestamp {
		return 0, 0, ErrInvalidTimestamp
	}
	ts, counterHi, counterLo, lastRenewal := g.timestamp, g.counterHi, g.counterLo, g.lastRenewal
	var r uint32
	switch {
	case timestamp > ts:
		// A new millisecond: counter_lo starts at random.
		if r, err = g.draw(); err != nil {
			return 0, 0, err
		}
		ts, counterLo = timestamp, r&MaxCounter
	case timestamp+allowance >= ts:
		// The same millisecond, or a rollback within the allowance.
		switch {
		case counterLo < MaxCounter:
			counterLo++
		case counterHi < MaxCounter:
			counterLo = 0
			counterHi++
		default:
			// Both counters overflow: the timestamp moves on by one.
			if ts == MaxTimestamp {
				return 0, 0, ErrInvalidTimestamp
			}
			if r, err = g.draw(); err != nil {
				return 0, 0, err
			}
			ts, counterHi, counterLo = ts+1, 0, r&MaxCounter
		}
	default:
		// A rollback beyond the allowance.
		if abort {
			return 0, 0, ErrClockRollback
		}
		if r, err = g.draw(); err != nil {
			return 0, 0, err
		}
		ts, counterLo, lastRenewal = timestamp, r&MaxCounter, 0
	}
	if ts-lastRenewal >= renewalInterval || lastRenewal == 0 {
		if r, err = g.draw(); err != nil {
			return 0, 0, err
		}
		counterHi, lastRenewal = r&MaxCounter, ts
	}
	entropy, err := g.draw()
	if err != nil {
		return 0, 0, err
	}
	g.timestamp, g.counterHi, g.counterLo, g.lastRenewal = ts, counterHi, counterLo, lastRenewal
	return ts<<16 | uint64(counterHi)>>8, uint64(counterHi)<<56 | uint64(counterLo)<<32 | uint64(entropy), nil
}
