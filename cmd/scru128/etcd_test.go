//go:build unix || windows

package main

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fastid/scru128/internal/etcdhttp"
	"github.com/fastid/scru128/internal/nodelease"
)

// The etcd flags against a real etcd server, with TLS and auth, are tested
// by the scru64/etcdnode module, which builds this command; these pin what
// gen decides before it sends a request.

// genWithEnv runs gen -format scru64 with args and the environment vars.
func genWithEnv(t *testing.T, vars map[string]string, args ...string) (stderr string, status int) {
	t.Helper()
	e, out, errOut := testEnv("", vars)
	status = run(append([]string{"gen", "-format", "scru64"}, args...), e)
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
		name       string
		vars       map[string]string
		user       string // -etcd-user, if not ""
		wantUser   string
		wantPass   string
		passSource string
	}{
		{"in the flag", nil, "alice:pw:with:colons", "alice", "pw:with:colons", "-etcd-user"},
		{"from SCRU128_ETCD_PASSWORD", map[string]string{"SCRU128_ETCD_PASSWORD": "a", "ETCDCTL_PASSWORD": "b"}, "alice", "alice", "a", "SCRU128_ETCD_PASSWORD"},
		{"from ETCDCTL_PASSWORD", map[string]string{"ETCDCTL_PASSWORD": "b"}, "alice", "alice", "b", "ETCDCTL_PASSWORD"},
		{"all from ETCDCTL_USER", map[string]string{"ETCDCTL_USER": "bob:c"}, "", "bob", "c", "ETCDCTL_USER"},
		{"the flag over ETCDCTL_USER", map[string]string{"ETCDCTL_USER": "bob:c"}, "alice:d", "alice", "d", "-etcd-user"},
	} {
		fs := newFlagSet("gen")
		flags := newEtcdFlags(fs)
		args := []string{"-etcd", unreachable}
		if tc.user != "" {
			args = append(args, "-etcd-user", tc.user)
		}
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		s, err := flags.setup(func(k string) string { return tc.vars[k] })
		if err != nil || s.conn.User != tc.wantUser || s.conn.Password != tc.wantPass ||
			s.etcdFlagOf(etcdhttp.FieldPassword) != tc.passSource {
			t.Errorf("%s: %+v, %v; want user %q, password %q from %s", tc.name, s, err, tc.wantUser, tc.wantPass, tc.passSource)
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
	want := `scru128 gen: -etcd-user "alice" has no password: give -etcd-user alice:PASSWORD, or set SCRU128_ETCD_PASSWORD (gen never prompts)`
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

func TestEtcdFlagsNeedEtcd(t *testing.T) {
	for _, name := range etcdFlagNames()[1:] {
		stderr, status := genWithEnv(t, nil, "-"+name, "1")
		if status != 2 || !strings.Contains(stderr, "-"+name+" needs -etcd") {
			t.Errorf("-%s without -etcd: status %d, stderr %q", name, status, stderr)
		}
		e, _, errOut := testEnv("", nil)
		if status := run([]string{"gen", "-" + name, "1"}, e); status != 2 || !strings.Contains(errOut.String(), "applies to -format scru64 only") {
			t.Errorf("-%s with scru128: status %d, stderr %q", name, status, errOut.String())
		}
	}
}

// TestEtcdFlagOfNamesEveryField: every field of the two configs that an
// error can name maps to a flag gen defines.
func TestEtcdFlagOfNamesEveryField(t *testing.T) {
	fs := newFlagSet("gen")
	newEtcdFlags(fs)
	s := &etcdSetup{from: map[etcdhttp.Field]string{}}
	fields := []any{nodelease.FieldStore, nodelease.FieldPrefix, nodelease.FieldNodeIDSize, nodelease.FieldTTL, nodelease.FieldRange}
	for f := etcdhttp.FieldEndpoints; f <= etcdhttp.FieldPassword; f++ {
		fields = append(fields, f)
	}
	for _, field := range fields {
		name := s.etcdFlagOf(field)
		if fs.Lookup(strings.TrimPrefix(name, "-")) == nil {
			t.Errorf("%v: %q is not a flag of gen", field, name)
		}
	}
	if got := s.etcdFlagOf(nodelease.FieldPrefix); got != "-etcd-prefix" {
		t.Errorf("FieldPrefix: %q", got)
	}
	// A name is put into every error of a joined tree, not the first only.
	a := &etcdhttp.TLSError{Field: etcdhttp.FieldCACert, Err: errors.New("x")}
	b := &etcdhttp.TLSError{Field: etcdhttp.FieldCert, Err: errors.New("y")}
	s.nameFields(&nodelease.StoreError{Op: "op", Err: errors.Join(a, b)})
	if a.Name != "-etcd-cacert" || b.Name != "-etcd-cert" {
		t.Errorf("names %q and %q", a.Name, b.Name)
	}
}
