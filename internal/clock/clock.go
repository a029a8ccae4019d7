// Package clock is a cheap millisecond wall clock for ID generators.
//
// time.Now reads two clocks (wall and monotonic, about 47 ns here);
// time.Since on a time with a monotonic reading reads one (about 25 ns). A
// [Clock] keeps the offset between the wall clock and the process's monotonic
// clock, so each reading costs one monotonic read plus an addition, and it
// re-anchors the offset from a fresh time.Now at least once per interval so
// that a stepped wall clock (NTP, an operator, a resumed VM) is followed
// within that interval.
package clock

import (
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultInterval is how often [New]'s clock re-reads the wall clock.
const DefaultInterval = time.Second

// origin is the monotonic zero shared by every [Clock] in the process.
var origin = time.Now()

// Clock returns Unix time in milliseconds. It is safe for concurrent use.
// The zero Clock is usable: it follows time.Now and re-anchors every
// [DefaultInterval], like [New]'s, anchoring itself on first use.
type Clock struct {
	offset   atomic.Int64 // wall clock minus monotonic clock, in ns
	deadline atomic.Int64 // monotonic ns after which to re-anchor; 0 before the first anchor
	first    sync.Once    // the first anchor, which every reader must wait for
	wall     func() time.Time
	interval int64 // ns; 0 means DefaultInterval
}

// New returns a [Clock] that follows time.Now, re-anchored every
// [DefaultInterval].
func New() *Clock { return NewWithWall(nil, DefaultInterval) }

// NewWithWall returns a [Clock] that takes the wall time from wall (time.Now
// if nil) and re-anchors at least every interval. Tests use it to step the
// wall clock.
func NewWithWall(wall func() time.Time, interval time.Duration) *Clock {
	c := &Clock{wall: wall, interval: int64(interval)}
	c.reanchor(0)
	return c
}

// SetWall makes c take the wall time from wall (time.Now if nil) and
// re-anchor at least every interval, as a clock from [NewWithWall] does,
// for tests that give a generator holding a Clock a fake wall clock. It
// must be called before c is first used.
func (c *Clock) SetWall(wall func() time.Time, interval time.Duration) {
	c.wall, c.interval = wall, int64(interval)
	c.reanchor(0)
}

// Millis returns the current Unix time in milliseconds, or 0 if the wall
// clock reads before 1970.
func (c *Clock) Millis() uint64 {
	millis, _ := c.MillisMono()
	return millis
}

// reanchor re-reads the wall clock if deadline is still the current one.
// The compare-and-swap elects one caller per interval; the others go on with
// the offset they find, which is at most one interval old.
//
// The winner moves the deadline to reanchoring while it reads the wall
// clock and stores the offset, and to the next deadline only after, so
// that re-anchors never overlap: a winner that stalled before its store
// cannot overwrite a later winner's offset with its older one (which,
// after a step of the wall clock, would take the clock back across the
// step). Meanwhile readers find the deadline passed, fail to win it, and
// go on with the offset they find.
//
// The first anchor (deadline 0) is different: there is no older offset to
// go on with, so it runs once under c.first, which every caller that saw
// deadline 0 waits for, and it stores the offset before the deadline. A
// caller that sees a non-zero deadline therefore sees an offset too (Go's
// atomics are sequentially consistent).
func (c *Clock) reanchor(deadline int64) {
	switch {
	case deadline == 0:
		c.first.Do(func() {
			wallNs, mono := c.read()
			c.offset.Store(wallNs - mono)
			c.deadline.Store(mono + c.intervalNs())
		})
	case deadline != reanchoring && c.deadline.CompareAndSwap(deadline, reanchoring):
		wallNs, mono := c.read()
		c.offset.Store(wallNs - mono)
		c.deadline.Store(mono + c.intervalNs())
	}
}

// reanchoring is the deadline while a re-anchor is under way: every
// monotonic reading is past it, and no deadline is ever set to it.
const reanchoring = math.MinInt64

// read returns the wall clock in Unix ns and the monotonic clock in ns
// since origin.
func (c *Clock) read() (wallNs, mono int64) {
	if c.wall == nil {
		now := time.Now() // one call gives both clocks at the same instant
		return now.UnixNano(), int64(now.Sub(origin))
	}
	return c.wall().UnixNano(), int64(time.Since(origin))
}

// intervalNs returns the re-anchoring interval, never 0 (which would
// re-read the wall clock on every call) and never a deadline of 0.
func (c *Clock) intervalNs() int64 {
	if c.interval <= 0 {
		return int64(DefaultInterval)
	}
	return c.interval
}
