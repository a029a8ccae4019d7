package scru64

import "github.com/fastid/scru128/internal/entropy"

// CounterMode decides the counter value that starts each new timestamp
// tick: the first tick after the clock moves on, the tick after a counter
// overflow, and the tick a reset starts at.
//
// A [Generator] calls Renew outside any lock, possibly from several
// goroutines at once, and goroutines that race for the same new tick may
// each call it while only one result is used; an implementation must
// therefore be safe for concurrent use and should not count on being
// called once per tick. Only the low counterSize bits of the result are
// used.
type CounterMode interface {
	// Renew returns the counter for the tick ctx.Timestamp, a number below
	// 2^counterSize; counterSize is 24 minus the node ID size, so 1 to 23.
	Renew(counterSize uint8, ctx RenewContext) uint32
}

// RenewContext is what a [Generator] tells [CounterMode.Renew] besides the
// counter size.
type RenewContext struct {
	Timestamp uint64 // the new tick, in 256-ms units
	NodeID    uint32 // the generator's node ID
}

// random is the cheap source of counter values. The specification asks for
// no cryptographic quality here: a counter is too small to be secret, and
// its randomness only guards against two nodes given the same node ID by
// mistake.
var random = entropy.NewShared()

// NewDefaultCounterMode returns the counter mode that renews the counter to
// a random number whose leading overflowGuardSize bits are zero, so that at
// least 2^(counterSize-1) IDs fit into a tick when the guard is one bit, or
// a quarter of the range when it is two, and so on. A guard as wide as the
// counter, or wider, renews it to 0. Its numbers come from a fast
// non-cryptographic generator seeded from crypto/rand, as the specification
// allows. It is safe for concurrent use.
//
// [NewGenerator] uses no guard bit for node ID sizes up to 19 (counters of 5
// bits or more), and one from 20 up, where a full random start could leave
// room for only one or two IDs in a tick.
func NewDefaultCounterMode(overflowGuardSize uint8) CounterMode {
	return defaultCounterMode{overflowGuardSize: overflowGuardSize}
}

// defaultCounterMode is what [NewDefaultCounterMode] returns. A [Generator]
// recognizes it and inlines its work (see Generator.renew); Renew is for
// other callers.
type defaultCounterMode struct{ overflowGuardSize uint8 }

// Renew returns a random number of counterSize minus the guard size bits.
func (m defaultCounterMode) Renew(counterSize uint8, _ RenewContext) uint32 {
	return uint32(random.Uint64() >> m.shift(counterSize))
}

// shift is how far a 64-bit random number is shifted right to leave
// counterSize minus the guard size bits; 64 leaves none, which Go's shift
// defines as 0.
func (m defaultCounterMode) shift(counterSize uint8) uint8 {
	if m.overflowGuardSize >= counterSize {
		return 64
	}
	return 64 - (counterSize - m.overflowGuardSize)
}

// defaultGuardSize is the guard [NewGenerator] gives a node ID size.
func defaultGuardSize(nodeIDSize uint8) uint8 {
	if nodeIDSize >= 20 {
		return 1
	}
	return 0
}
