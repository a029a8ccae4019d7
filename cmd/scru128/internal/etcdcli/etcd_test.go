//go:build (unix && !aix) || windows

package etcdcli

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fastid/scru128/cmd/scru128/internal/cli"
	"github.com/fastid/scru128/internal/nodelease"
)

// The etcd flags against a real etcd server, with TLS and auth, are tested
// by the scru64/etcdnode module, which builds the tool; these pin what gen
// -etcd decides before it sends a request.

// TestMain lets package cli lease through this package, as scru128-etcd
// does.
func TestMain(m *testing.M) {
	Register()
	os.Exit(m.Run())
}

// genWithEnv runs gen -format scru64 with args and the environment vars,
// in-process.
func genWithEnv(t *testing.T, vars map[string]string, args ...string) (stderr string, status int) {
	t.Helper()
	var out, errOut bytes.Buffer
	status = cli.Run(append([]string{"gen", "-format", "scru64"}, args...), strings.NewReader(""), &out, &errOut,
		func(k string) string { return vars[k] })
	if out.Len() != 0 {
		t.Errorf("%q printed %q", args, out.String())
	}
	return errOut.String(), status
}

// unreachable is an endpoint where nothing listens: a run that gets as far
// as a request fails at once with status 1.
const unreachable = "127.0.0.1:1"

func TestEtcdFlagsOverEtcdctlVariables(t *testing.T) {
	dir := t.TempDir()
	fromFlag, fromEnv := filepath.Join(dir, "flag-ca.pem"), filepath.Join(dir, "env-ca.pem")
	env := map[string]string{"ETCDCTL_CACERT": fromEnv}
	for _, tc := range []struct {
		name   string
		vars   map[string]string
		args   []string
		status int
		want   string
	}{
		{"the flag wins", env, []string{"-etcd-cacert", fromFlag}, 2, `-etcd-cacert "` + fromFlag + `": cannot be read`},
		{"the variable without the flag", env, nil, 2, `ETCDCTL_CACERT "` + fromEnv + `": cannot be read`},
		{"an empty flag wins too", env, []string{"-etcd-cacert", ""}, 1, "leasing a node ID from etcd: "},
		{"the certificate's variable", map[string]string{"ETCDCTL_CERT": fromEnv}, nil, 2, "-etcd-key: a client certificate needs its key"},
		{"the key's variable", map[string]string{"ETCDCTL_KEY": fromEnv}, nil, 2, "-etcd-cert: a client key needs its certificate"},
	} {
		stderr, status := genWithEnv(t, tc.vars, append([]string{"-etcd", unreachable}, tc.args...)...)
		if status != tc.status || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: status %d, stderr %q; want %d and %q", tc.name, status, stderr, tc.status, tc.want)
		}
	}
}

func TestEtcdUserAndPassword(t *testing.T) {
	for _, tc := range []struct {
		name     string
		vars     map[string]string
		user     string // -etcd-user, if not ""
		wantUser string
		wantPass string
	}{
		{"in the flag", nil, "alice:pw:with:colons", "alice", "pw:with:colons"},
		{"from SCRU128_ETCD_PASSWORD", map[string]string{"SCRU128_ETCD_PASSWORD": "a", "ETCDCTL_PASSWORD": "b"}, "alice", "alice", "a"},
		{"from ETCDCTL_PASSWORD", map[string]string{"ETCDCTL_PASSWORD": "b"}, "alice", "alice", "b"},
		{"all from ETCDCTL_USER", map[string]string{"ETCDCTL_USER": "bob:c"}, "", "bob", "c"},
		{"the flag over ETCDCTL_USER", map[string]string{"ETCDCTL_USER": "bob:c"}, "alice:d", "alice", "d"},
	} {
		fs := flag.NewFlagSet("gen", flag.ContinueOnError)
		flags := cli.NewEtcdFlags(fs)
		args := []string{"-etcd", unreachable}
		if tc.user != "" {
			args = append(args, "-etcd-user", tc.user)
		}
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		s, err := setup(flags, func(k string) string { return tc.vars[k] })
		if err != nil || s.user != tc.wantUser || s.password != tc.wantPass {
			t.Errorf("%s: %+v, %v; want user %q, password %q", tc.name, s, err, tc.wantUser, tc.wantPass)
		}
	}
}

func TestEtcdPasswordIsNeverPrinted(t *testing.T) {
	const secret = "s3cret-pw"
	ca := filepath.Join(t.TempDir(), "ca.pem")
	for _, tc := range []struct {
		name string
		vars map[string]string
		args []string
		want string
	}{
		{"no user name", nil, []string{"-etcd-user", ":" + secret}, "-etcd-user: no user name before the colon"},
		{"no user name in the variable", map[string]string{"ETCDCTL_USER": ":" + secret}, nil, "ETCDCTL_USER: no user name before the colon"},
		{"a CA that cannot be read", nil, []string{"-etcd-user", "alice:" + secret, "-etcd-cacert", ca}, "-etcd-cacert"},
		{"a password without a user", map[string]string{"SCRU128_ETCD_PASSWORD": secret}, []string{"-etcd-size", "99"}, "-etcd-size 99"},
		{"an unreachable etcd", map[string]string{"SCRU128_ETCD_PASSWORD": secret}, []string{"-etcd-user", "alice"}, "leasing a node ID from etcd"},
	} {
		stderr, status := genWithEnv(t, tc.vars, append([]string{"-etcd", unreachable}, tc.args...)...)
		if status == 0 || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, secret) {
			t.Errorf("%s: status %d, stderr %q; want a failure with %q and no password", tc.name, status, stderr, tc.want)
		}
	}
}

