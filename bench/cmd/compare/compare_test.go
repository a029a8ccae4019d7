package main

import (
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"golang.org/x/perf/benchfmt"

	"github.com/fastid/scru128/bench"
)

// parseLine returns the sample on one line of go test output, as collect
// reads it.
func parseLine(line string) (sample, bool) {
	r := benchfmt.NewReader(strings.NewReader(line), "test")
	for r.Scan() {
		if res, ok := r.Result().(*benchfmt.Result); ok {
			return sampleOf(res)
		}
	}
	return sample{}, false
}

func TestParseLine(t *testing.T) {
	for _, tc := range []struct {
		line string
		want sample
		ok   bool
	}{
		{"BenchmarkMint/fastid-scru128-2         	25904132	        45.12 ns/op	       0 B/op	       0 allocs/op",
			sample{"Mint", "fastid-scru128", 45.12, 0}, true},
		{"BenchmarkMintString/oklog-ulid-16   1000  127.9 ns/op  64 B/op  2 allocs/op",
			sample{"MintString", "oklog-ulid", 127.9, 2}, true},
		{"BenchmarkFloor/time.Now-2  100  46.2 ns/op", sample{"Floor", "time.Now", 46.2, 0}, true},
		{"BenchmarkParse/rs-xid   100  14.8 ns/op  0 B/op  0 allocs/op", sample{"Parse", "rs-xid", 14.8, 0}, true},
		{"goos: linux", sample{}, false},
		{"PASS", sample{}, false},
		{"BenchmarkMint/x-2 --- SKIP", sample{}, false},
	} {
		got, ok := parseLine(tc.line)
		if ok != tc.ok || got != tc.want {
			t.Errorf("parseLine(%q) = %+v, %v; want %+v, %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}

// TestCollectShowsFailures checks that collect passes on the lines of a
// failing run, including one split across reads, and keeps the results.
func TestCollectShowsFailures(t *testing.T) {
	out := "BenchmarkMint/rs-xid-2  1  56 ns/op\n--- FAIL: BenchmarkParse/rs-xid\npanic: boom\nFAIL\tgithub.com/fastid/scru128/bench\t1.0s\n"
	var progress strings.Builder
	res, err := collect(iotest.OneByteReader(strings.NewReader(out)), &progress, 1)
	if err != nil {
		t.Fatal(err)
	}
	if res.runs("Mint", "rs-xid") != 1 {
		t.Errorf("results: %v", res.samples)
	}
	for _, want := range []string{"--- FAIL: BenchmarkParse/rs-xid\n", "panic: boom\n", "FAIL\tgithub.com"} {
		if !strings.Contains(progress.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, progress.String())
		}
	}
}

func TestMedian(t *testing.T) {
	if m := median([]float64{5, 1, 3}); m != 3 {
		t.Errorf("odd median = %v", m)
	}
	if m := median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Errorf("even median = %v", m)
	}
}

// testReport builds a report from go test output for two libraries.
func testReport(t *testing.T) *report {
	t.Helper()
	out := `BenchmarkMint/fastid-scru128-2  1  40 ns/op  0 B/op  0 allocs/op
BenchmarkMint/fastid-scru128-2  1  50 ns/op  0 B/op  0 allocs/op
BenchmarkMint/fastid-scru128-2  1  45 ns/op  0 B/op  0 allocs/op
BenchmarkMint/oklog-ulid-2  1  90 ns/op  16 B/op  1 allocs/op
BenchmarkMint/oklog-ulid-2  1  80 ns/op  16 B/op  1 allocs/op
BenchmarkMint/oklog-ulid-2  1  100 ns/op  16 B/op  1 allocs/op
BenchmarkParse/fastid-scru128-2  1  12 ns/op  0 B/op  0 allocs/op
BenchmarkParse/oklog-ulid-2  1  10 ns/op  0 B/op  0 allocs/op
BenchmarkFloor/time.Now-2  1  46 ns/op
BenchmarkFloor/chacha8-uint64-2  1  4.5 ns/op
`
	res, err := collect(strings.NewReader(out), io.Discard, 3)
	if err != nil {
		t.Fatal(err)
	}
	var libs []bench.Lib
	for _, l := range bench.Libs() {
		if l.Name == "fastid-scru128" || l.Name == "oklog-ulid" {
			libs = append(libs, l)
		}
	}
	return &report{machine: "test CPU", command: "go run ./cmd/compare", count: 3, results: res, libs: libs}
}

func TestMarkdown(t *testing.T) {
	md := testReport(t).markdown()
	for _, want := range []string{
		"Machine: test CPU.",
		"| library | Mint | Parse |",
		"| fastid-scru128 | **45.0 ns**, 0 allocs, 1.00x | 12.0 ns, 0 allocs, 1.00x |",
		"| oklog-ulid | 90.0 ns, 1 alloc, 2.00x | **10.0 ns**, 0 allocs, 0.83x |",
		"| time.Now | 46.0 |",
		"| chacha8-uint64 | 4.50 |",
		"- oklog-ulid: Make; MarshalTextTo; ParseStrict.",
		"| library | order across goroutines | text | random bits | RFC 9562 version bits | sorts by time as bytes | as text |",
		"| fastid-scru128 | strictly increasing | 25 | 80: 32 per ID, counter_lo (24) at each new ms, counter_hi (24) every second | no | yes | yes |",
		"| oklog-ulid | to the ms | 26 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Index(md, "| time.Now") > strings.Index(md, "| chacha8-uint64") {
		t.Error("floor parts out of order")
	}
}

func TestSVGIsWellFormed(t *testing.T) {
	svg := testReport(t).svg()
	dec := xml.NewDecoder(strings.NewReader(svg))
	bars := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("invalid SVG: %v\n%s", err, svg)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "title" {
			bars++
		}
	}
	if bars != 4 {
		t.Fatalf("%d bars, want 4 (2 operations x 2 libraries)", bars)
	}
}

func TestNiceCeil(t *testing.T) {
	for in, want := range map[float64]float64{0: 1, 3: 5, 10: 10, 11: 20, 199: 200, 201: 500, 0.3: 0.5} {
		if got := niceCeil(in); got != want {
			t.Errorf("niceCeil(%v) = %v, want %v", in, got, want)
		}
	}
}

func TestRenderSavedResults(t *testing.T) {
	dir := t.TempDir()
	saved := "compare-command: go run ./cmd/compare -count 2 -benchtime 1s\ncompare-machine: test CPU\n" +
		"goos: linux\nBenchmarkMint/fastid-scru128-2  1  40 ns/op  0 B/op  0 allocs/op\n" +
		"BenchmarkMint/fastid-scru128-2  1  44 ns/op  0 B/op  0 allocs/op\n"
	from := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(from, []byte(saved), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	stdout := os.Stdout
	os.Stdout, _ = os.Open(os.DevNull)
	err := render(from, target{dir: out})
	os.Stdout = stdout
	if err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(out, "results.md"))
	for _, want := range []string{"Machine: test CPU.", "`go run ./cmd/compare -count 2 -benchtime 1s`", "median ns/op over 2 runs", "**42.0 ns**"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("results.md lacks %q:\n%s", want, md)
		}
	}
	raw, _ := os.ReadFile(filepath.Join(out, "results.txt"))
	if string(raw) != saved {
		t.Error("results.txt is not the saved input")
	}
	if _, err := os.Stat(filepath.Join(out, "results.svg")); err != nil {
		t.Error(err)
	}
}

