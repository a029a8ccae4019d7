//go:build unix && !aix

package cli

// Tests of process behaviour (exit statuses, closed and full stdout,
// signals, timing, back-to-back runs) on the built binary.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
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

// builtBinary builds the command's two binaries, scru128 and scru128-etcd,
// into one directory once per test run, and returns the path of scru128,
// which hands gen -etcd over to scru128-etcd.
func builtBinary(t testing.TB) string {
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
		out, err := exec.Command("go", "build", "-o", buildDir+string(filepath.Separator), toolDir, helperDir).CombinedOutput()
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
		{[]string{}, 0, true, false}, // one new ID, as uuidgen prints one
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

// TestBinaryInterrupt: every signal that ends a program by default ends
// gen after its last whole line, with its state saved and the status 128
// plus the signal's number.
func TestBinaryInterrupt(t *testing.T) {
	hangUpsReachChildren(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT,
		syscall.SIGABRT, syscall.SIGILL, syscall.SIGTRAP, syscall.SIGSYS} {
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

// hangUpsReachChildren makes the processes the test starts begin with
// SIGHUP at its default, as a terminal's processes do, though the test may
// run under nohup: a process started with a signal ignored keeps it so.
func hangUpsReachChildren(t *testing.T) {
	if signal.Ignored(syscall.SIGHUP) {
		t.Log("the test runs with SIGHUP ignored; catching it, so that its children start with it at its default")
		signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP)
	}
}

// TestBinaryHangUpContinues: a closed terminal (SIGHUP) ends gen -node as
// SIGINT does, with the -node to continue from on stderr; a rerun with it
// repeats no ID. Before gen caught SIGHUP, it died at once, said nothing,
// and a rerun with the same -node repeated up to 250,000 IDs.
func TestBinaryHangUpContinues(t *testing.T) {
	hangUpsReachChildren(t)
	cmd := exec.Command(builtBinary(t), "gen", "-format", "scru64", "-node", "42/8", "-stream")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGHUP)
	waitFor(t, cmd, 5*time.Second)
	first := strings.Fields(out.String())
	next := regexp.MustCompile(`pass -node (\S+) next time`).FindStringSubmatch(errOut.String())
	if code := cmd.ProcessState.ExitCode(); code != 129 || len(first) == 0 || next == nil {
		t.Fatalf("status %d, %d IDs, stderr %q; want 129, IDs and the -node to continue from", code, len(first), errOut.String())
	}
	rerun, errRerun, status := runBinary(t, "", "gen", "-format", "scru64", "-node", next[1], "-n", "100000")
	if status != 0 {
		t.Fatalf("rerun with -node %s: status %d, stderr %q", next[1], status, errRerun)
	}
	last := first[len(first)-1]
	for _, id := range strings.Fields(rerun) {
		if id <= last {
			t.Fatalf("the rerun with -node %s printed %s, not after the hung-up run's last ID %s", next[1], id, last)
		}
	}
}

// TestBinaryNohupKeepsHangUpsIgnored: started by nohup, which ignores
// SIGHUP, gen runs on through a hang-up and still stops on SIGINT.
func TestBinaryNohupKeepsHangUpsIgnored(t *testing.T) {
	nohup, err := exec.LookPath("nohup")
	if err != nil {
		t.Skip("no nohup here")
	}
	cmd := exec.Command(nohup, builtBinary(t), "gen", "-stream")
	var out syncBuffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGHUP)
	time.Sleep(300 * time.Millisecond)
	before := out.Len()
	time.Sleep(200 * time.Millisecond)
	if out.Len() == before {
		t.Errorf("gen under nohup stopped printing after SIGHUP")
	}
	cmd.Process.Signal(syscall.SIGINT)
	waitFor(t, cmd, 5*time.Second)
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("gen under nohup: status %d after SIGHUP then SIGINT, want 130", code)
	}
}

// syncBuffer is a bytes.Buffer that a process may write while the test
// reads its length.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Len()
}

