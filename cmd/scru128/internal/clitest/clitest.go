//go:build unix && !aix

// Package clitest holds what the tests of packages cli and etcdcli share:
// files that a reader blocks on or never reaches the end of, and a bound on
// how long a run that reads them may take.
package clitest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BlockingFiles makes, in dir, a named pipe with no writer, which blocks a
// reader that opens it, and a sparse 2 GiB file of zeros, and returns their
// paths. (/dev/zero, which never ends, needs no making.)
func BlockingFiles(t testing.TB, dir string) (fifo, huge string) {
	t.Helper()
	fifo = filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	huge = filepath.Join(dir, "huge.pem")
	if err := os.WriteFile(huge, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, 1<<31); err != nil {
		t.Fatal(err)
	}
	return fifo, huge
}

// Within returns what run returns (a run's stderr and exit status), failing
// the test if run has not returned within limit: a run blocked on a file
// never would. what names the run in that failure.
func Within(t testing.TB, limit time.Duration, what string, run func() (stderr string, status int)) (string, int) {
	t.Helper()
	type result struct {
		stderr string
		status int
	}
	done := make(chan result, 1)
	go func() {
		stderr, status := run()
		done <- result{stderr, status}
	}()
	select {
	case r := <-done:
		return r.stderr, r.status
	case <-time.After(limit):
		t.Fatalf("%s has not ended after %v: blocked on a file", what, limit)
		return "", 0
	}
}
