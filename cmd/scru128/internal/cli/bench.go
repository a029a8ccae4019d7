//go:build (unix && !aix) || windows

package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/klauspost/cpuid/v2"
)

var benchUsage = `Usage: scru128 bench [flags]

Measure this module on this machine: minting (on one goroutine, and on all
cores at once), encoding (AppendText) and parsing (Parse) for each format, and
print a table with a line that describes the machine. A progress line goes to
stderr. The default takes about 10 seconds.

Examples:
  scru128 bench                       every format, about 10 seconds
  scru128 bench -format scru64 -json  one format, as JSON for a program
  scru128 bench -benchtime 100000x    a fixed count of iterations per case

Flags:
  -benchtime D  time per case, as a duration (200ms, the default) or a count
                of iterations (1000x)
  -format F     measure only format F, one of those below, in any case
  -json         print the results as one JSON object instead of a table

` + formatTable() + `
Each operation is called through a function value, so every figure includes
one indirect call. The figures vary with what else the machine is doing; for
a comparison with other ID libraries, see the bench module of the repository.
`

const defaultBenchtime = "200ms"

// benchCase is one measurement.
type benchCase struct {
	format    string
	operation string
	parallel  bool // b.RunParallel on GOMAXPROCS goroutines
	run       func(b *testing.B, errs *atomic.Int64)
}

// benchResult is one row of the report.
type benchResult struct {
	Format     string  `json:"format"`
	Operation  string  `json:"operation"`
	Goroutines int     `json:"goroutines"`
	NsPerOp    float64 `json:"nsPerOp"`
	Iterations int     `json:"iterations"`
	// Allocs and Bytes are the heap allocations and bytes of the whole
	// case, setup and goroutines included; AllocsPerOp and BytesPerOp
	// are each divided by Iterations, unrounded. (testing's AllocsPerOp
	// rounds down, so that a run of 100 iterations with one allocation of
	// 1.5 KB showed 0 allocations beside 15 bytes per op.)
	Allocs      uint64  `json:"allocs"`
	Bytes       uint64  `json:"bytes"`
	AllocsPerOp float64 `json:"allocsPerOp"`
	BytesPerOp  float64 `json:"bytesPerOp"`
	// Errors counts calls that failed, which then measure the error path:
	// a SCRU64 stream that ran more than 10 s ahead of the clock with a
	// long -benchtime, or a parse that did not return the expected ID.
	Errors int64 `json:"errors,omitempty"`
}

// machineInfo describes where the figures come from.
type machineInfo struct {
	Vendor        string `json:"vendor"`
	Brand         string `json:"brand"`
	Family        int    `json:"family"`
	Model         int    `json:"model"`
	Stepping      int    `json:"stepping"`
	PhysicalCores int    `json:"physicalCores"`
	LogicalCores  int    `json:"logicalCores"`
	CacheLine     int    `json:"cacheLineBytes"`
	NumCPU        int    `json:"numCPU"`
	GOMAXPROCS    int    `json:"gomaxprocs"`
	GOOS          string `json:"goos"`
	GOARCH        string `json:"goarch"`
	GoVersion     string `json:"goVersion"`
}

type benchReport struct {
	Machine   machineInfo   `json:"machine"`
	Benchtime string        `json:"benchtime"`
	Results   []benchResult `json:"results"`
}

func newBenchFlags() (fs *flag.FlagSet, benchtime, name *string, asJSON *bool) {
	fs = newFlagSet("bench")
	return fs, fs.String("benchtime", defaultBenchtime, ""), fs.String("format", "", ""), fs.Bool("json", false, "")
}

