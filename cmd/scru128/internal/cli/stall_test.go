//go:build unix && !aix

package cli

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestBinarySignalWithAStalledReader: gen -stream into a pipe whose reader
// stops reading, so that gen is blocked writing when SIGTERM comes. It must
// exit within a second all the same, with status 143 and whole lines only
// (it writes to a pipe in runs the system writes at once or not at all).
func TestBinarySignalWithAStalledReader(t *testing.T) {
	for _, format := range []string{"scru128", "ulid"} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(builtBinary(t), "gen", "-stream", "-format", format)
		cmd.Stdout = w
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		w.Close()
		time.Sleep(300 * time.Millisecond) // the pipe fills at once, and stays full
		sent := time.Now()
		cmd.Process.Signal(syscall.SIGTERM)
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		var waitErr error
		select {
		case waitErr = <-exited:
		case <-time.After(5 * time.Second):
		}
		took := time.Since(sent)
		out, _ := io.ReadAll(r) // lets a gen that waited for its reader go on
		r.Close()
		if waitErr == nil {
			waitErr = <-exited
		}
		var exit *exec.ExitError
		if !errors.As(waitErr, &exit) || exit.ExitCode() != 143 || took > time.Second {
			t.Errorf("%s: %v after %v; want exit status 143 within 1s", format, waitErr, took)
		}
		if len(out) == 0 || !strings.HasSuffix(string(out), "\n") {
			t.Errorf("%s: %d bytes, ending %q: want whole lines", format, len(out), out[max(0, len(out)-20):])
		}
	}
}
