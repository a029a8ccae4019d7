package idtest

import (
	"cmp"
	"errors"
	"sync/atomic"
	"testing"
)

// recorder is a testing.TB that records failures instead of stopping the
// test, so the checker's own failures can be tested.
type recorder struct {
	testing.TB
	failed atomic.Bool
}

func (r *recorder) Helper()                           {}
func (r *recorder) Errorf(format string, args ...any) { r.failed.Store(true) }
func (r *recorder) Fatalf(format string, args ...any) { r.failed.Store(true); panic(errStop) }
func (r *recorder) Failed() bool                      { return r.failed.Load() }
func (r *recorder) FailNow()                          { panic(errStop) }

var errStop = errors.New("stop")

// run reports whether Stress failed for next.
func run(next func() (int, error)) (failed bool) {
	r := &recorder{}
	defer func() {
		if v := recover(); v != nil && v != errStop {
			panic(v)
		}
		failed = r.failed.Load()
	}()
	Stress(r, 4, 5000, next, cmp.Compare[int])
	return false
}

func TestStressAcceptsAGoodGenerator(t *testing.T) {
	var n atomic.Int64
	all := Stress(t, 4, 5000, func() (int, error) { return int(n.Add(1)), nil }, cmp.Compare[int])
	if len(all) != 20000 || all[0] != 1 || all[len(all)-1] != 20000 {
		t.Fatalf("got %d IDs from %d to %d", len(all), all[0], all[len(all)-1])
	}
}

func TestStressCatchesDuplicates(t *testing.T) {
	var n atomic.Int64
	if !run(func() (int, error) { return int(n.Add(1) / 2), nil }) { // each value twice
		t.Fatal("duplicates not caught")
	}
}

func TestStressCatchesErrorsWithoutHanging(t *testing.T) {
	var n atomic.Int64
	if !run(func() (int, error) {
		if n.Add(1) == 777 {
			return 0, errors.New("boom")
		}
		return int(n.Load()), nil
	}) {
		t.Fatal("error not caught")
	}
}

func TestStressCatchesDecreasing(t *testing.T) {
	var n atomic.Int64
	if !run(func() (int, error) { return -int(n.Add(1)), nil }) {
		t.Fatal("decreasing IDs not caught")
	}
}

var allocSink []byte

func TestCheckAllocsCatchesAnAllocation(t *testing.T) {
	r := &recorder{}
	CheckAllocs(r, 0, 100, map[string]func(){"make": func() { allocSink = make([]byte, 64) }})
	if !r.Failed() {
		t.Fatal("an allocation not caught")
	}
	r = &recorder{}
	CheckAllocs(r, 1, 100, map[string]func(){"make": func() { allocSink = make([]byte, 64) }})
	if r.Failed() {
		t.Fatal("one allocation per call, as wanted, reported as a failure")
	}
}
