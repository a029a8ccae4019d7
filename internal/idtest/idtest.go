// Package idtest holds the concurrency check every generator's tests share,
// so that each is held to the same standard. It is imported by tests only.
package idtest

import (
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// handoffEvery is how often a goroutine passes an ID to another one.
const handoffEvery = 1000

// Stress calls next n times from each of goroutines goroutines at once and
// fails the test unless:
//   - each goroutine's IDs are strictly increasing;
//   - handoff order holds: every 1000th ID an even-numbered goroutine mints
//     is passed to an odd-numbered one, whose next ID must be larger;
//   - no ID repeats across all goroutines, and none is missing.
//
// goroutines must be even. It returns all the IDs, sorted by compare.
func Stress[T comparable](t testing.TB, goroutines, n int, next func() (T, error), compare func(a, b T) int) []T {
	t.Helper()
	if goroutines%2 != 0 {
		t.Fatalf("idtest.Stress needs an even number of goroutines, got %d", goroutines)
	}
	results := make([][]T, goroutines)
	handoff := make(chan T)
	quit := make(chan struct{}) // closed on the first failure, so no one blocks on handoff
	var quitOnce sync.Once
	fail := func(format string, args ...any) {
		t.Errorf(format, args...)
		quitOnce.Do(func() { close(quit) })
	}
	var wg sync.WaitGroup
	for w := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids := make([]T, 0, n)
			for i := range n {
				var received T
				receiving := i%handoffEvery == 0 && w%2 == 1
				if receiving {
					select {
					case received = <-handoff:
					case <-quit:
						return
					}
				}
				id, err := next()
				if err != nil {
					fail("goroutine %d, call %d: %v", w, i, err)
					return
				}
				if len(ids) > 0 && compare(id, ids[len(ids)-1]) <= 0 {
					fail("goroutine %d: %v after %v", w, id, ids[len(ids)-1])
					return
				}
				if receiving && compare(id, received) <= 0 {
					fail("goroutine %d received %v, then minted smaller %v", w, received, id)
					return
				}
				ids = append(ids, id)
				if i%handoffEvery == 0 && w%2 == 0 {
					select {
					case handoff <- id:
					case <-quit:
						return
					}
				}
			}
			results[w] = ids
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	all := slices.Concat(results...)
	if len(all) != goroutines*n {
		t.Fatalf("collected %d IDs, want %d", len(all), goroutines*n)
	}
	slices.SortFunc(all, compare)
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			t.Fatalf("duplicate ID %v", all[i])
		}
	}
	return all
}

// Churn switches GOMAXPROCS between 1, 2 and 8 and forces a garbage
// collection every few milliseconds until stop is closed, then restores
// GOMAXPROCS, so that a stress test runs through changes of parallelism,
// preemptions and stop-the-world pauses. It returns the number of
// switches made.
func Churn(stop <-chan struct{}) int {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	procs := [...]int{1, 2, 8}
	ticker := time.NewTicker(3 * time.Millisecond)
	defer ticker.Stop()
	for n := 0; ; n++ {
		select {
		case <-stop:
			return n
		case <-ticker.C:
			runtime.GOMAXPROCS(procs[n%len(procs)])
			if n%4 == 0 {
				runtime.GC()
			}
		}
	}
}