func runBench(args []string, e *Env) int {
	flags, benchtime, name, asJSON := newBenchFlags()
	rest, status, ok := parseCommandFlags(e, "bench", benchUsage, flags, args)
	if !ok {
		return status
	}
	if len(rest) > 0 {
		return UsageFailure(e, "bench", strayArgument("bench", rest[0]))
	}
	if !validBenchtime(*benchtime) {
		return UsageFailure(e, "bench", fmt.Sprintf("-benchtime %q: want a duration such as 200ms or a count such as 1000x", *benchtime))
	}
	cases := benchCases()
	if *name != "" {
		f, ok := formatByName(*name)
		if !ok {
			return UsageFailure(e, "bench", unknownFormat(*name))
		}
		var only []benchCase
		for _, c := range cases {
			if c.format == f.name {
				only = append(only, c)
			}
		}
		cases = only
	}

	restore, err := setBenchtime(*benchtime)
	if err != nil {
		return UsageFailure(e, "bench", fmt.Sprintf("-benchtime %q: %v", *benchtime, err))
	}
	defer restore()

	report := benchReport{Machine: describeMachine(), Benchtime: *benchtime}
	progress := newProgress(e.stderr)
	for i, c := range cases {
		progress.show(fmt.Sprintf("scru128 bench: %d/%d %s %s%s", i+1, len(cases), c.format, c.operation, parallelNote(c.parallel)))
		var errs atomic.Int64
		r := testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			c.run(b, &errs)
		})
		goroutines := 1
		if c.parallel {
			goroutines = runtime.GOMAXPROCS(0)
		}
		row := benchResult{
			Format: c.format, Operation: c.operation, Goroutines: goroutines,
			Iterations: r.N, Allocs: r.MemAllocs, Bytes: r.MemBytes, Errors: errs.Load(),
		}
		if r.N > 0 {
			row.NsPerOp = float64(r.T.Nanoseconds()) / float64(r.N)
			row.AllocsPerOp = float64(r.MemAllocs) / float64(r.N)
			row.BytesPerOp = float64(r.MemBytes) / float64(r.N)
		}
		report.Results = append(report.Results, row)
	}
	progress.done()

	var out []byte
	if *asJSON {
		out, err = json.MarshalIndent(report, "", "  ")
		out = append(out, '\n')
	} else {
		out, err = benchTable(report)
	}
	if err != nil {
		return Failure(e, err)
	}
	if _, err := e.stdout.Write(out); err != nil && !isClosedPipe(err) {
		return Failure(e, fmt.Errorf("writing output: %w", err))
	}
	return ExitOK
}

func parallelNote(parallel bool) string {
	if parallel {
		return " (all cores)"
	}
	return ""
}

func validBenchtime(s string) bool {
	if count, ok := strings.CutSuffix(s, "x"); ok {
		n, err := strconv.ParseInt(count, 10, 64)
		return err == nil && n > 0
	}
	d, err := time.ParseDuration(s)
	return err == nil && d > 0
}

// setBenchtime sets the time testing.Benchmark spends on each case, which
// it reads from the testing package's -test.benchtime flag, and returns a
// function that restores the previous value.
func setBenchtime(value string) (restore func(), err error) {
	testing.Init() // registers the flag; nothing if already done
	f := flag.Lookup("test.benchtime")
	if f == nil {
		return nil, fmt.Errorf("the testing package has no benchtime flag")
	}
	old := f.Value.String()
	if err := f.Value.Set(value); err != nil {
		return nil, err
	}
	return func() { f.Value.Set(old) }, nil
}

func describeMachine() machineInfo {
	cpu := cpuid.CPU
	vendor := cpu.VendorID.String()
	if cpu.VendorID == cpuid.VendorUnknown {
		vendor = cpu.VendorString
	}
	return machineInfo{
		Vendor: vendor, Brand: strings.TrimSpace(cpu.BrandName),
		Family: cpu.Family, Model: cpu.Model, Stepping: cpu.Stepping,
		PhysicalCores: cpu.PhysicalCores, LogicalCores: cpu.LogicalCores, CacheLine: cpu.CacheLine,
		NumCPU: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, GoVersion: runtime.Version(),
	}
}