// TestBinaryInterruptCutsTheTickWaitShort: gen -node without -state waits
// until its last ID's tick is over before it exits; a 2-bit counter runs
// the IDs some 10 s ahead of the clock, and SIGINT must still end gen
// within a second, with a warning that a plain rerun may repeat IDs.
func TestBinaryInterruptCutsTheTickWaitShort(t *testing.T) {
	cmd := exec.Command(builtBinary(t), "gen", "-format", "scru64", "-node", "0x3fffff/22", "-stream")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	sent := time.Now()
	waitFor(t, cmd, 15*time.Second)
	took := time.Since(sent)
	t.Logf("exit status %d after %v", cmd.ProcessState.ExitCode(), took.Round(time.Millisecond))
	if cmd.ProcessState.ExitCode() != 130 || took > time.Second ||
		!strings.Contains(errOut.String(), "pass -node ") || !strings.Contains(errOut.String(), "interrupted inside the last ID's tick") {
		t.Errorf("status %d after %v, stderr %q", cmd.ProcessState.ExitCode(), took, errOut.String())
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
	if status != 0 || !strings.HasPrefix(out, "scru128 ") || !strings.Contains(out, "module:   github.com/fastid/scru128/cmd/scru128 ") {
		t.Errorf("version: status %d, %q", status, out)
	}
	// With version control information: the revision go stamped, which
	// go version -m shows. (Go finds none in a git worktree, whose .git is
	// a file; then there is nothing to compare.)
	bin := filepath.Join(t.TempDir(), "scru128")
	if out, err := exec.Command("go", "build", "-buildvcs=true", "-o", bin, toolDir).CombinedOutput(); err != nil {
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
	got, err := exec.Command("go", "run", toolDir, "version").Output()
	if err != nil || !strings.Contains(string(got), "revision: unknown (built by go run") {
		t.Errorf("go run . version: %v\n%s", err, got)
	}
}

// TestBinarySCRU64StateSurvivesSIGKILL: gen -state killed with SIGKILL in
// the middle of a stream and rerun at once must not repeat an ID: the
// state file has to cover every ID printed before the kill, not only those
// of a clean exit. The 12-bit counter makes the stream run ticks ahead of
// the clock, so a rerun that started from the clock would land among them.
func TestBinarySCRU64StateSurvivesSIGKILL(t *testing.T) {
	state := filepath.Join(t.TempDir(), "node")
	cmd := exec.Command(builtBinary(t), "gen", "-format", "scru64", "-node", "42/12", "-state", state, "-stream")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stdout)
	var first []string
	for len(first) < 3000 {
		line, err := r.ReadString('\n')
		if err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("after %d lines: %v", len(first), err)
		}
		first = append(first, strings.TrimSuffix(line, "\n"))
	}
	cmd.Process.Kill()
	// What was written before the kill is still in the pipe; a line cut
	// by the kill has no newline and was not printed whole.
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			break
		}
		first = append(first, strings.TrimSuffix(line, "\n"))
	}
	cmd.Wait()

	out, errOut, status := runBinary(t, "", "gen", "-format", "scru64", "-node", "42/12", "-state", state, "-n", "3000")
	second := strings.Fields(out)
	if status != 0 || len(second) != 3000 {
		t.Fatalf("the rerun: status %d, %d IDs, stderr %q", status, len(second), errOut)
	}
	seen := make(map[string]bool, len(first)+len(second))
	maxFirst := ""
	for _, id := range first {
		if _, err := scru64.Parse(id); err != nil || seen[id] {
			t.Fatalf("the killed run printed %q twice or invalid (%v)", id, err)
		}
		seen[id] = true
		maxFirst = max(maxFirst, id)
	}
	repeats := 0
	for _, id := range second {
		if seen[id] {
			repeats++
		}
	}
	if repeats > 0 || second[0] <= maxFirst {
		t.Fatalf("the rerun repeats %d of %d IDs; it starts at %s, the killed run printed up to %s", repeats, len(second), second[0], maxFirst)
	}
}

