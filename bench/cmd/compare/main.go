// Command compare runs the comparison benchmarks of the bench module and
// prints a markdown table of the results: one row per library, one column
// per operation, each cell the median ns/op and allocs/op over -count runs
// with its ratio to fastid-scru128, the fastest per column in bold.
//
// Beside the timings, a second table says what tells the libraries apart
// besides speed: order across goroutines, text length, random bits, RFC
// 9562 version bits, and whether IDs sort by time as bytes and as text
// (bench.Props, which the bench module's tests check).
//
// Run it from the bench module:
//
//	go run ./cmd/compare [-count 6] [-benchtime 500ms] [-cpu N] [-run REGEXP] [-out DIR | -update]
//	go run ./cmd/compare -from FILE [-out DIR | -update]
//
// With -out it also writes DIR/results.md, DIR/results.svg (a bar chart of
// ns/op per operation, grouped by library) and DIR/results.txt (go test's
// own output, which benchstat reads); it never replaces files that are
// there, and says so before running anything. -update writes the same
// files into the bench module's directory, replacing the committed
// results: the one way to change them, and a step of its own. -from
// renders a saved results.txt instead of running the benchmarks. Built
// with Go 1.27 or later, the libraries include the standard library's
// uuid package. A run takes minutes: compare prints a progress line as
// each benchmark finishes.
package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/klauspost/cpuid/v2"
	"golang.org/x/perf/benchfmt"

	"github.com/fastid/scru128/bench"
)

func main() {
	count := flag.Int("count", 6, "runs of each benchmark; each cell is the median")
	benchtime := flag.String("benchtime", "500ms", "go test -benchtime for each run")
	cpu := flag.Int("cpu", 0, "GOMAXPROCS for the benchmarks (0: go test's default)")
	run := flag.String("run", ".", "regexp selecting benchmarks, as go test -bench takes it")
	out := flag.String("out", "", "directory to write new results.md, results.svg and results.txt to (never replaces them)")
	update := flag.Bool("update", false, "replace the committed results in the bench module's directory")
	from := flag.String("from", "", "render this saved results.txt instead of running the benchmarks")
	flag.Parse()
	if flag.NArg() > 0 || *count < 1 || *update && *out != "" {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	dest, err := destination(ctx, *out, *update)
	if err == nil {
		if *from != "" {
			err = render(*from, dest)
		} else {
			err = compare(ctx, *count, *benchtime, *cpu, *run, dest)
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "compare: %v\n", err)
		os.Exit(1)
	}
}

// resultFiles are the files a run with an output directory writes.
var resultFiles = []string{"results.md", "results.svg", "results.txt"}

// target is where the results go: nowhere but standard output (dir
// empty), a directory of new files, or the committed results, replaced.
type target struct {
	dir     string
	replace bool
}

// destination returns the target of -out or -update, and checks it before
// anything runs: -out must not hold results already.
func destination(ctx context.Context, out string, update bool) (target, error) {
	if update {
		dir, err := moduleDir(ctx)
		return target{dir: dir, replace: true}, err
	}
	if out == "" {
		return target{}, nil
	}
	for _, name := range resultFiles {
		path := filepath.Join(out, name)
		if _, err := os.Lstat(path); err == nil {
			return target{}, fmt.Errorf("%s exists: -out writes only new files, so choose another directory; "+
				"to replace the committed results, run with -update instead of -out", path)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return target{}, err
		}
	}
	return target{dir: out}, nil
}

func compare(ctx context.Context, count int, benchtime string, cpu int, run string, out target) error {
	args := []string{"test", "-run", "^$", "-bench", run, "-benchmem",
		"-count", fmt.Sprint(count), "-benchtime", benchtime}
	if cpu > 0 {
		args = append(args, "-cpu", fmt.Sprint(cpu))
	}
	args = append(args, ".")
	dir, err := moduleDir(ctx)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	command := "go " + strings.Join(args, " ")
	fmt.Fprintf(os.Stderr, "running %s in %s\n", command, dir)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return err
	}
	var raw bytes.Buffer
	results, readErr := collect(io.TeeReader(stdout, &raw), os.Stderr, count)
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("%s: %w", command, err)
	}
	if readErr != nil {
		return readErr
	}
	if len(results.samples) == 0 {
		return errors.New("no benchmark results: does -run match any benchmark?")
	}
	fmt.Fprintf(os.Stderr, "done in %v\n\n", time.Since(start).Round(time.Second))
	// The header lets render find the command again.
	saved := fmt.Sprintf("compare-command: %s\ncompare-machine: %s\n%s", commandLine(count, benchtime, cpu, run), machineLine(), raw.Bytes())
	return write(&report{
		machine: machineLine(),
		command: commandLine(count, benchtime, cpu, run),
		count:   count,
		results: results,
		libs:    bench.Libs(),
	}, out, []byte(saved))
}

