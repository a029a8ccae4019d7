package idtest

import "testing"

// SkipIfInstrumented skips a test of allocation counts in a coverage or
// race-detector build, which allocate where a plain build does not.
func SkipIfInstrumented(t testing.TB) {
	t.Helper()
	if testing.CoverMode() != "" || RaceEnabled {
		t.Skip("instrumented builds allocate")
	}
}

// CheckAllocs fails the test for each of fns that makes other than want
// allocations per call, averaged over runs calls. An average shows an
// allocation on any regular path, even one taken by one call in a few.
func CheckAllocs(t testing.TB, want float64, runs int, fns map[string]func()) {
	t.Helper()
	for name, fn := range fns {
		if n := testing.AllocsPerRun(runs, fn); n != want {
			t.Errorf("%s: %v allocations per call, want %v", name, n, want)
		}
	}
}