func TestEtcdUserWithoutPasswordIsAUsageError(t *testing.T) {
	start := time.Now()
	stderr, status := genWithEnv(t, nil, "-etcd", unreachable, "-etcd-user", "alice")
	want := `scru128 gen: -etcd-user "alice" has no password: set SCRU128_ETCD_PASSWORD (or give -etcd-user alice:PASSWORD, which ps shows to every user; gen never prompts)`
	if status != 2 || !strings.HasPrefix(stderr, want+"\n") || time.Since(start) > time.Second {
		t.Fatalf("status %d, stderr %q; want 2 and %q at once", status, stderr, want)
	}
}

func TestEtcdTLSOverPlainHTTPIsAUsageError(t *testing.T) {
	stderr, status := genWithEnv(t, map[string]string{"ETCDCTL_CACERT": "ca.pem"}, "-etcd", "http://127.0.0.1:2379")
	if status != 2 || !strings.Contains(stderr, `-etcd "http://127.0.0.1:2379": plain HTTP, but a CA or a client certificate is given (use https://)`) {
		t.Fatalf("status %d, stderr %q", status, stderr)
	}
}

// TestEtcdFlagOfNamesEveryField: every setting a message can name maps to
// a flag gen defines.
func TestEtcdFlagOfNamesEveryField(t *testing.T) {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	cli.NewEtcdFlags(fs)
	s := &etcdSetup{from: map[cli.ConnField]string{}}
	fields := []any{nodelease.FieldStore, nodelease.FieldPrefix, nodelease.FieldNodeIDSize, nodelease.FieldTTL, nodelease.FieldRange}
	for f := cli.FieldEndpoints; f <= cli.FieldUser; f++ {
		fields = append(fields, f)
	}
	for _, field := range fields {
		name := s.flagOf(field)
		if fs.Lookup(strings.TrimPrefix(name, "-")) == nil {
			t.Errorf("%v: %q is not a flag of gen", field, name)
		}
	}
	for field, want := range map[any]string{nodelease.FieldPrefix: "-etcd-prefix", nodelease.FieldTTL: "-etcd-ttl", cli.FieldCert: "-etcd-cert"} {
		if got := s.flagOf(field); got != want {
			t.Errorf("%v: %q, want %q", field, got, want)
		}
	}
}

// TestEtcdCredentialsInAnEndpointAreAUsageError: a user name and password
// in an -etcd URL were dropped without a word; they are a usage error now,
// and the message shows neither.
func TestEtcdCredentialsInAnEndpointAreAUsageError(t *testing.T) {
	const user, secret = "bobby-the-user", "pw-in-the-url"
	for _, endpoint := range []string{
		"http://" + user + ":" + secret + "@127.0.0.1:1",
		"https://" + user + ":" + secret + "@127.0.0.1:1",
		user + ":" + secret + "@127.0.0.1:1",
		"127.0.0.1:2,http://" + user + ":" + secret + "@127.0.0.1:1",
		"http://" + user + ":" + secret + "@127.0.0.1:1/v3?x=1#y",
		"http://" + user + ":" + secret + "@[::1", // not a URL at all
		"http://" + user + "@127.0.0.1:1",
		"http://:" + secret + "@127.0.0.1:1",
	} {
		stderr, status := genWithEnv(t, nil, "-etcd", endpoint)
		if status != 2 || !strings.Contains(stderr, "-etcd") || strings.Contains(stderr, user) || strings.Contains(stderr, secret) {
			t.Errorf("-etcd %s: status %d, stderr %q; want a usage error naming -etcd, without the credentials", endpoint, status, stderr)
		}
	}
}

// TestEtcdSettingsCheckedBeforeAnyRequest: what the flags say wrong is a
// usage error, found before gen connects.
func TestEtcdSettingsCheckedBeforeAnyRequest(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-etcd", "http://127.0.0.1:1,https://127.0.0.1:2"}, "-etcd: http:// and https:// endpoints mixed"},
		{[]string{"-etcd", "127.0.0.1:1,"}, "-etcd: an empty endpoint"},
		{[]string{"-etcd", "ftp://127.0.0.1:1"}, `-etcd "ftp://127.0.0.1:1": not an http:// or https:// URL with a host`},
		{[]string{"-etcd", unreachable, "-etcd-prefix", strings.Repeat("p", 1025)}, "-etcd-prefix: 1025 bytes, more than 1024"},
		{[]string{"-etcd", unreachable, "-etcd-prefix", ""}, "-etcd-prefix: the prefix is empty"},
		{[]string{"-etcd", unreachable, "-etcd-ttl", "1500ms"}, "-etcd-ttl: 1.5s is not a whole number of seconds"},
		{[]string{"-etcd", unreachable, "-etcd-ttl", "0s"}, "-etcd-ttl: 0s is below 1s"},
		{[]string{"-etcd", unreachable, "-etcd-ttl", "-5s"}, "-etcd-ttl: -5s is below 1s"},
		{[]string{"-etcd", unreachable, "-etcd-ttl", "9000000001s"}, "-etcd-ttl: 2500000h0m1s is above etcd's largest lease TTL, 9e9 seconds"},
		{[]string{"-etcd", unreachable, "-etcd-ttl", "3000000h"}, `invalid value "3000000h" for flag -etcd-ttl`},
		{[]string{"-etcd", unreachable, "-etcd-user", "alice:"}, `-etcd-user "alice": an empty password after the colon`},
	} {
		start := time.Now()
		stderr, status := genWithEnv(t, nil, tc.args...)
		if status != 2 || !strings.Contains(stderr, tc.want) || time.Since(start) > time.Second {
			t.Errorf("%q: status %d, stderr %q; want 2 and %q at once", tc.args, status, stderr, tc.want)
		}
	}
}
