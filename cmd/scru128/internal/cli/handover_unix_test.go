//go:build unix && !aix

package cli

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// copyBinary copies the built scru128 to dir, alone, and returns its path.
func copyBinary(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(builtBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "scru128")
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestHandOverMissingHelper: scru128 without scru128-etcd beside it fails
// gen -etcd with status 2 and one line that names the path it looked for
// and the go install of both, having touched nothing: no output, no file.
// Every other command runs as before.
func TestHandOverMissingHelper(t *testing.T) {
	dir := t.TempDir()
	bin := copyBinary(t, dir)
	cmd := exec.Command(bin, "gen", "-format", "scru64", "-n", "3", "-etcd", "127.0.0.1:1")
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.Run()
	want := "scru128: gen -etcd runs in scru128-etcd, which is not beside this scru128 (looked for " + filepath.Join(dir, "scru128-etcd") + "): go install github.com/fastid/scru128/cmd/scru128/...@"
	if status := cmd.ProcessState.ExitCode(); status != ExitUsage || out.Len() != 0 || !strings.HasPrefix(errOut.String(), want) || strings.Count(errOut.String(), "\n") != 1 {
		t.Errorf("status %d, stdout %q, stderr %q; want %d, nothing, and one line beginning %q", status, out.String(), errOut.String(), ExitUsage, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the run left %d files beside scru128, want none", len(entries)-1)
	}
	if _, _, status := runBinaryAt(t, bin, "gen", "-format", "scru64", "-node", "1/8", "-state", filepath.Join(dir, "node")); status != ExitOK {
		t.Errorf("gen -state without scru128-etcd: status %d", status)
	}
}

// TestHandOverRefusesAHelperOthersCanChange: a scru128-etcd that a user
// who cannot change scru128 could change (another owner, writable by any
// user or by its group where scru128 is not) is not run: gen -etcd fails
// with status 2 and says why, having run nothing. Both group-writable, as
// go install leaves them under a umask of 002, is run.
func TestHandOverRefusesAHelperOthersCanChange(t *testing.T) {
	dir := t.TempDir()
	bin := copyBinary(t, dir)
	data, err := os.ReadFile(filepath.Join(filepath.Dir(builtBinary(t)), helperName))
	if err != nil {
		t.Fatal(err)
	}
	helper := filepath.Join(dir, helperName)
	if err := os.WriteFile(helper, data, 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{"gen", "-format", "scru64", "-etcd", "http://127.0.0.1:1"}
	for _, tc := range []struct {
		tool, helper os.FileMode
		refusal      string // "" when scru128-etcd runs
	}{
		{0o755, 0o755, ""},
		{0o775, 0o775, ""},
		{0o777, 0o777, ""},
		{0o755, 0o775, "which its group may write (mode -rwxrwxr-x, gid "},
		{0o755, 0o757, "which any user may write (mode -rwxr-xrwx; this scru128's is -rwxr-xr-x)"},
		{0o775, 0o777, "which any user may write (mode -rwxrwxrwx; this scru128's is -rwxrwxr-x)"},
	} {
		if err := os.Chmod(bin, tc.tool); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(helper, tc.helper); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, status := runBinaryAt(t, bin, args...)
		switch {
		case tc.refusal == "" && (status != ExitFailure || !strings.Contains(stderr, "leasing a node ID from etcd: ")):
			t.Errorf("scru128 %v, scru128-etcd %v: status %d, stderr %q; want scru128-etcd run", tc.tool, tc.helper, status, stderr)
		case tc.refusal != "" && (status != ExitUsage || stdout != "" || strings.Contains(stderr, "etcd: ") ||
			!strings.HasPrefix(stderr, "scru128: gen -etcd runs in "+helper+", "+tc.refusal) || !strings.Contains(stderr, "): not run")):
			t.Errorf("scru128 %v, scru128-etcd %v: status %d, stderr %q; want %d and %q", tc.tool, tc.helper, status, stderr, ExitUsage, tc.refusal)
		}
	}
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(helper, 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Getuid() != 0 {
		t.Log("not root: the other owner's case needs chown")
		return
	}
	if err := os.Chown(helper, 65534, -1); err != nil {
		t.Fatal(err)
	}
	_, stderr, status := runBinaryAt(t, bin, args...)
	if want := "which another user owns (uid 65534; this scru128's owner has uid 0): not run"; status != ExitUsage || !strings.Contains(stderr, want) {
		t.Errorf("with a scru128-etcd of uid 65534: status %d, stderr %q; want %d and %q", status, stderr, ExitUsage, want)
	}
}

// TestGoRunSaysHowToRunTheHelper: go run ./cmd/scru128, the README's quick
// start, mints as ever; its gen -etcd finds no scru128-etcd beside the
// binary go run built, and says how to run that from the clone.
func TestGoRunSaysHowToRunTheHelper(t *testing.T) {
	builtBinary(t) // skips with -short
	cmd := exec.Command("go", "run", toolDir, "gen", "-n", "5")
	if out, err := cmd.Output(); err != nil || strings.Count(string(out), "\n") != 5 {
		t.Errorf("go run ./cmd/scru128 gen -n 5: %v, %q", err, out)
	}
	cmd = exec.Command("go", "run", toolDir, "gen", "-format", "scru64", "-etcd", "127.0.0.1:1")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.Run()
	if want := "go run ./cmd/scru128/scru128-etcd gen ... runs it\n"; out.Len() != 0 || !strings.Contains(errOut.String(), want) {
		t.Errorf("go run ./cmd/scru128 gen -etcd: stdout %q, stderr %q; want %q", out.String(), errOut.String(), want)
	}
}

// TestHandOverThroughASymlink: scru128 run through a symbolic link (as a
// package manager's bin directory holds it) finds scru128-etcd beside the
// file the link names, not beside the link.
func TestHandOverThroughASymlink(t *testing.T) {
	link := filepath.Join(t.TempDir(), "scru128")
	if err := os.Symlink(builtBinary(t), link); err != nil {
		t.Fatal(err)
	}
	_, stderr, status := runBinaryAt(t, link, "gen", "-format", "scru64", "-etcd", "http://127.0.0.1:1")
	if status != ExitFailure || !strings.Contains(stderr, "leasing a node ID from etcd: ") {
		t.Errorf("status %d, stderr %q; want scru128-etcd's failure to reach etcd", status, stderr)
	}
}

// TestHandOverSignal: the hand-over keeps the process (exec), so that a
// signal sent to scru128's pid during gen -etcd reaches scru128-etcd,
// which ends with 128 plus its number. Here etcd is a listener that never
// answers, so the run is leasing when the signal comes. (The etcdnode
// module's TestCLISignal* tests send signals to scru128 during gen -etcd
// runs against a real etcd, through the same hand-over.)
func TestHandOverSignal(t *testing.T) {
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		cmd := exec.Command(builtBinary(t), "gen", "-format", "scru64", "-etcd", "http://"+silent.Addr().String())
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Where /proc shows it (Linux), the process runs scru128-etcd
		// soon, with scru128's pid.
		exe := filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "exe")
		for start := time.Now(); ; time.Sleep(10 * time.Millisecond) {
			target, err := os.Readlink(exe)
			if err != nil || filepath.Base(target) == helperName {
				break
			}
			if time.Since(start) > 5*time.Second {
				t.Fatalf("pid %d still runs %s, not %s", cmd.Process.Pid, target, helperName)
			}
		}
		time.Sleep(300 * time.Millisecond) // leasing, with the signals watched
		sent := time.Now()
		cmd.Process.Signal(sig)
		waitFor(t, cmd, 5*time.Second)
		if status := cmd.ProcessState.ExitCode(); status != 128+int(sig) || time.Since(sent) > time.Second {
			t.Errorf("%v to scru128 during gen -etcd: status %d after %v, stderr %q; want %d within a second",
				sig, status, time.Since(sent).Round(time.Millisecond), errOut.String(), 128+int(sig))
		}
	}
}

// runBinaryAt runs the binary bin to the end and returns its output and
// status.
func runBinaryAt(t *testing.T, bin string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil && cmd.ProcessState == nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

// BenchmarkStartup runs gen -n 1 with each binary, whole: start-up, one
// ID, exit. scru128 links no etcd client, so that it starts as a build
// without one does; scru128-etcd, which links etcd's client, gRPC and
// crypto/tls, shows what that saves. Both are built once, outside the
// timed loop.
func BenchmarkStartup(b *testing.B) {
	if testing.Short() {
		b.Skip("builds the binaries")
	}
	if _, err := exec.LookPath("go"); err != nil {
		b.Skip("needs the go command")
	}
	tool := builtBinary(b)
	for _, bin := range []string{tool, filepath.Join(filepath.Dir(tool), helperName)} {
		b.Run(filepath.Base(bin), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := exec.Command(bin, "gen", "-n", "1").Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
