//go:build unix && !aix

package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fastid/scru128/cmd/scru128/internal/clitest"
)

// TestFilesThatBlockOrNeverEnd: every file gen reads (the state file and
// its lock file here; the etcd flags' files in package etcdcli) may be a
// named pipe with no writer, a device that never ends, a directory or a
// file far too large. Each is refused at once, with status 1 for a state
// file, and an error that names the flag and what is wrong.
// Before, a named pipe blocked gen before any request (deaf to SIGINT),
// and /dev/zero was read until memory ran out.
func TestFilesThatBlockOrNeverEnd(t *testing.T) {
	dir := t.TempDir()
	fifo, huge := clitest.BlockingFiles(t, dir)
	bad := map[string]struct{ path string }{
		"a named pipe": {fifo},
		"/dev/zero":    {"/dev/zero"},
		"a 2 GiB file": {huge},
	}
	// A state file: refused as no regular file, or no node spec.
	for name, want := range map[string]string{
		"a named pipe": "is not a regular file (a named pipe)",
		"/dev/zero":    "is not a regular file (a character device)",
		"a 2 GiB file": "is not a node spec: it is over 1024 bytes",
	} {
		stderr, status := genWithin(t, time.Second, "-node", "1/8", "-state", bad[name].path)
		if status != ExitFailure || !strings.Contains(stderr, want) {
			t.Errorf("%s as -state: status %d, stderr %q; want %d and %q", name, status, stderr, ExitFailure, want)
		}
	}
	// A named pipe where the lock file goes.
	state := filepath.Join(dir, "node")
	if err := unix.Mkfifo(state+".lock", 0o600); err != nil {
		t.Fatal(err)
	}
	stderr, status := genWithin(t, time.Second, "-node", "1/8", "-state", state)
	if want := "it is a named pipe, not a regular file"; status != ExitFailure || !strings.Contains(stderr, want) {
		t.Errorf("a named pipe as the lock file: status %d, stderr %q; want %d and %q", status, stderr, ExitFailure, want)
	}
}

// genWithin runs gen -format scru64 with args, failing the test
// if it has not ended within limit: a run blocked on a file never would.
func genWithin(t *testing.T, limit time.Duration, args ...string) (stderr string, status int) {
	t.Helper()
	return clitest.Within(t, limit, fmt.Sprintf("gen %q", args), func() (string, int) {
		e, _, errOut := testEnv("", nil)
		status := run(append([]string{"gen", "-format", "scru64"}, args...), e)
		return errOut.String(), status
	})
}
