package clock

import "time"

// MillisMono returns what Millis returns together with the monotonic
// reading it was computed from, in nanoseconds since a process-wide origin
// (see [Mono]), so that a caller that needs both (a deadline check beside a
// timestamp) pays for one clock read. The two values describe the same
// instant.
func (c *Clock) MillisMono() (millis uint64, mono int64) {
	mono = Mono()
	return c.MillisAt(mono), mono
}

// TryMillisAt is MillisAt without the re-anchoring, and without a call, so
// that it inlines: ok is false when the offset is due to be re-read, and
// the caller then calls MillisAt.
//
// The generators' hot paths read the clock as Mono, then TryMillisAt, then
// MillisAt only if that failed, written out at each call site: a function
// holding the three costs 181 in the compiler's inlining budget of 80, so
// it would be a call, and Mono and TryMillisAt alone fit. They fit where
// 64-bit atomic loads are instructions (amd64, arm64 and the other 64-bit
// ports but wasm); on 386, arm and wasm each load is a call, and
// TryMillisAt is one too.
func (c *Clock) TryMillisAt(mono int64) (millis uint64, ok bool) {
	if mono >= c.deadline.Load() {
		return 0, false
	}
	ns := mono + c.offset.Load()
	if ns < 0 {
		return 0, true
	}
	return uint64(ns) / 1e6, true
}

// MillisAt returns the Unix time in milliseconds at mono, a reading of
// [Mono] taken just before (the offset it applies is re-read at most once
// per interval), or 0 if the wall clock reads before 1970. Mono and
// MillisAt each inline where the pair in MillisMono does not, so a hot
// path can read the clock without a call.
func (c *Clock) MillisAt(mono int64) uint64 {
	if deadline := c.deadline.Load(); mono >= deadline {
		c.reanchor(deadline)
	}
	ns := mono + c.offset.Load()
	if ns < 0 {
		return 0
	}
	return uint64(ns) / 1e6
}

// Mono returns the monotonic clock in nanoseconds since the process-wide
// origin that MillisMono's second result counts from. It never goes back,
// and a stepped wall clock does not move it.
func Mono() int64 { return int64(time.Since(origin)) }
