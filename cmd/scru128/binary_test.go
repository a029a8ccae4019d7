//go:build unix

package main

// Tests of process behaviour (exit statuses, closed and full stdout,
// signals, timing, back-to-back runs) on the built binary.

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fastid/scru128/scru64"
)

var (
	buildOnce sync.Once
	buildDir  string
	binPath   string
	buildErr  error
)

func TestMain(m *testing.M) {
	status := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(status)
}

// builtBinary builds the command once per test run and returns its path.
func builtBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "scru128-test")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(buildDir, "scru128")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = errors.New(err.Error() + "\n" + string(out))
		}
	})
	if buildErr != nil {
		t.Fatalf("build: %v", buildErr)
	}
	return binPath
}

// runBinary runs the binary to the end and returns its output and status.
func runBinary(t *testing.T, stdin string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	cmd := exec.Command(builtBinary(t), args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

func TestBinaryExitStatuses(t *testing.T) {
	for _, tc := range []struct {
		args           []string
		status         int
		stdout, stderr bool // whether each has output
	}{
		{[]string{"-h"}, 0, true, false},
		{[]string{"gen", "-h"}, 0, true, false},
		{[]string{"gen"}, 0, true, false},
		{[]string{}, 2, false, true},
		{[]string{"gen", "-n", "-1"}, 2, false, true},
		{[]string{"gen", "-n", "3", "extra"}, 2, false, true},
		{[]string{"inspect", "0372hg16csmsm50l8dikcvukc"}, 0, true, false},
		{[]string{"inspect", "zzzzzzzzzzzzzzzzzzzzzzzzz"}, 1, false, true},
	} {
		out, errOut, status := runBinary(t, "", tc.args...)
		if status != tc.status || (out != "") != tc.stdout || (errOut != "") != tc.stderr {
			t.Errorf("%q: status %d, stdout %.60q, stderr %.60q", tc.args, status, out, errOut)
		}
	}
}

// TestBinaryStreamToClosedPipe: a reader that stops early ends gen -stream
// with status 0 and nothing on stderr.
func TestBinaryStreamToClosedPipe(t *testing.T) {
	cmd := exec.Command(builtBinary(t), "gen", "-stream")
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
	if err := waitFor(t, cmd, 10*time.Second); err != nil || errOut.Len() != 0 {
		t.Fatalf("exit: %v, stderr %q", err, errOut.String())
	}
}

// waitFor waits for cmd to exit, killing it after limit.
func waitFor(t *testing.T, cmd *exec.Cmd, limit time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%q did not exit within %v", cmd.Args, limit)
		return nil
	}
}

func TestBinaryFullStdout(t *testing.T) {
	for _, args := range [][]string{
		{"inspect", "0372hg16csmsm50l8dikcvukc"}, {"gen"}, {"gen", "-n", "100000"}, {"gen", "-stream"}, {"version"},
	} {
		full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
		if err != nil {
			t.Skip("no /dev/full:", err)
		}
		cmd := exec.Command(builtBinary(t), args...)
		cmd.Stdout = full
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		err = waitForRun(t, cmd)
		full.Close()
		if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(errOut.String(), "scru128: writing output: ") ||
			!strings.Contains(errOut.String(), "no space left on device") {
			t.Errorf("%q > /dev/full: %v, stderr %q", args, err, errOut.String())
		}
	}
}

func waitForRun(t *testing.T, cmd *exec.Cmd) error {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return waitFor(t, cmd, 10*time.Second)
}

func TestBinaryLongStdinLines(t *testing.T) {
	in := "0372hg16csmsm50l8dikcvukc\n" + strings.Repeat("z", 5<<20) + "\n0372ijojuxuhjsfkeryi2mrtm\n"
	out, errOut, status := runBinary(t, in, "inspect")
	if status != 1 || strings.Count(out, "\n") != 2 || !strings.Contains(out, "0372ijojuxuhjsfkeryi2mrtm") {
		t.Errorf("status %d, stdout %.200q", status, out)
	}
	if !strings.HasPrefix(errOut, `scru128: line 2: "zzzz`) || !strings.Contains(errOut, "(5242880 bytes)") || len(errOut) > 300 {
		t.Errorf("stderr %.400q", errOut)
	}
}

// TestBinarySlowStream: SCRU64 with a 2-bit counter mints a few IDs per
// 256-ms tick. Its first line must show at once, not when a buffer fills,
// and a reader that goes away must be noticed promptly.
func TestBinarySlowStream(t *testing.T) {
	state := filepath.Join(t.TempDir(), "node")
	cmd := exec.Command(builtBinary(t), "gen", "-format", "scru64", "-node", "0x3fffff/22", "-stream", "-state", state)
	stdout, _ := cmd.StdoutPipe()
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stdout)
	first, err := r.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 200*time.Millisecond {
		t.Errorf("the first line took %v", d)
	}
	// Read past the burst the counter allows ahead of the clock, into the
	// slow part, then go away.
	var last string
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		if last, err = r.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
	}
	stdout.Close()
	closed := time.Now()
	if err := waitFor(t, cmd, 5*time.Second); err != nil || errOut.Len() != 0 {
		t.Fatalf("exit: %v, stderr %q", err, errOut.String())
	}
	if d := time.Since(closed); d > time.Second {
		t.Errorf("gen noticed the closed pipe after %v", d)
	}
	spec := readSpec(t, state)
	if spec.NodeID() != 0x3fffff || spec.NodePrev().String() < strings.TrimSpace(last) || strings.TrimSpace(first) >= strings.TrimSpace(last) {
		t.Errorf("state %v after lines %s ... %s", spec, first, last)
	}
}