// machineLine is the machine in one line, for the table.
func (m machineInfo) machineLine() string {
	brand := m.Brand
	if brand == "" {
		brand = "unknown CPU"
	}
	if m.Vendor != "" && !strings.Contains(strings.ToLower(brand), strings.ToLower(m.Vendor)) {
		brand += " (" + m.Vendor + ")"
	}
	cores := fmt.Sprintf("%d CPUs", m.NumCPU)
	if m.PhysicalCores > 0 && m.LogicalCores > 0 {
		cores = fmt.Sprintf("%d physical / %d logical cores, %d CPUs usable", m.PhysicalCores, m.LogicalCores, m.NumCPU)
	}
	cache := ""
	if m.CacheLine > 0 {
		cache = fmt.Sprintf(", %d-byte cache line", m.CacheLine)
	}
	return fmt.Sprintf("%s, %s%s; %s/%s, %s, GOMAXPROCS %d",
		brand, cores, cache, m.GOOS, m.GOARCH, m.GoVersion, m.GOMAXPROCS)
}

// perOpText writes a per-op count: whole, or, below 10, with the
// fraction a short run leaves (0.01 for one allocation in 100 iterations).
func perOpText(x float64) string {
	if x == float64(int64(x)) || x >= 10 {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}

func benchTable(r benchReport) ([]byte, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "machine: %s\n", r.Machine.machineLine())
	fmt.Fprintf(&b, "each case: -benchtime %s\n\n", r.Benchtime)
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "format\toperation\tgoroutines\tns/op\tallocs/op\t")
	for _, row := range r.Results {
		note := ""
		if row.Errors > 0 {
			note = fmt.Sprintf(" (%d errors)", row.Errors)
		}
		fmt.Fprintf(w, "%s\t%s\t%d\t%.1f\t%s\t%s\n", row.Format, row.Operation, row.Goroutines, row.NsPerOp, perOpText(row.AllocsPerOp), note)
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

// progress shows which case runs, on one line rewritten in place on a
// terminal, one line per case elsewhere.
type progress struct {
	w        io.Writer
	terminal bool
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w}
	if f, ok := w.(*os.File); ok {
		if info, err := f.Stat(); err == nil && info.Mode()&os.ModeCharDevice != 0 {
			p.terminal = true
		}
	}
	return p
}

func (p *progress) show(line string) {
	if p.terminal {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
		return
	}
	fmt.Fprintln(p.w, line)
}

func (p *progress) done() {
	if p.terminal {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// benchMint is a way bench mints IDs of a format.
type benchMint struct {
	name string // what it calls, such as "Generator.Generate"
	// newOp returns a new operation that mints one ID; it must be safe for
	// concurrent use.
	newOp func() func() error
}

// benchCases lists the cases: for each format, each of its ways to mint on
// one goroutine and on all, then encoding and parsing its sample ID. A call
// that fails, or a parse that returns another ID, is counted.
func benchCases() []benchCase {
	var cases []benchCase
	for _, f := range formats {
		for _, m := range f.mints {
			for _, parallel := range []bool{false, true} {
				cases = append(cases, benchCase{f.name, "mint " + m.name, parallel, measure(m.newOp, parallel)})
			}
		}
		cases = append(cases,
			benchCase{f.name, "encode AppendText", false, measure(func() func() error { return f.id.encodeOp(f.sample) }, false)},
			benchCase{f.name, "parse Parse", false, measure(func() func() error { return f.id.parseOp(f.sample) }, false)},
		)
	}
	return cases
}

// measure returns a benchmark of the operations newOp makes, on one
// goroutine or on GOMAXPROCS of them; errs counts the calls that failed.
func measure(newOp func() func() error, parallel bool) func(b *testing.B, errs *atomic.Int64) {
	return func(b *testing.B, errs *atomic.Int64) {
		op := newOp()
		if !parallel {
			for b.Loop() {
				if op() != nil {
					errs.Add(1)
				}
			}
			return
		}
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if op() != nil {
					errs.Add(1)
				}
			}
		})
	}
}
