package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fastid/scru128"
)

func runCLI(t *testing.T, stdin string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	var out, errOut bytes.Buffer
	status = run(args, strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), status
}

func TestGenPrintsIncreasingIDs(t *testing.T) {
	out, errOut, status := runCLI(t, "", "gen", "-n", "1000")
	if status != 0 || errOut != "" {
		t.Fatalf("status %d, stderr %q", status, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 1000 {
		t.Fatalf("%d lines, want 1000", len(lines))
	}
	prev := scru128.ID{}
	for _, l := range lines {
		id, err := scru128.Parse(l)
		if err != nil || id.Compare(prev) <= 0 {
			t.Fatalf("line %q: %v (previous %s)", l, err, prev)
		}
		prev = id
	}
}

func TestGenDefaultsToOne(t *testing.T) {
	out, _, status := runCLI(t, "", "gen")
	if status != 0 || len(out) != 26 {
		t.Fatalf("status %d, output %q", status, out)
	}
}

func TestGenRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{{"gen", "-n", "-1"}, {"gen", "-n", "x"}, {"gen", "extra"}, {"gen", "-format", "nope"},
		{"gen", "-node", "42/8"}, {"inspect", "-format", "nope"}, {"frobnicate"}, {}} {
		if _, _, status := runCLI(t, "", args...); status != 2 {
			t.Errorf("%q: status %d, want 2", args, status)
		}
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"gen", "-h"}, {"inspect", "-h"}} {
		out, errOut, status := runCLI(t, "", args...)
		if status != 0 || !strings.Contains(out+errOut, "Usage") {
			t.Errorf("%q: status %d, output %q %q", args, status, out, errOut)
		}
	}
}

// closingWriter accepts limit bytes, then fails as a closed pipe does.
type closingWriter struct{ limit int }

func (w *closingWriter) Write(p []byte) (int, error) {
	if len(p) > w.limit {
		n := w.limit
		w.limit = 0
		return n, os.ErrClosed
	}
	w.limit -= len(p)
	return len(p), nil
}

func TestGenStreamStopsQuietlyWhenStdoutCloses(t *testing.T) {
	var errOut bytes.Buffer
	status := run([]string{"gen", "-n", "0"}, nil, &closingWriter{limit: 1 << 20}, &errOut)
	if status != 0 || errOut.Len() != 0 {
		t.Fatalf("status %d, stderr %q", status, errOut.String())
	}
}

// TestGenStreamToClosedPipe runs the real binary into `head`-like reader
// that stops early: the command must exit 0 and print nothing on stderr.
func TestGenStreamToClosedPipe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "scru128")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "gen", "-n", "0")
	stdout, _ := cmd.StdoutPipe()
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stdout)
	for range 100_000 {
		line, err := r.ReadString('\n')
		if err != nil || len(line) != 26 {
			t.Fatalf("read %q, %v", line, err)
		}
	}
	stdout.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil || errOut.Len() != 0 {
			t.Fatalf("exit: %v, stderr %q", err, errOut.String())
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("gen -n 0 did not stop after stdout closed")
	}
}

func TestInspect(t *testing.T) {
	out, errOut, status := runCLI(t, "", "inspect", "0372hg16csmsm50l8dikcvukc", "0372HG16CY3NOWRACLS909WCD")
	if status != 0 || errOut != "" {
		t.Fatalf("status %d, stderr %q", status, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("output %q", out)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"format":    "scru128",
		"text":      "0372hg16csmsm50l8dikcvukc",
		"timestamp": float64(0x017fee7fef41),
		"time":      "2022-04-03T08:17:16.097Z",
		"counterHi": float64(0x7e2b34),
		"counterLo": float64(0x32ac2e),
		"entropy":   float64(0xc553687c),
		"hex":       "017fee7fef417e2b3432ac2ec553687c",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("extra keys in %v", got)
	}
	if !strings.Contains(lines[1], `"text":"0372hg16cy3nowracls909wcd"`) {
		t.Errorf("upper-case input not normalized: %s", lines[1])
	}
}

func TestInspectStdinWithInvalidLines(t *testing.T) {
	in := "0372hg16csmsm50l8dikcvukc\n\nnot-an-id\n  0372ijojuxuhjsfkeryi2mrtm  \nf5lxx1zz5pnorynqglhzmsp34\n"
	out, errOut, status := runCLI(t, in, "inspect")
	if status != 1 {
		t.Fatalf("status %d, want 1", status)
	}
	if n := strings.Count(out, "\n"); n != 2 {
		t.Fatalf("%d objects printed, want 2: %q", n, out)
	}
	for _, want := range []string{`"not-an-id"`, "no ID format has this length (9 bytes)", `"f5lxx1zz5pnorynqglhzmsp34"`, "out of range"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr %q lacks %q", errOut, want)
		}
	}
}

