//go:build (unix && !aix) || windows

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

// toolDir and helperDir are the packages of scru128 and scru128-etcd.
const (
	toolDir   = "../.."
	helperDir = "../../scru128-etcd"
)

// TestLightToolLinksNoEtcd: scru128 links neither etcd's client nor gRPC,
// protobuf or crypto/tls, which made every run start in twice the time;
// it hands gen -etcd over instead. scru128-etcd links etcd's client.
func TestLightToolLinksNoEtcd(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command")
	}
	deps := func(pkg string) []string {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		return strings.Fields(string(out))
	}
	const self = "github.com/fastid/scru128/cmd/scru128/internal/cli"
	tool := deps(toolDir)
	for _, dep := range tool {
		for _, banned := range []string{"go.etcd.io/", "google.golang.org/grpc", "google.golang.org/protobuf", "crypto/tls", "github.com/fastid/scru128/scru64/etcdnode"} {
			if strings.HasPrefix(dep, banned) {
				t.Errorf("scru128 links %s", dep)
			}
		}
	}
	if !slices.Contains(tool, self) {
		t.Errorf("scru128 does not link %s, which hands gen -etcd over", self)
	}
	if helper := deps(helperDir); !slices.Contains(helper, "go.etcd.io/etcd/client/v3") || !slices.Contains(helper, self) {
		t.Errorf("scru128-etcd links %d packages, without etcd's client or %s", len(helper), self)
	}
}

// TestGenEtcdHandsOverBeforeAnything: a gen -etcd run that scru128 can
// run as asked is handed over at once, having written nothing; one that it
// cannot (a usage error) is not, and says why as before. Only -etcd with a
// value selects etcd: the etcdctl variables gen reads are fallbacks for the
// other etcd flags, and none gives the endpoints.
func TestGenEtcdHandsOverBeforeAnything(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		handed bool
	}{
		{[]string{"gen", "-format", "scru64", "-etcd", "127.0.0.1:1"}, true},
		{[]string{"gen", "-format", "scru64", "-n", "5", "-etcd", "127.0.0.1:1", "-etcd-user", "alice:"}, true}, // checked by scru128-etcd
		{[]string{"gen", "-format", "SCRU64", "-stream", "-etcd", "127.0.0.1:1", "-etcd-prefix", "/p/"}, true},
		{[]string{"gen", "-format", "scru64", "-etcd", ""}, false},
		{[]string{"gen", "-format", "scru64", "-node", "1/8", "-n", "0"}, false}, // $ETCDCTL_* alone select no etcd
		{[]string{"gen", "-format", "scru64", "-node", "1/8", "-etcd-size", "4"}, false},
		{[]string{"gen", "-etcd", "127.0.0.1:1"}, false},
		{[]string{"gen", "-format", "scru64", "-etcd", "127.0.0.1:1", "-state", "node.spec"}, false},
		{[]string{"gen", "-format", "scru64", "-etcd", "127.0.0.1:1", "-etcd-size", "24"}, false},
		{[]string{"gen", "-format", "scru64", "-etcd", "127.0.0.1:1", "extra"}, false},
	} {
		e, out, errOut := testEnv("", map[string]string{"ETCDCTL_CACERT": "ca.pem", "ETCDCTL_USER": "alice:pw", "ETCDCTL_ENDPOINTS": "127.0.0.1:1"})
		handed := false
		e.handOver = func() int { handed = true; return 42 }
		status := run(tc.args, e)
		switch {
		case handed != tc.handed:
			t.Errorf("%q: handed over %v, want %v; stderr %q", tc.args, handed, tc.handed, errOut)
		case handed && (status != 42 || out.Len() != 0 || errOut.Len() != 0):
			t.Errorf("%q: handed over with status %d, stdout %q, stderr %q; want the helper's status, nothing written", tc.args, status, out, errOut)
		}
	}
	// Nothing to hand over to (Run, a test): a usage error, said.
	e, _, errOut := testEnv("", nil)
	if status := run([]string{"gen", "-format", "scru64", "-etcd", "127.0.0.1:1"}, e); status != ExitUsage || !strings.Contains(errOut.String(), helperName) {
		t.Errorf("gen -etcd without a hand-over: status %d, stderr %q", status, errOut)
	}
}

