package scru128

import (
	"errors"
	"testing"
	"time"

	"github.com/fastid/scru128/internal/idtest"
)

// The linearizability tests run 64 goroutines of 4,000 calls each, 256,000
// calls in all (64,000 under -race or -short).
const linearGoroutines = 64

func linearCalls() int {
	if testing.Short() || idtest.RaceEnabled {
		return 1_000
	}
	return 4_000
}

// hostileGenerator returns a Generator whose draws are at and near the
// edges of every counter (counter_lo at its maximum at a new millisecond,
// counter_hi within 255 of its top, all ones, all zeros) and whose wall
// clock is c, re-read at every call.
func hostileGenerator(c *idtest.JumpingClock) *Generator {
	g := NewGeneratorWithRng(&idtest.HostileReader{})
	g.clock.SetWall(func() time.Time { return time.UnixMilli(int64(c.Now())) }, time.Nanosecond)
	return g
}

// TestLinearizableUnderHostileSchedules drives every generating method from
// 64 goroutines that read their time from one shared, monotonic clock
// jumping forward by 1 to 600 ms every few readings, with hostile draws
// (hostileGenerator), while GOMAXPROCS changes and garbage collections
// run, so that calls keep meeting overflows of both counters, renewals and
// epoch changes, with stale timestamps and late reservations among them.
// Every call is recorded with when it started and returned, and the IDs
// must be unique and increasing in real-time order: a call that returned
// before another started has the smaller ID. The core methods read the
// shared clock themselves; a stale reading more than the allowance behind
// is a rollback, which GenerateOrAbortCore refuses, and GenerateOrResetCore
// gets an allowance no reading exceeds, since its reset is the one
// documented exception to the order.
func TestLinearizableUnderHostileSchedules(t *testing.T) {
	for _, tc := range []struct {
		name string
		call func(g *Generator, c *idtest.JumpingClock, dst []ID) ([]ID, error)
	}{
		{"Generate", func(g *Generator, _ *idtest.JumpingClock, dst []ID) ([]ID, error) {
			id, err := g.Generate()
			return append(dst, id), err
		}},
		{"GenerateOrAbort", func(g *Generator, _ *idtest.JumpingClock, dst []ID) ([]ID, error) {
			id, err := g.GenerateOrAbort()
			return append(dst, id), err
		}},
		{"GenerateOrAbortCore", func(g *Generator, c *idtest.JumpingClock, dst []ID) ([]ID, error) {
			id, err := g.GenerateOrAbortCore(c.Now(), DefaultRollbackAllowance)
			return append(dst, id), err
		}},
		{"GenerateOrResetCore", func(g *Generator, c *idtest.JumpingClock, dst []ID) ([]ID, error) {
			id, err := g.GenerateOrResetCore(c.Now(), MaxTimestamp-1)
			return append(dst, id), err
		}},
		{"Fill", func(g *Generator, _ *idtest.JumpingClock, dst []ID) ([]ID, error) {
			dst = append(dst, make([]ID, 3)...)
			return dst, g.Fill(dst)
		}},
		{"Generate and GenerateOrAbortCore mixed", func(g *Generator, c *idtest.JumpingClock, dst []ID) ([]ID, error) {
			if c.Now()%2 == 0 {
				id, err := g.Generate()
				return append(dst, id), err
			}
			id, err := g.GenerateOrAbortCore(g.clock.Millis(), DefaultRollbackAllowance)
			return append(dst, id), err
		}},
	} {
		for _, every := range []uint64{2, 16} {
			t.Run(tc.name, func(t *testing.T) {
				c := idtest.NewJumpingClock(1_700_000_000_000, every, 600)
				g := hostileGenerator(c)
				idtest.Linearize(t, linearGoroutines, linearCalls(), true,
					func(_ int, dst []ID) ([]ID, error) { return tc.call(g, c, dst) },
					func(err error) bool { return errors.Is(err, ErrClockRollback) },
					ID.Compare)
			})
		}
	}
}