// BenchmarkStream measures `gen -n 0` into io.Discard: IDs per second is
// 1e9 / ns/op. The target is at least 10 million per second.
func BenchmarkStream(b *testing.B) {
	b.ReportAllocs()
	mint, _ := scru128Format.newMinter("")
	err := writeIDs(io.Discard, int64(b.N), mint)
	if err != nil && !errors.Is(err, io.EOF) {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/1e6, "Mids/s")
}

func TestSCRU64(t *testing.T) {
	out, errOut, status := runCLI(t, "", "gen", "-format", "scru64", "-node", "42/8", "-n", "100")
	if status != 0 || errOut != "" {
		t.Fatalf("status %d, stderr %q", status, errOut)
	}
	lines := strings.Fields(out)
	if len(lines) != 100 || len(lines[0]) != 12 {
		t.Fatalf("output %q", out)
	}
	for i := 1; i < len(lines); i++ {
		if lines[i] <= lines[i-1] {
			t.Fatalf("%s after %s", lines[i], lines[i-1])
		}
	}
	out, errOut, status = runCLI(t, "", "inspect", "0u375nxqh5cq")
	if status != 0 || !strings.Contains(out, `"format":"scru64"`) || !strings.Contains(out, `"int":110009624767914842`) {
		t.Fatalf("inspect: status %d, %q %q", status, out, errOut)
	}
	t.Setenv("SCRU64_NODE_SPEC", "")
	if _, errOut, status := runCLI(t, "", "gen", "-format", "scru64"); status != 2 || !strings.Contains(errOut, "SCRU64_NODE_SPEC") {
		t.Fatalf("gen without a node spec: status %d, stderr %q", status, errOut)
	}
	if _, errOut, status := runCLI(t, "", "gen", "-format", "scru64", "-node", "1024/8"); status != 2 || errOut == "" {
		t.Fatalf("gen with a bad node spec: status %d, stderr %q", status, errOut)
	}
}

func TestOtherFormats(t *testing.T) {
	for _, tc := range []struct {
		format string
		length int
	}{{"ulid", 26}, {"ulidflake", 13}, {"legacy", 26}} {
		out, errOut, status := runCLI(t, "", "gen", "-format", tc.format, "-n", "50")
		lines := strings.Fields(out)
		if status != 0 || errOut != "" || len(lines) != 50 || len(lines[0]) != tc.length {
			t.Fatalf("gen -format %s: status %d, stderr %q, output %q", tc.format, status, errOut, out)
		}
		for i := 1; i < len(lines); i++ {
			if lines[i] <= lines[i-1] {
				t.Fatalf("%s: %s after %s", tc.format, lines[i], lines[i-1])
			}
		}
		forced := []string{"inspect", "-format", tc.format, lines[0]}
		if out, errOut, status := runCLI(t, "", forced...); status != 0 || !strings.Contains(out, `"format":"`+tc.format+`"`) {
			t.Fatalf("%q: status %d, %q %q", forced, status, out, errOut)
		}
	}
	// By length: a ULID with W-Z letters can only be a ULID; one with
	// I, L, O or U only the legacy form.
	for text, format := range map[string]string{
		"01J9Z3CWSW4V2A2T9D3M8QY6KX": "ulid",
		"0LQKPL5UFSUA7KQRAR5KB7MO1I": "legacy",
		"00CMXB6TAK4SA":              "ulidflake",
	} {
		out, errOut, status := runCLI(t, "", "inspect", text)
		if status != 0 || !strings.Contains(out, `"format":"`+format+`"`) {
			t.Errorf("inspect %s: status %d, %q %q; want format %s", text, status, out, errOut, format)
		}
	}
	if _, errOut, status := runCLI(t, "", "inspect", "8ZZZZZZZZZZZZZZZZZZZZZZZZZ"); status != 1 || !strings.Contains(errOut, "ulid") {
		t.Errorf("inspect of an overflowing ULID: status %d, stderr %q", status, errOut)
	}
}