// TestBinaryEveryDocumentedExitStatus holds the exit statuses scru128 help
// lists to what the binary does: each is the status of the runs below,
// and every status those runs give is listed.
func TestBinaryEveryDocumentedExitStatus(t *testing.T) {
	hangUpsReachChildren(t)
	_, section, ok := strings.Cut(topUsage, "\nExit status:\n")
	if !ok {
		t.Fatal("the usage has no exit status section")
	}
	var documented []int
	for _, m := range regexp.MustCompile(`(?m)^  (\d+) `).FindAllStringSubmatch(section, -1) {
		status, _ := strconv.Atoi(m[1])
		documented = append(documented, status)
	}
	runs := map[int][]struct {
		name string
		run  func(t *testing.T) int
	}{
		0: {{"gen -n 5 prints five IDs", func(t *testing.T) int {
			out, _, status := runBinary(t, "", "gen", "-n", "5")
			if len(strings.Fields(out)) != 5 {
				t.Errorf("gen -n 5 printed %q", out)
			}
			return status
		}}},
		1: {
			{"an invalid ID", func(t *testing.T) int {
				_, _, status := runBinary(t, "", "inspect", "zzzzzzzzzzzzzzzzzzzzzzzzz")
				return status
			}},
			{"an ID valid in two formats", func(t *testing.T) int { _, _, status := runBinary(t, "", bothULIDAndLegacy); return status }},
			{"an unwritable state file", func(t *testing.T) int {
				_, _, status := runBinary(t, "", "gen", "-format", "scru64", "-node", "1/8", "-state", filepath.Join(t.TempDir(), "missing", "node"))
				return status
			}},
			{"an unreachable etcd", func(t *testing.T) int {
				_, _, status := runBinary(t, "", "gen", "-format", "scru64", "-etcd", "http://127.0.0.1:1")
				return status
			}},
		},
		2: {
			{"a bad flag value", func(t *testing.T) int { _, _, status := runBinary(t, "", "gen", "-n", "-1"); return status }},
			{"an unknown command", func(t *testing.T) int { _, _, status := runBinary(t, "", "frobnicate"); return status }},
		},
		129: {{"SIGHUP", func(t *testing.T) int { return signalledGen(t, syscall.SIGHUP) }}},
		130: {{"SIGINT", func(t *testing.T) int { return signalledGen(t, syscall.SIGINT) }}},
		131: {{"SIGQUIT", func(t *testing.T) int { return signalledGen(t, syscall.SIGQUIT) }}},
		143: {{"SIGTERM", func(t *testing.T) int { return signalledGen(t, syscall.SIGTERM) }}},
	}
	for status, cases := range runs {
		if !slices.Contains(documented, status) {
			t.Errorf("status %d happens (%s) but scru128 help does not list it", status, cases[0].name)
		}
		for _, c := range cases {
			if got := c.run(t); got != status {
				t.Errorf("%s: status %d, want %d", c.name, got, status)
			}
		}
	}
	for _, status := range documented {
		if _, ok := runs[status]; !ok {
			t.Errorf("scru128 help lists status %d, which no run here gives", status)
		}
	}
}

// signalledGen runs gen -stream, sends it sig once it prints, and returns
// its exit status.
func signalledGen(t *testing.T, sig syscall.Signal) int {
	t.Helper()
	cmd := exec.Command(builtBinary(t), "gen", "-stream")
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stdout)
	if _, err := r.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	cmd.Process.Signal(sig)
	go r.WriteTo(io.Discard) // drain, so that gen is not held up writing
	waitFor(t, cmd, 5*time.Second)
	return cmd.ProcessState.ExitCode()
}

// TestFarFutureRecordIsTooFarToWait: a node whose last ID is centuries
// ahead is refused at once, with how far ahead it is, instead of gen
// waiting silently for ever (before: no output, no end).
func TestFarFutureRecordIsTooFarToWait(t *testing.T) {
	bin := builtBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var errOut strings.Builder
	cmd := exec.CommandContext(ctx, bin, "gen", "-format", "scru64", "-node", farAhead)
	cmd.Stderr = &errOut
	out, _ := cmd.Output()
	if ctx.Err() != nil {
		t.Fatalf("gen -node %s was still running after 30 s; stderr %q", farAhead, errOut.String())
	}
	msg := errOut.String()
	if cmd.ProcessState.ExitCode() != ExitFailure || len(out) != 0 ||
		!strings.Contains(msg, "too far to wait") || !strings.Contains(msg, "years ahead of the clock") ||
		!strings.Contains(msg, "node ID 5 continues after zzzzzzzg98n3 (4261-02-27") {
		t.Errorf("status %d, stdout %q, stderr %q; want 1, nothing, and too far to wait", cmd.ProcessState.ExitCode(), out, msg)
	}
}
