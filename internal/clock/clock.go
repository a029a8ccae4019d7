// Package clock is a cheap millisecond wall clock for ID generators.
//
// time.Now reads two clocks (wall and monotonic, about 47 ns here);
// time.Since on a time with a monotonic reading reads one (about 25 ns). A
// [Clock] keeps the offset between the wall clock and the process's monotonic
// clock, so each reading costs one monotonic read plus an addition, and it
// re-anchors the offset from a fresh time.Now at least once per interval so
// that a stepped wall clock (NTP, an operator, a resumed VM) is followed
// within that interval.
//
// What a Clock promises, for a wall clock that is not stepped meanwhile:
//
//   - It is never behind the wall clock: Millis returns at least the Unix
//     millisecond of a time.Now read before the call.
//   - It is ahead of the wall clock by at most [MaxLead]: Millis returns at
//     most the Unix millisecond of a time.Now read MaxLead after the call,
//     unless every reading of a re-anchor was interrupted (see [MaxLead]).
//
// Both hold where the monotonic clock runs at the wall clock's rate, as
// Linux's does while NTP slews the wall clock. Where it does not (macOS
// does not slew its monotonic clock), the two drift apart at the slewing
// rate between re-anchors: at NTP's limit of 500 ppm, 0.5 ms per
// [DefaultInterval]. Where the wall clock advances in coarser ticks than
// the monotonic clock (as Windows' may), each bound widens by a tick. A
// stepped wall clock is followed at the next re-anchor: until then a Clock
// is behind a wall clock stepped forward, or ahead of one stepped back, by
// the step.
package clock

import (
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultInterval is how often [New]'s clock re-reads the wall clock.
const DefaultInterval = time.Second

// MaxLead is how far ahead of the wall clock a Clock may read. A re-anchor
// reads the monotonic clock before and after the wall clock, so that the
// offset it keeps, the wall reading less the monotonic reading before it,
// is never below the true one (which would put the Clock behind) and above
// it by at most the time the readings took. Readings that took longer than
// MaxLead, because the goroutine was descheduled between them (or, rarely,
// because the clocks are slow to read, as under an emulator), are taken
// again, up to [maxReadings] times in all; if every one took longer, the
// offset is that of the quickest, and the Clock may be ahead by as much
// until its next re-anchor.
const MaxLead = 20 * time.Microsecond

// maxReadings bounds the readings a re-anchor takes: for all of them to be
// interrupted, the scheduler must deschedule the goroutine within each of
// four windows of about 100 ns in a row.
const maxReadings = 4

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
			offset, mono := c.measure()
			c.offset.Store(offset)
			c.deadline.Store(mono + c.intervalNs())
		})
	case deadline != reanchoring && c.deadline.CompareAndSwap(deadline, reanchoring):
		offset, mono := c.measure()
		c.offset.Store(offset)
		c.deadline.Store(mono + c.intervalNs())
	}
}

// reanchoring is the deadline while a re-anchor is under way: every
// monotonic reading is past it, and no deadline is ever set to it.
const reanchoring = math.MinInt64

// measure returns the offset of the wall clock from the monotonic clock,
// in ns, and the monotonic reading that ended its measurement.
//
// Each reading of the wall clock lies between a monotonic reading before
// it and one after it, so the true offset lies between the wall reading
// less the later one and the wall reading less the earlier one. The second
// is the one kept: an offset from the later reading (or from the
// monotonic half of time.Now, which Linux reads after the wall half) is
// low by however long the goroutine was descheduled between the two, and
// puts every Millis behind the wall clock by as much until the next
// re-anchor. The spread of the bracket bounds how far ahead the kept
// offset can be; readings are taken again while it exceeds MaxLead, and
// the lowest offset any of them gives is kept (each is at or above the
// true one).
func (c *Clock) measure() (offset, mono int64) {
	offset = math.MaxInt64
	for range maxReadings {
		before := Mono()
		wallNs := c.readWall()
		mono = Mono()
		offset = min(offset, wallNs-before)
		if mono-before <= int64(MaxLead) {
			break
		}
	}
	return offset, mono
}

// readWall returns the wall clock in Unix ns.
func (c *Clock) readWall() int64 {
	if c.wall == nil {
		return time.Now().UnixNano()
	}
	return c.wall().UnixNano()
}

// intervalNs returns the re-anchoring interval, never 0 (which would
// re-read the wall clock on every call) and never a deadline of 0.
func (c *Clock) intervalNs() int64 {
	if c.interval <= 0 {
		return int64(DefaultInterval)
	}
	return c.interval
}
