package clock

import "time"

// MillisMono returns what Millis returns together with the monotonic
// reading it was computed from, in nanoseconds since a process-wide origin
// (see Mono), so that a caller that needs both (a deadline check beside a
// timestamp) pays for one clock read. The two values describe the same
// instant.
func (c *Clock) MillisMono() (millis uint64, mono int64) {
	mono = int64(time.Since(origin))
	deadline := c.deadline.Load()
	if mono >= deadline {
		c.reanchor(deadline)
	}
	ns := mono + c.offset.Load()
	if ns < 0 {
		return 0, mono
	}
	return uint64(ns) / 1e6, mono
}

// Mono returns the monotonic clock in nanoseconds since the process-wide
// origin that MillisMono's second result counts from. It never goes back,
// and a stepped wall clock does not move it.
func Mono() int64 { return int64(time.Since(origin)) }
