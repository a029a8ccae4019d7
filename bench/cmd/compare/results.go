package main

import (
	"regexp"
	"slices"
	"strconv"
)

// sample is one result line of go test -bench.
type sample struct {
	op, lib     string // BenchmarkMint/oklog-ulid-2: "Mint", "oklog-ulid"
	nsPerOp     float64
	allocsPerOp float64
}

// resultLine matches "BenchmarkOp/lib-N   iterations   x ns/op ..." with an
// optional GOMAXPROCS suffix.
var resultLine = regexp.MustCompile(`^Benchmark([A-Za-z0-9]+)/(\S+?)(?:-\d+)?\s+\d+\s+([0-9.]+) ns/op(?:.*?\s([0-9.]+) allocs/op)?`)

// parseLine returns the sample on a result line, or false for any other
// line.
func parseLine(line string) (sample, bool) {
	m := resultLine.FindStringSubmatch(line)
	if m == nil {
		return sample{}, false
	}
	ns, err := strconv.ParseFloat(m[3], 64)
	if err != nil {
		return sample{}, false
	}
	s := sample{op: m[1], lib: m[2], nsPerOp: ns}
	if m[4] != "" {
		s.allocsPerOp, _ = strconv.ParseFloat(m[4], 64)
	}
	return s, true
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
