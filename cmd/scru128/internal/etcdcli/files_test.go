//go:build unix && !aix

package etcdcli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fastid/scru128/cmd/scru128/internal/cli"
	"github.com/fastid/scru128/cmd/scru128/internal/clitest"
)

// TestFilesThatBlockOrNeverEnd: every file gen reads (the CA, the client
// certificate and key here; the state file and its lock file in package
// cli) may be a named pipe with no writer, a device that never ends, a
// directory or a file far too large. Each is refused at once, with status
// 2 for a flag's file, and an error that names the flag and what is wrong.
// Before, a named pipe blocked gen before any request (deaf to SIGINT),
// and /dev/zero was read until memory ran out.
func TestFilesThatBlockOrNeverEnd(t *testing.T) {
	dir := t.TempDir()
	fifo, huge := clitest.BlockingFiles(t, dir)
	plain := filepath.Join(dir, "plain.pem")
	if err := os.WriteFile(plain, []byte("not PEM\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := map[string]struct{ path, want string }{
		"a named pipe":   {fifo, "is a named pipe, not a regular file"},
		"/dev/zero":      {"/dev/zero", "is a character device, not a regular file"},
		"a directory":    {dir, "is a directory, not a regular file"},
		"a 2 GiB file":   {huge, "is over 1 MiB"},
		"a missing file": {filepath.Join(dir, "missing"), "cannot be read: no such file or directory"},
	}
	for name, f := range bad {
		for _, tc := range []struct {
			flag string
			args []string
		}{
			{"-etcd-cacert", []string{"-etcd-cacert", f.path}},
			{"-etcd-cert", []string{"-etcd-cert", f.path, "-etcd-key", plain}},
			{"-etcd-key", []string{"-etcd-cert", plain, "-etcd-key", f.path}},
		} {
			stderr, status := genWithin(t, time.Second, append([]string{"-etcd", unreachable}, tc.args...)...)
			want := tc.flag + " " + `"` + f.path + `": ` + f.want
			if status != cli.ExitUsage || !strings.Contains(stderr, want) {
				t.Errorf("%s as %s: status %d, stderr %q; want %d and %q", name, tc.flag, status, stderr, cli.ExitUsage, want)
			}
		}
	}
}

// TestKeyFileFaultsNameTheKeyFlag: what is wrong with the key file is put
// on -etcd-key, not on -etcd-cert, as it was.
func TestKeyFileFaultsNameTheKeyFlag(t *testing.T) {
	dir := t.TempDir()
	cert := filepath.Join(dir, "cert.pem")
	if err := os.WriteFile(cert, []byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct{ key, want string }{
		"a directory":   {dir, `-etcd-key "` + dir + `": is a directory`},
		"no PEM key":    {cert, `-etcd-key "` + cert + `": holds no PEM private key`},
		"a missing key": {filepath.Join(dir, "nope"), `-etcd-key "` + filepath.Join(dir, "nope") + `": cannot be read`},
	} {
		stderr, status := genWithin(t, time.Second, "-etcd", unreachable, "-etcd-cert", cert, "-etcd-key", tc.key)
		if status != cli.ExitUsage || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "-etcd-cert \"") {
			t.Errorf("%s: status %d, stderr %q; want %d and %q", name, status, stderr, cli.ExitUsage, tc.want)
		}
	}
}

// genWithin runs gen -format scru64 as genWithEnv does, failing the test
// if it has not ended within limit: a run blocked on a file never would.
func genWithin(t *testing.T, limit time.Duration, args ...string) (stderr string, status int) {
	t.Helper()
	return clitest.Within(t, limit, fmt.Sprintf("gen %q", args), func() (string, int) {
		return genWithEnv(t, nil, args...)
	})
}
