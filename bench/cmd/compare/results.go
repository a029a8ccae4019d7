package main

import (
	"bytes"
	"slices"

	"golang.org/x/perf/benchfmt"
)

// sample is one result line of go test -bench.
type sample struct {
	op, lib     string // BenchmarkMint/oklog-ulid-2: "Mint", "oklog-ulid"
	nsPerOp     float64
	allocsPerOp float64
}

// sampleOf returns the sample of a result of benchfmt's reader: the
// benchmark's base name is the operation and its sub-benchmark name (less
// any GOMAXPROCS suffix) the library. It reports false for a result of
// another shape, such as a benchmark without a library or without ns/op.
func sampleOf(r *benchfmt.Result) (sample, bool) {
	op, parts := r.Name.Parts()
	if n := len(parts); n > 0 && parts[n-1][0] == '-' {
		parts = parts[:n-1] // -GOMAXPROCS
	}
	ns, ok := origValue(r, "ns/op")
	if len(parts) == 0 || !ok {
		return sample{}, false
	}
	allocs, _ := origValue(r, "allocs/op")
	lib := bytes.Join(parts, nil)[1:] // without the first part's "/"
	return sample{op: string(op), lib: string(lib), nsPerOp: ns, allocsPerOp: allocs}, true
}

// origValue returns a result's value in unit as go test printed it: the
// reader converts ns/op to seconds, and the report keeps nanoseconds.
func origValue(r *benchfmt.Result, unit string) (float64, bool) {
	for _, v := range r.Values {
		switch {
		case v.OrigUnit == unit:
			return v.OrigValue, true
		case v.OrigUnit == "" && v.Unit == unit:
			return v.Value, true
		}
	}
	return 0, false
}

// results gathers the samples of every (operation, library) pair.
type results struct {
	samples map[[2]string][]sample
}

func newResults() *results { return &results{samples: make(map[[2]string][]sample)} }

func (r *results) add(s sample) {
	key := [2]string{s.op, s.lib}
	r.samples[key] = append(r.samples[key], s)
}

func (r *results) runs(op, lib string) int { return len(r.samples[[2]string{op, lib}]) }

// median returns the median ns/op and allocs/op of a pair, and whether it
// was measured.
func (r *results) median(op, lib string) (ns, allocs float64, ok bool) {
	ss := r.samples[[2]string{op, lib}]
	if len(ss) == 0 {
		return 0, 0, false
	}
	nss := make([]float64, len(ss))
	as := make([]float64, len(ss))
	for i, s := range ss {
		nss[i], as[i] = s.nsPerOp, s.allocsPerOp
	}
	return median(nss), median(as), true
}

func median(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// libsOf returns the libraries of order that were measured for op.
func (r *results) libsOf(op string, order []string) []string {
	var libs []string
	for _, lib := range order {
		if r.runs(op, lib) > 0 {
			libs = append(libs, lib)
		}
	}
	return libs
}