// TestMissingHelperSaysHowToInstallBoth: the message for a scru128 alone
// names where it looked for scru128-etcd and the go install that puts both
// there, at the tool's own version; a build go did not stamp with one (go
// run) says @latest; a build from a clone (no version, or a revision) says
// how to run scru128-etcd there. A release says neither.
func TestMissingHelperSaysHowToInstallBoth(t *testing.T) {
	const path = "/opt/bin/scru128-etcd"
	for _, tc := range []struct{ version, revision, want string }{
		{"v1.2.3", "", "gen -etcd runs in scru128-etcd, which is not beside this scru128 (looked for /opt/bin/scru128-etcd): go install github.com/fastid/scru128/cmd/scru128/...@v1.2.3 installs both"},
		{"v0.0.0-20260101000000-0123456789ab", "0123456789abcdef", "go install github.com/fastid/scru128/cmd/scru128/...@v0.0.0-20260101000000-0123456789ab installs both; in a clone of the repository, go run ./cmd/scru128/scru128-etcd gen ... runs it"},
		{"(devel)", "", "go install github.com/fastid/scru128/cmd/scru128/...@latest installs both; in a clone of the repository, go run ./cmd/scru128/scru128-etcd gen ... runs it"},
		{"(unknown)", "", "...@latest installs both; in a clone of the repository, go run ./cmd/scru128/scru128-etcd gen ... runs it"},
	} {
		got := missingHelper(path, tc.version, tc.revision)
		if !strings.HasSuffix(got, tc.want) || strings.Contains(got, "\n") {
			t.Errorf("%s: %q, want one line ending %q", tc.version, got, tc.want)
		}
	}
}

// TestHandOverVersionMismatch: scru128-etcd refuses a run handed over by
// a scru128 of another release, or where either was not built from a
// release, of another revision; with less known it goes on. (The binaries
// of one go install, and of a clone, are held to this by
// TestVersionBuiltBothWays.)
func TestHandOverVersionMismatch(t *testing.T) {
	for _, tc := range []struct {
		toolVersion, toolRevision, version, revision string
		refused                                      bool
	}{
		{"v1.2.3", "", "v1.2.3", "", false},
		{"v1.2.3", "", "v1.2.4", "", true},
		{"v1.2.3", "aaa", "v1.2.4", "aaa", true}, // two releases of one commit are still two
		{"v1.2.3", "aaa", "v1.2.3", "bbb", false},
		{"(devel)", "aaa", "(devel)", "aaa", false},
		{"(devel)", "aaa", "(devel)", "bbb", true},
		{"(devel)", "aaa", "v1.2.3", "bbb", true},
		{"(devel)", "", "(devel)", "bbb", false},
		{"(unknown)", "", "v1.2.3", "", false},
		{"v1.2.3", "", "(devel)", "", false},
	} {
		msg := handOffMismatch(tc.toolVersion, tc.toolRevision, tc.version, tc.revision)
		if (msg != "") != tc.refused || strings.Contains(msg, "\n") {
			t.Errorf("scru128 %s %s to scru128-etcd %s %s: %q, want refused %v", tc.toolVersion, tc.toolRevision, tc.version, tc.revision, msg, tc.refused)
		}
		if tc.refused && isKnownVersion(tc.toolVersion) && !strings.Contains(msg, "go install github.com/fastid/scru128/cmd/scru128/...@"+tc.toolVersion) {
			t.Errorf("%q does not say how to install both at %s", msg, tc.toolVersion)
		}
	}
	// What this test binary would pass on, as handOver does.
	info, _ := debug.ReadBuildInfo()
	if version, _ := buildVersion(info); version == "" {
		t.Error("buildVersion gave an empty version")
	}
	if version, revision := buildVersion(nil); version != "(unknown)" || revision != "" {
		t.Errorf("buildVersion(nil) = %q, %q", version, revision)
	}
}

// TestHelperPathIsBesideTheExecutable: scru128-etcd is looked for in the
// directory of this executable, never on $PATH.
func TestHelperPathIsBesideTheExecutable(t *testing.T) {
	path, err := helperPath()
	if err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	self, _ = filepath.EvalSymlinks(self)
	if filepath.Dir(path) != filepath.Dir(self) || !strings.HasPrefix(filepath.Base(path), helperName) {
		t.Errorf("helperPath() = %q, want %s beside %q", path, helperName, self)
	}
}
