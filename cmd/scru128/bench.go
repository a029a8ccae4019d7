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

// benchCases lists the cases: for each format, minting from its ordered
// generator on one goroutine and on all, encoding and parsing; for SCRU128
// and ULID also their unordered per-P minting. Each loop calls the package directly, not through a
// function value, so that the figures hold no indirect call. A call that
// fails, or a parse that returns another ID, is counted.
func benchCases() []benchCase {
	// SCRU64 node ID size 1 leaves a 23-bit counter, 8 million IDs per
	// 256-ms tick, so the stream does not run ahead of the clock.
	scru64Spec, _ := scru64.NewNodeSpecWithNodeID(0, 1)
	const (
		text128    = "0372hg16csmsm50l8dikcvukc"
		text64     = "0u375nxqh5cq"
		textULID   = "01ARZ3NDEKTSV4RRFFQ69G5FAV"
		textFlake  = "00CMXB6TAK4SA"
		textLegacy = "0LQKPL5UFSUA7KQRAR5KB7MO1I"
	)
	id128, id64, idULID := scru128.MustParse(text128), scru64.MustParse(text64), ulid.MustParse(textULID)
	idFlake, idLegacy := ulidflake.MustParse(textFlake), legacy.MustParse(textLegacy)
	count := func(errs *atomic.Int64, err error) {
		if err != nil {
			errs.Add(1)
		}
	}
	return []benchCase{
		{"scru128", "mint Generator.Generate", false, func(b *testing.B, errs *atomic.Int64) {
			g := scru128.NewGenerator()
			for b.Loop() {
				_, err := g.Generate()
				count(errs, err)
			}
		}},
		{"scru128", "mint Generator.Generate", true, func(b *testing.B, errs *atomic.Int64) {
			g := scru128.NewGenerator()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					_, err := g.Generate()
					count(errs, err)
				}
			})
		}},
		{"scru128", "mint Pool.Generate", false, func(b *testing.B, _ *atomic.Int64) {
			p := scru128.NewPool()
			for b.Loop() {
				p.Generate()
			}
		}},
		{"scru128", "mint Pool.Generate", true, func(b *testing.B, _ *atomic.Int64) {
			p := scru128.NewPool()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					p.Generate()
				}
			})
		}},
		{"scru128", "encode AppendText", false, func(b *testing.B, _ *atomic.Int64) {
			buf := make([]byte, 0, 64)
			for b.Loop() {
				buf, _ = id128.AppendText(buf[:0])
			}
		}},
		{"scru128", "parse Parse", false, func(b *testing.B, errs *atomic.Int64) {
			for b.Loop() {
				if id, err := scru128.Parse(text128); err != nil || id != id128 {
					errs.Add(1)
				}
			}
		}},

		{"scru64", "mint Generator.Generate", false, func(b *testing.B, errs *atomic.Int64) {
			g := scru64.NewGenerator(scru64Spec)
			for b.Loop() {
				_, err := g.Generate()
				count(errs, err)
			}
		}},
		{"scru64", "mint Generator.Generate", true, func(b *testing.B, errs *atomic.Int64) {
			g := scru64.NewGenerator(scru64Spec)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					_, err := g.Generate()
					count(errs, err)
				}
			})
		}},
		{"scru64", "encode AppendText", false, func(b *testing.B, _ *atomic.Int64) {
			buf := make([]byte, 0, 64)
			for b.Loop() {
				buf, _ = id64.AppendText(buf[:0])
			}
		}},
		{"scru64", "parse Parse", false, func(b *testing.B, errs *atomic.Int64) {
			for b.Loop() {
				if id, err := scru64.Parse(text64); err != nil || id != id64 {
					errs.Add(1)
				}
			}
		}},

		{"ulid", "mint Generator.Generate", false, func(b *testing.B, errs *atomic.Int64) {
			g := ulid.NewGenerator()
			for b.Loop() {
				_, err := g.Generate()
				count(errs, err)
			}
		}},
		{"ulid", "mint Generator.Generate", true, func(b *testing.B, errs *atomic.Int64) {
			g := ulid.NewGenerator()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					_, err := g.Generate()
					count(errs, err)
				}
			})
		}},
		{"ulid", "mint NewUnordered", false, func(b *testing.B, _ *atomic.Int64) {
			for b.Loop() {
				ulid.NewUnordered()
			}
		}},
		{"ulid", "mint NewUnordered", true, func(b *testing.B, _ *atomic.Int64) {
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					ulid.NewUnordered()
				}
			})
		}},
		{"ulid", "encode AppendText", false, func(b *testing.B, _ *atomic.Int64) {
			buf := make([]byte, 0, 64)
			for b.Loop() {
				buf, _ = idULID.AppendText(buf[:0])
			}
		}},
		{"ulid", "parse Parse", false, func(b *testing.B, errs *atomic.Int64) {
			for b.Loop() {
				if id, err := ulid.Parse(textULID); err != nil || id != idULID {
					errs.Add(1)
				}
			}
		}},

		// Ulid-Flake: a few thousand IDs fit in a millisecond, so minting
		// waits for the next one; GenerateOrWait measures the rate that
		// allows.
		{"ulidflake", "mint Generator.GenerateOrWait", false, func(b *testing.B, errs *atomic.Int64) {
			g, err := ulidflake.NewGenerator()
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				_, err := g.GenerateOrWait()
				count(errs, err)
			}
		}},
		{"ulidflake", "mint Generator.GenerateOrWait", true, func(b *testing.B, errs *atomic.Int64) {
			g, err := ulidflake.NewGenerator()
			if err != nil {
				b.Fatal(err)
			}
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					_, err := g.GenerateOrWait()
					count(errs, err)
				}
			})
		}},
		{"ulidflake", "encode AppendText", false, func(b *testing.B, _ *atomic.Int64) {
			buf := make([]byte, 0, 64)
			for b.Loop() {
				buf, _ = idFlake.AppendText(buf[:0])
			}
		}},
		{"ulidflake", "parse Parse", false, func(b *testing.B, errs *atomic.Int64) {
			for b.Loop() {
				if id, err := ulidflake.Parse(textFlake); err != nil || id != idFlake {
					errs.Add(1)
				}
			}
		}},

		{"legacy", "mint Generator.Generate", false, func(b *testing.B, errs *atomic.Int64) {
			g := legacy.NewGenerator()
			for b.Loop() {
				_, err := g.Generate()
				count(errs, err)
			}
		}},
		{"legacy", "mint Generator.Generate", true, func(b *testing.B, errs *atomic.Int64) {
			g := legacy.NewGenerator()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					_, err := g.Generate()
					count(errs, err)
				}
			})
		}},
		{"legacy", "encode AppendText", false, func(b *testing.B, _ *atomic.Int64) {
			buf := make([]byte, 0, 64)
			for b.Loop() {
				buf, _ = idLegacy.AppendText(buf[:0])
			}
		}},
		{"legacy", "parse Parse", false, func(b *testing.B, errs *atomic.Int64) {
			for b.Loop() {
				if id, err := legacy.Parse(textLegacy); err != nil || id != idLegacy {
					errs.Add(1)
				}
			}
		}},
	}
}
