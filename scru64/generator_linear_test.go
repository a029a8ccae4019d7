package scru64

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/fastid/scru128/internal/idtest"
)

// edgeCounters renews the counter at its maximum, one below it or zero,
// so that ticks keep overflowing into the next.
type edgeCounters struct{}

func (edgeCounters) Renew(counterSize uint8, _ RenewContext) uint32 {
	max := uint32(1)<<counterSize - 1
	return [...]uint32{max, max, max - 1, 0}[rand.IntN(4)]
}

// TestLinearizableUnderHostileSchedules drives a generator with a 4-bit
// counter whose renewals land at its edges from 64 goroutines reading one
// shared clock that jumps forward by 1 to 600 ms every few readings, with
// GOMAXPROCS churn, and checks every call for real-time order: a call that
// returned before another started has the smaller ID, and none repeats.
func TestLinearizableUnderHostileSchedules(t *testing.T) {
	calls := 4_000
	if testing.Short() || idtest.RaceEnabled {
		calls = 1_000
	}
	spec, err := NewNodeSpecWithNodeID(0xabcde, 20)
	if err != nil {
		t.Fatal(err)
	}
	for _, every := range []uint64{2, 16} {
		c := idtest.NewJumpingClock(1_700_000_000_000, every, 600)
		g := NewGeneratorWithCounterMode(spec, edgeCounters{})
		idtest.Linearize(t, 64, calls, true,
			idtest.One(func() (ID, error) { return g.GenerateOrAbortCore(c.Now(), DefaultRollbackAllowance) }),
			func(err error) bool { return errors.Is(err, ErrClockRollback) },
			ID.Compare)
	}
}
