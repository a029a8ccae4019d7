package ulid

import (
	"errors"
	"testing"
	"time"

	"github.com/fastid/scru128/internal/idtest"
)

// TestLinearizableUnderHostileSchedules is the root package's test of the
// same name for ULID: 64 goroutines on one shared clock jumping forward by
// 1 to 600 ms every few readings, random parts at and near the edges of
// their 80 bits (so that calls meet ErrMonotonicOverflow, which returns no
// ID), GOMAXPROCS churn, and every call checked for real-time order.
func TestLinearizableUnderHostileSchedules(t *testing.T) {
	calls := 4_000
	if testing.Short() || idtest.RaceEnabled {
		calls = 1_000
	}
	for _, tc := range []struct {
		name string
		call func(g *Generator, c *idtest.JumpingClock) (ULID, error)
	}{
		{"Generate", func(g *Generator, _ *idtest.JumpingClock) (ULID, error) { return g.Generate() }},
		{"GenerateOrAbort", func(g *Generator, _ *idtest.JumpingClock) (ULID, error) { return g.GenerateOrAbort() }},
		{"GenerateOrAbortCore", func(g *Generator, c *idtest.JumpingClock) (ULID, error) {
			return g.GenerateOrAbortCore(c.Now(), DefaultRollbackAllowance)
		}},
		{"GenerateOrResetCore", func(g *Generator, c *idtest.JumpingClock) (ULID, error) {
			return g.GenerateOrResetCore(c.Now(), MaxTimestamp-1)
		}},
	} {
		for _, every := range []uint64{2, 16} {
			t.Run(tc.name, func(t *testing.T) {
				c := idtest.NewJumpingClock(1_700_000_000_000, every, 600)
				g := NewGeneratorWithRng(&idtest.HostileReader{})
				g.clock.SetWall(func() time.Time { return time.UnixMilli(int64(c.Now())) }, time.Nanosecond)
				idtest.Linearize(t, 64, calls, true,
					idtest.One(func() (ULID, error) { return tc.call(g, c) }),
					func(err error) bool {
						return errors.Is(err, ErrClockRollback) || errors.Is(err, ErrMonotonicOverflow)
					},
					ULID.Compare)
			})
		}
	}
}
