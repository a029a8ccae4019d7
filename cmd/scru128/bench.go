package main

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

	"github.com/fastid/scru128"
	"github.com/fastid/scru128/legacy"
	"github.com/fastid/scru128/scru64"
	"github.com/fastid/scru128/ulid"
	"github.com/fastid/scru128/ulidflake"
)

const benchUsage = `Usage: scru128 bench [flags]

Measure this module on this machine: minting (on one goroutine, and on all
cores at once), encoding (AppendText) and parsing (Parse) for each format, and
print a table with a line that describes the machine. A progress line goes to
stderr. The default takes about 10 seconds.

Flags:
  -benchtime D  time per case, as a duration (200ms, the default) or a count
                of iterations (1000x)
  -format F     measure only format F: scru128, scru64, ulid, ulidflake or
                legacy, in any case
  -json         print the results as one JSON object instead of a table

The figures vary with what else the machine is doing; for a comparison with
other ID libraries, see the bench module of the repository.
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
	Format      string  `json:"format"`
	Operation   string  `json:"operation"`
	Goroutines  int     `json:"goroutines"`
	NsPerOp     float64 `json:"nsPerOp"`
	AllocsPerOp int64   `json:"allocsPerOp"`
	BytesPerOp  int64   `json:"bytesPerOp"`
	Iterations  int     `json:"iterations"`
	// Errors counts calls that returned an error, which then measure the
	// error path: a SCRU64 stream that ran more than 10 s ahead of the
	// clock with a long -benchtime.
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

func runBench(args []string, e *env) int {
	flags, benchtime, name, asJSON := newBenchFlags()
	rest, status, ok := parseCommandFlags(e, "bench", benchUsage, flags, args)
	if !ok {
		return status
	}
	if len(rest) > 0 {
		return usageFailure(e, "bench", fmt.Sprintf("unexpected argument %q: bench takes only flags", rest[0]))
	}
	if !validBenchtime(*benchtime) {
		return usageFailure(e, "bench", fmt.Sprintf("-benchtime %q: want a duration such as 200ms or a count such as 1000x", *benchtime))
	}
	cases := benchCases()
	if *name != "" {
		f, ok := formatByName(*name)
		if !ok {
			return usageFailure(e, "bench", unknownFormat(*name))
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
		return usageFailure(e, "bench", fmt.Sprintf("-benchtime %q: %v", *benchtime, err))
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
			AllocsPerOp: r.AllocsPerOp(), BytesPerOp: r.AllocedBytesPerOp(),
			Iterations: r.N, Errors: errs.Load(),
		}
		if r.N > 0 {
			row.NsPerOp = float64(r.T.Nanoseconds()) / float64(r.N)
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
		return failure(e, err)
	}
	if _, err := e.stdout.Write(out); err != nil && !isClosedPipe(err) {
		return failure(e, fmt.Errorf("writing output: %w", err))
	}
	return exitOK
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
		fmt.Fprintf(w, "%s\t%s\t%d\t%.1f\t%d\t%s\n", row.Format, row.Operation, row.Goroutines, row.NsPerOp, row.AllocsPerOp, note)
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

// Sinks keep the compiler from dropping the work of pure functions.
var (
	sink128    scru128.ID
	sink64     scru64.ID
	sinkULID   ulid.ULID
	sinkFlake  ulidflake.ID
	sinkLegacy legacy.ID
)

// benchCases lists the cases: for each format, minting from its ordered
// generator on one goroutine and on all, encoding and parsing; for SCRU128
// also its Pool.
func benchCases() []benchCase {
	// mint measures one generator's mint on one goroutine, or on all with
	// RunParallel; a call that fails is counted.
	mint := func(format, op string, parallel bool, newGen func() func() error) benchCase {
		return benchCase{format, op, parallel, func(b *testing.B, errs *atomic.Int64) {
			next := newGen()
			if parallel {
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if next() != nil {
							errs.Add(1)
						}
					}
				})
				return
			}
			for b.Loop() {
				if next() != nil {
					errs.Add(1)
				}
			}
		}}
	}
	both := func(format, op string, newGen func() func() error) []benchCase {
		return []benchCase{mint(format, op, false, newGen), mint(format, op, true, newGen)}
	}
	codec := func(format string, encode func([]byte) []byte, parse func()) []benchCase {
		return []benchCase{
			{format, "encode AppendText", false, func(b *testing.B, _ *atomic.Int64) {
				buf := make([]byte, 0, 64)
				for b.Loop() {
					buf = encode(buf[:0])
				}
			}},
			{format, "parse Parse", false, func(b *testing.B, _ *atomic.Int64) {
				for b.Loop() {
					parse()
				}
			}},
		}
	}

	var cases []benchCase
	// SCRU128
	cases = append(cases, both("scru128", "mint Generator.Generate", func() func() error {
		g := scru128.NewGenerator()
		return func() error { _, err := g.Generate(); return err }
	})...)
	cases = append(cases, both("scru128", "mint Pool.Generate", func() func() error {
		p := scru128.NewPool()
		return func() error { p.Generate(); return nil }
	})...)
	id128 := scru128.MustParse("0372hg16csmsm50l8dikcvukc")
	cases = append(cases, codec("scru128",
		func(b []byte) []byte { b, _ = id128.AppendText(b); return b },
		func() { sink128, _ = scru128.Parse("0372hg16csmsm50l8dikcvukc") })...)

	// SCRU64: node ID size 1 leaves a 23-bit counter, 8 million IDs per
	// 256-ms tick, so the stream does not run ahead of the clock.
	spec, _ := scru64.NewNodeSpecWithNodeID(0, 1)
	cases = append(cases, both("scru64", "mint Generator.Generate", func() func() error {
		g := scru64.NewGenerator(spec)
		return func() error { _, err := g.Generate(); return err }
	})...)
	id64 := scru64.MustParse("0u375nxqh5cq")
	cases = append(cases, codec("scru64",
		func(b []byte) []byte { b, _ = id64.AppendText(b); return b },
		func() { sink64, _ = scru64.Parse("0u375nxqh5cq") })...)

	// ULID
	cases = append(cases, both("ulid", "mint Generator.Generate", func() func() error {
		g := ulid.NewGenerator()
		return func() error { _, err := g.Generate(); return err }
	})...)
	idULID := ulid.MustParse("01ARZ3NDEKTSV4RRFFQ69G5FAV")
	cases = append(cases, codec("ulid",
		func(b []byte) []byte { b, _ = idULID.AppendText(b); return b },
		func() { sinkULID, _ = ulid.Parse("01ARZ3NDEKTSV4RRFFQ69G5FAV") })...)

	// Ulid-Flake: a few thousand IDs fit in a millisecond, so minting waits
	// for the next one; GenerateOrWait measures the rate that allows.
	cases = append(cases, both("ulidflake", "mint Generator.GenerateOrWait", func() func() error {
		g, err := ulidflake.NewGenerator()
		if err != nil {
			return func() error { return err }
		}
		return func() error { _, err := g.GenerateOrWait(); return err }
	})...)
	idFlake := ulidflake.MustParse("00CMXB6TAK4SA")
	cases = append(cases, codec("ulidflake",
		func(b []byte) []byte { b, _ = idFlake.AppendText(b); return b },
		func() { sinkFlake, _ = ulidflake.Parse("00CMXB6TAK4SA") })...)

	// Legacy SCRU128
	cases = append(cases, both("legacy", "mint Generator.Generate", func() func() error {
		g := legacy.NewGenerator()
		return func() error { _, err := g.Generate(); return err }
	})...)
	idLegacy := legacy.MustParse("0LQKPL5UFSUA7KQRAR5KB7MO1I")
	cases = append(cases, codec("legacy",
		func(b []byte) []byte { b, _ = idLegacy.AppendText(b); return b },
		func() { sinkLegacy, _ = legacy.Parse("0LQKPL5UFSUA7KQRAR5KB7MO1I") })...)
	return cases
}