func readSpec(t *testing.T, path string) scru64.NodeSpec {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := scru64.ParseNodeSpec(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// TestBinarySCRU64BackToBack reproduces the report of duplicate IDs from
// back-to-back runs with the same node: 31 runs, 30 pairs, no ID twice.
func TestBinarySCRU64BackToBack(t *testing.T) {
	seen := make(map[string]int, 31*5000)
	for run := range 31 {
		out, errOut, status := runBinary(t, "", "gen", "-format", "scru64", "-node", "42/8", "-n", "5000")
		if status != 0 || !strings.Contains(errOut, "pass -node ") {
			t.Fatalf("run %d: status %d, stderr %q", run, status, errOut)
		}
		for _, id := range strings.Fields(out) {
			if prev, dup := seen[id]; dup {
				t.Fatalf("run %d repeats %s from run %d", run, id, prev)
			}
			seen[id] = run
		}
	}
	if len(seen) != 31*5000 {
		t.Fatalf("%d IDs, want %d", len(seen), 31*5000)
	}
}

func TestBinaryInterrupt(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		state := filepath.Join(t.TempDir(), "node")
		cmd := exec.Command(builtBinary(t), "gen", "-stream", "-format", "scru64", "-node", "7/3", "-state", state)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond)
		cmd.Process.Signal(sig)
		waitFor(t, cmd, 5*time.Second)
		ids := strings.Fields(out.String())
		if code := cmd.ProcessState.ExitCode(); code != 128+int(sig) || errOut.Len() != 0 || len(ids) == 0 ||
			!strings.HasSuffix(out.String(), "\n") || len(out.String()) != 13*len(ids) {
			t.Fatalf("%v: status %d, stderr %q, %d IDs", sig, code, errOut.String(), len(ids))
		}
		// The state continues at or after the last ID printed.
		if spec := readSpec(t, state); spec.NodePrev().String() < ids[len(ids)-1] {
			t.Errorf("%v: state %v, last ID printed %s", sig, spec, ids[len(ids)-1])
		}
	}
}

// TestBinaryInterruptEndsOtherCommands: only gen catches SIGINT; inspect
// waiting for stdin ends on it as any program does.
func TestBinaryInterruptEndsOtherCommands(t *testing.T) {
	cmd := exec.Command(builtBinary(t), "inspect")
	stdin, _ := cmd.StdinPipe() // kept open: inspect waits for more
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	waitFor(t, cmd, 5*time.Second)
	if status, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !status.Signaled() || status.Signal() != syscall.SIGINT {
		t.Errorf("inspect ended with %v, want death by SIGINT", cmd.ProcessState)
	}
}

func TestBinaryVersion(t *testing.T) {
	out, _, status := runBinary(t, "", "version")
	if status != 0 || !strings.HasPrefix(out, "scru128 ") || !strings.Contains(out, "module:   github.com/fastid/scru128\n") {
		t.Errorf("version: status %d, %q", status, out)
	}
	// With version control information: the revision go stamped, which
	// go version -m shows. (Go finds none in a git worktree, whose .git is
	// a file; then there is nothing to compare.)
	bin := filepath.Join(t.TempDir(), "scru128")
	if out, err := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Skipf("cannot build with version control information: %v\n%s", err, out)
	}
	meta, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	if _, after, ok := strings.Cut(string(meta), "vcs.revision="); ok {
		rev, _, _ := strings.Cut(after, "\n")
		got, err := exec.Command(bin, "version").Output()
		if err != nil || !strings.Contains(string(got), "revision: "+strings.TrimSpace(rev)+" (") {
			t.Errorf("version of a build at %s: %v\n%s", rev, err, got)
		}
	} else {
		t.Log("go stamped no revision here; not checked")
	}
	// go run has no revision, and says so.
	got, err := exec.Command("go", "run", ".", "version").Output()
	if err != nil || !strings.Contains(string(got), "revision: unknown (built by go run") {
		t.Errorf("go run . version: %v\n%s", err, got)
	}
}