// TestOutNeverReplacesResults is the report that the command the
// docs gave, go run ./cmd/compare -out ., overwrote the committed
// results: -out now refuses a directory that holds results, before
// anything runs, and only -update replaces them.
func TestOutNeverReplacesResults(t *testing.T) {
	dir := t.TempDir()
	committed := filepath.Join(dir, "results.md")
	if err := os.WriteFile(committed, []byte("committed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := destination(t.Context(), dir, false); err == nil || !strings.Contains(err.Error(), "-update") {
		t.Fatalf("destination(-out over results) = %v, want an error pointing to -update", err)
	}
	saved := "compare-command: x\ncompare-machine: test CPU\nBenchmarkMint/fastid-scru128-2  1  40 ns/op  0 B/op  0 allocs/op\n"
	from := filepath.Join(t.TempDir(), "in.txt")
	if err := os.WriteFile(from, []byte(saved), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout, _ = os.Open(os.DevNull)
	defer func() { os.Stdout = stdout }()
	// A file that appears between the check and the write is kept too.
	if err := render(from, target{dir: dir}); err == nil {
		t.Error("render over existing results succeeded")
	}
	if data, _ := os.ReadFile(committed); string(data) != "committed" {
		t.Fatalf("results.md was replaced: %q", data)
	}
	if err := render(from, target{dir: dir, replace: true}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(committed); !strings.Contains(string(data), "Machine: test CPU.") {
		t.Fatalf("-update did not replace results.md: %q", data)
	}
	fresh := filepath.Join(t.TempDir(), "new")
	if out, err := destination(t.Context(), fresh, false); err != nil || out.dir != fresh || out.replace {
		t.Fatalf("destination(-out new) = %+v, %v", out, err)
	}
}
