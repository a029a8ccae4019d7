// Package idtest holds the checks that the tests of every format share, so
// that each is held to the same standard: the concurrency stress test of a
// generator ([Stress], [StressWithChurn], [SortedUnique]), the exploration of
// every interleaving of a few calls ([Explore]), the database/sql and JSON
// behaviour ([CheckInterop]), the typed parse errors ([CheckParseErrors]),
// printing through fmt and log/slog ([CheckPrint]), allocation counts
// ([CheckAllocs]), the floor the generators' benchmarks are judged against
// ([BenchFloor]), and the race detector's switch ([RaceEnabled]). It is
// imported by tests only.
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
	return SortedUnique(t, results, goroutines*n, compare)
}

// SortedUnique merges the IDs that several goroutines collected, sorts them
// by compare and fails the test unless there are want of them and none
// repeats. It returns them sorted.
func SortedUnique[T comparable](t testing.TB, perGoroutine [][]T, want int, compare func(a, b T) int) []T {
	t.Helper()
	all := slices.Concat(perGoroutine...)
	if len(all) != want {
		t.Fatalf("collected %d IDs, want %d", len(all), want)
	}
	slices.SortFunc(all, compare)
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			t.Fatalf("duplicate ID %v", all[i])
		}
	}
	return all
}

// StressWithChurn is [Stress] while GOMAXPROCS moves between 1, 2 and 8 and
// garbage collections are forced every few milliseconds, so that the calls
// run through changes of parallelism, preemptions and stop-the-world
// pauses.
func StressWithChurn[T comparable](t testing.TB, goroutines, n int, next func() (T, error), compare func(a, b T) int) {
	t.Helper()
	stop := make(chan struct{})
	switches := make(chan int)
	go func() { switches <- churn(stop) }()
	defer func() { // also when Stress fails, so that the churn stops
		close(stop)
		if s := <-switches; s < 3 {
			t.Logf("only %d changes of GOMAXPROCS while the test ran", s)
		}
	}()
	Stress(t, goroutines, n, next, compare)
}

// churn switches GOMAXPROCS between 1, 2 and 8 and forces a garbage
// collection every few milliseconds until stop is closed, then restores
// GOMAXPROCS. It returns the number of switches made.
func churn(stop <-chan struct{}) int {
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