// render reports a results.txt saved by an earlier run.
func render(from string, out target) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	results, err := collect(bytes.NewReader(data), io.Discard, 0)
	if err != nil {
		return err
	}
	r := &report{machine: "unknown", command: "unknown", results: results, libs: bench.Libs()}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "compare-command: "); ok {
			r.command = v
		} else if v, ok := strings.CutPrefix(line, "compare-machine: "); ok {
			r.machine = v
		}
	}
	for _, ss := range results.samples {
		r.count = max(r.count, len(ss))
	}
	return write(r, out, data)
}

// write prints the table and, with an output directory, saves the table,
// the chart and the raw results there: as new files, or replacing the
// committed ones for -update.
func write(r *report, out target, raw []byte) error {
	table := r.markdown()
	fmt.Print(table)
	if out.dir == "" {
		return nil
	}
	if err := os.MkdirAll(out.dir, 0o755); err != nil {
		return err
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL // a file that appeared since destination is kept
	if out.replace {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	for name, data := range map[string][]byte{
		"results.md":  []byte(table),
		"results.svg": []byte(r.svg()),
		"results.txt": raw,
	} {
		f, err := os.OpenFile(filepath.Join(out.dir, name), flags, 0o644)
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		if err := cmp.Or(err, f.Close()); err != nil {
			return err
		}
	}
	if out.replace {
		fmt.Fprintf(os.Stderr, "replaced the results in %s\n", out.dir)
	}
	return nil
}

// moduleDir returns the root of the bench module, where the benchmarks are.
func moduleDir(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}", "github.com/fastid/scru128/bench").Output()
	if err != nil {
		return "", fmt.Errorf("finding the bench module (run compare from inside it): %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// collect reads go test's output, keeps the benchmark results and prints a
// progress line for each, and the lines that report a failure.
func collect(r io.Reader, progress io.Writer, count int) (*results, error) {
	res := newResults()
	failures := &failureLines{w: progress}
	br := benchfmt.NewReader(io.TeeReader(r, failures), "go test output")
	n := 0
	for br.Scan() {
		rec, ok := br.Result().(*benchfmt.Result)
		if !ok {
			continue // unit metadata, or a line that only looks like a result
		}
		s, ok := sampleOf(rec)
		if !ok {
			continue
		}
		res.add(s)
		n++
		fmt.Fprintf(progress, "[%3d] %-40s run %d/%d  %8.2f ns/op  %g allocs/op\n",
			n, s.op+"/"+s.lib, res.runs(s.op, s.lib), count, s.nsPerOp, s.allocsPerOp)
	}
	return res, br.Err()
}

// failureLines writes to w the lines of go test's output that report a
// failure or a panic, as the output passes through.
type failureLines struct {
	w       io.Writer
	partial []byte // the start of a line whose end has not come yet
}

func (f *failureLines) Write(p []byte) (int, error) {
	f.partial = append(f.partial, p...)
	for {
		line, rest, ok := bytes.Cut(f.partial, []byte("\n"))
		if !ok {
			break
		}
		if bytes.HasPrefix(line, []byte("--- FAIL")) || bytes.HasPrefix(line, []byte("FAIL")) || bytes.Contains(line, []byte("panic:")) {
			fmt.Fprintf(f.w, "%s\n", line)
		}
		f.partial = rest
	}
	return len(p), nil
}

func machineLine() string {
	model := strings.TrimSpace(cpuid.CPU.BrandName)
	if model == "" {
		model = "unknown CPU"
	}
	return fmt.Sprintf("%s, %d logical cores (%d physical), %s %s/%s",
		model, runtime.NumCPU(), cpuid.CPU.PhysicalCores, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func commandLine(count int, benchtime string, cpu int, run string) string {
	s := fmt.Sprintf("go run ./cmd/compare -count %d -benchtime %s", count, benchtime)
	if cpu > 0 {
		s += fmt.Sprintf(" -cpu %d", cpu)
	}
	if run != "." {
		s += fmt.Sprintf(" -run '%s'", run)
	}
	return s
}
