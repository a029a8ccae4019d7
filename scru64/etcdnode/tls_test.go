package etcdnode_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"github.com/fastid/scru128/scru64"
)

// failFast bounds how long the command-line tool may take to report what
// etcd (or a TLS handshake) refuses: at its first request, not after its
// 30-s timeout.
const failFast = 5 * time.Second

// pki is a CA made for a test and certificates it signed, as PEM files.
type pki struct {
	dir    string
	ca     string // the CA's certificate
	pool   *x509.CertPool
	caCert *x509.Certificate
	caKey  *ecdsa.PrivateKey
}

// newPKI makes a CA named name in a temporary directory.
func newPKI(t *testing.T, name string) *pki {
	t.Helper()
	p := &pki{dir: t.TempDir(), pool: x509.NewCertPool()}
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	if p.caCert, err = x509.ParseCertificate(der); err != nil {
		t.Fatal(err)
	}
	p.caKey = key
	p.pool.AddCert(p.caCert)
	p.ca = p.write(t, "ca.pem", "CERTIFICATE", der)
	return p
}

func newKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// write writes one PEM block to a file of the pki's directory and returns
// its path.
func (p *pki) write(t *testing.T, name, kind string, der []byte) string {
	t.Helper()
	path := filepath.Join(p.dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// issue signs a certificate for name, for the uses given (a server's is
// valid for 127.0.0.1), and returns the paths of it and its key.
func (p *pki) issue(t *testing.T, name string, uses ...x509.ExtKeyUsage) (cert, key string) {
	t.Helper()
	k := newKey(t)
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: uses,
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.caCert, &k.PublicKey, p.caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return p.write(t, name+".pem", "CERTIFICATE", der), p.write(t, name+"-key.pem", "EC PRIVATE KEY", keyDER)
}

// startTLSServer starts etcd serving clients over TLS only, with
// certificates of p, and asking them for a certificate p signed (etcd's
// --client-cert-auth). Its endpoint is host:port, without a scheme, as
// etcdctl users write it. configure, if given, is applied to the config
// too.
func startTLSServer(t *testing.T, p *pki, configure ...func(*embed.Config)) *server {
	t.Helper()
	// etcd's own JSON gateway (on by default) calls the server's gRPC side
	// as a client with the server's certificate, so that certificate serves
	// both ends.
	cert, key := p.issue(t, "etcd-server", x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth)
	srv := startServerWith(t, "https", func(cfg *embed.Config) {
		cfg.ClientTLSInfo = transport.TLSInfo{CertFile: cert, KeyFile: key, TrustedCAFile: p.ca, ClientCertAuth: true}
		for _, c := range configure {
			c(cfg)
		}
	})
	srv.endpoint = strings.TrimPrefix(srv.endpoint, "https://")
	return srv
}

// newTLSClient returns a clientv3 client of srv with the client
// certificate cert and key, and user (and password) if not empty.
func newTLSClient(t *testing.T, srv *server, p *pki, cert, key, user, password string) *clientv3.Client {
	t.Helper()
	pair, err := tls.LoadX509KeyPair(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := clientv3.New(clientv3.Config{
		Endpoints:   []string{srv.endpoint},
		DialTimeout: 5 * time.Second,
		Logger:      zap.NewNop(),
		TLS:         &tls.Config{RootCAs: p.pool, Certificates: []tls.Certificate{pair}},
		Username:    user, Password: password,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// cliRun is what one run of the command-line tool did.
type cliRun struct {
	stdout, stderr string
	status         int
	took           time.Duration
}

// ids returns the IDs the run printed.
func (r cliRun) ids(t *testing.T) []scru64.ID {
	t.Helper()
	var ids []scru64.ID
	for _, line := range strings.Fields(r.stdout) {
		id, err := scru64.Parse(line)
		if err != nil {
			t.Fatalf("printed %q: %v", line, err)
		}
		ids = append(ids, id)
	}
	return ids
}

// cliEnv returns the environment of a run of the command-line tool: the
// variables vars (NAME=value) on top of the test's, less any ETCDCTL_,
// SCRU128_ or SCRU64_ variable the test's environment has.
func cliEnv(vars []string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ETCDCTL_") && !strings.HasPrefix(kv, "SCRU128_") && !strings.HasPrefix(kv, "SCRU64_") {
			env = append(env, kv)
		}
	}
	return append(env, vars...)
}

// runCLI runs the command-line tool with args and the environment
// variables vars (see cliEnv).
func runCLI(t *testing.T, bin string, vars []string, args ...string) cliRun {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = cliEnv(vars)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := cliRun{stdout: stdout.String(), stderr: stderr.String(), took: time.Since(start)}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.status = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return r
}

// checkFailure checks that r failed with status, within failFast, with a
// message that contains each of want.
func checkFailure(t *testing.T, what string, r cliRun, status int, want ...string) {
	t.Helper()
	t.Logf("%s: status %d after %v: %s", what, r.status, r.took.Round(time.Millisecond), strings.TrimSpace(r.stderr))
	if r.status != status || r.stdout != "" || r.took > failFast {
		t.Errorf("%s: status %d after %v, stdout %q; want %d within %v", what, r.status, r.took, r.stdout, status, failFast)
	}
	for _, w := range want {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("%s: stderr %q does not say %q", what, r.stderr, w)
		}
	}
}

// checkNothingLeft checks, with a client that may read everything, that
// no key exists under prefix and no lease is left.
func checkNothingLeft(t *testing.T, c *clientv3.Client, prefix string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	keys, err := c.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range keys.Kvs {
		t.Errorf("key %q is left under %q", kv.Key, prefix)
	}
	leases, err := c.Leases(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range leases.Leases {
		t.Errorf("lease %x is left", l.ID)
	}
}

// TestCLIOverTLS runs gen -etcd against etcd serving clients over TLS with
// client certificate auth: with the right CA and certificate it mints, from
// the flags or from etcdctl's variables; a wrong CA, no client certificate
// and a certificate of another CA each fail at the first request, with
// status 1 and a message that names the flag and the TLS reason, leaving
// nothing in etcd.
func TestCLIOverTLS(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command-line tool")
	}
	bin := buildCLI(t)
	p, other := newPKI(t, "test CA"), newPKI(t, "another CA")
	srv := startTLSServer(t, p)
	cert, key := p.issue(t, "minter", x509.ExtKeyUsageClientAuth)
	foreignCert, foreignKey := other.issue(t, "stranger", x509.ExtKeyUsageClientAuth)
	root := newTLSClient(t, srv, p, cert, key, "", "")
	gen := []string{"gen", "-format", "scru64", "-etcd", srv.endpoint, "-etcd-prefix", "/tls/", "-etcd-size", "4"}

	// The flags, and the same from etcdctl's variables.
	byFlags := runCLI(t, bin, nil, append(gen, "-n", "1000", "-etcd-cacert", p.ca, "-etcd-cert", cert, "-etcd-key", key)...)
	byEnv := runCLI(t, bin, []string{"ETCDCTL_CACERT=" + p.ca, "ETCDCTL_CERT=" + cert, "ETCDCTL_KEY=" + key}, append(gen, "-n", "1000")...)
	for _, r := range []cliRun{byFlags, byEnv} {
		if r.status != 0 || r.stderr != "" || len(r.ids(t)) != 1000 {
			t.Fatalf("status %d, stderr %q, %d IDs; want 1000 IDs", r.status, r.stderr, len(r.ids(t)))
		}
	}
	if first, second := byFlags.ids(t), byEnv.ids(t); second[0] <= first[len(first)-1] {
		t.Fatalf("the second run starts at %s, not after the first's last ID %s", second[0], first[len(first)-1])
	}
	// The runs gave their node ID back: only the realm key and the record
	// stay, and no lease.
	if _, err := root.Delete(context.Background(), "/tls/", clientv3.WithPrefix()); err != nil {
		t.Fatal(err)
	}

	checkFailure(t, "a wrong CA",
		runCLI(t, bin, nil, append(gen, "-etcd-cacert", other.ca, "-etcd-cert", cert, "-etcd-key", key)...),
		1, "TLS handshake with https://"+srv.endpoint, "-etcd-cacert", "certificate signed by unknown authority")
	checkFailure(t, "no CA: the system's roots",
		runCLI(t, bin, []string{"ETCDCTL_CERT=" + cert, "ETCDCTL_KEY=" + key}, gen...),
		1, "-etcd-cacert", "certificate signed by unknown authority")
	// The server's alert races with the request (TLS 1.3 ends the client's
	// handshake first): the message must name the certificate whichever
	// comes first.
	for range 5 {
		checkFailure(t, "no client certificate",
			runCLI(t, bin, nil, append(gen, "-etcd-cacert", p.ca)...),
			1, "TLS handshake with https://"+srv.endpoint, "refused the client's certificate", "(-etcd-cert)", "tls: ")
	}
	checkFailure(t, "a client certificate of another CA",
		runCLI(t, bin, []string{"ETCDCTL_CACERT=" + p.ca}, append(gen, "-etcd-cert", foreignCert, "-etcd-key", foreignKey)...),
		1, "refused the client's certificate", "(-etcd-cert)")
	checkFailure(t, "plain HTTP to a TLS server",
		runCLI(t, bin, nil, append(gen[:3:3], "-etcd", "http://"+srv.endpoint)...),
		1, "leasing a node ID from etcd")
	checkFailure(t, "a key that is not the certificate's",
		runCLI(t, bin, nil, append(gen, "-etcd-cacert", p.ca, "-etcd-cert", cert, "-etcd-key", foreignKey)...),
		2, `-etcd-cert "`+cert+`" and -etcd-key "`+foreignKey+`": are no certificate and its private key`)
	// TLS to an etcd that serves plain HTTP: before, the message was only
	// "…: EOF".
	plain := startServer(t)
	checkFailure(t, "TLS to a plain HTTP server",
		runCLI(t, bin, nil, append(gen[:3:3], "-etcd", "https://"+strings.TrimPrefix(plain.endpoint, "http://"), "-etcd-cacert", p.ca)...),
		1, "TLS handshake with https://", "does not speak TLS (-etcd)", "if it serves plain HTTP, give it as http://")
	checkNothingLeft(t, root, "/tls/")
}

// TestCLITakesTheCertificateNameAsUser runs gen -etcd against etcd with
// client certificate auth and auth enabled, as etcdctl users run it: with
// no -etcd-user, etcd takes the client certificate's common name as the
// user. A certificate named after a user whose role covers the prefix
// mints; one named after nobody is refused with status 1 and a message
// that names the user as the certificate's; a -etcd-user given beside the
// certificate is the user instead.
func TestCLITakesTheCertificateNameAsUser(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command-line tool")
	}
	bin := buildCLI(t)
	p := newPKI(t, "test CA")
	srv := startTLSServer(t, p, func(cfg *embed.Config) { cfg.BcryptCost = 4 })
	rootCert, rootKey := p.issue(t, "root", x509.ExtKeyUsageClientAuth)
	minterCert, minterKey := p.issue(t, "minter", x509.ExtKeyUsageClientAuth)
	strangerCert, strangerKey := p.issue(t, "stranger", x509.ExtKeyUsageClientAuth)
	root := newTLSClient(t, srv, p, rootCert, rootKey, "", "")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(root.UserAdd(ctx, "root", rootPassword))
	must(root.UserGrantRole(ctx, "root", "root"))
	for _, user := range []string{"minter", "outsider"} {
		must(root.RoleAdd(ctx, user))
		must(root.UserAdd(ctx, user, userPassword))
		must(root.UserGrantRole(ctx, user, user))
	}
	must(root.RoleGrantPermission(ctx, "minter", "/cn/", clientv3.GetPrefixRangeEnd("/cn/"), clientv3.PermissionType(clientv3.PermReadWrite)))
	must(root.AuthEnable(ctx))

	gen := func(cert, key string, args ...string) []string {
		return append([]string{"gen", "-format", "scru64", "-etcd", srv.endpoint, "-etcd-prefix", "/cn/", "-etcd-size", "4",
			"-etcd-cacert", p.ca, "-etcd-cert", cert, "-etcd-key", key}, args...)
	}
	var last scru64.ID
	for range 2 {
		r := runCLI(t, bin, nil, gen(minterCert, minterKey, "-n", "1000")...)
		ids := r.ids(t)
		if r.status != 0 || r.stderr != "" || len(ids) != 1000 {
			t.Fatalf("the certificate of minter: status %d, stderr %q, %d IDs; want 1000 IDs", r.status, r.stderr, len(ids))
		}
		if ids[0] <= last {
			t.Fatalf("a run starts at %s, not after the last ID of the one before, %s", ids[0], last)
		}
		last = ids[len(ids)-1]
	}
	r := runCLI(t, bin, nil, gen(strangerCert, strangerKey)...)
	checkFailure(t, "the certificate of a stranger", r, 1, "permission denied", `user "stranger"`, "certificate", `"/cn/"`)
	checkStderr(t, "the certificate of a stranger", r.stderr)
	r = runCLI(t, bin, []string{"SCRU128_ETCD_PASSWORD=" + userPassword}, gen(minterCert, minterKey, "-etcd-user", "outsider")...)
	checkFailure(t, "-etcd-user beside the certificate", r, 1, "permission denied", `user "outsider"`)
	checkStderr(t, "-etcd-user beside the certificate", r.stderr, userPassword)
	if held := holderKeys(t, root, "/cn/"); len(held) != 0 {
		t.Errorf("holder keys left: %q", held)
	}
}
