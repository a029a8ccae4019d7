package etcdnode_test

// The command-line tool against answers no etcd gives: redirects, a small
// answer that unpacks to a huge one, server text with control characters,
// data of the wrong form. A real etcd is used wherever it can hold the data
// (an empty realm value, a garbage record); where it cannot produce the
// answer, a loopback server answers in its place, or a proxy in front of a
// real etcd rewrites the answer.

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
)

// checkStderr checks what the tool wrote on stderr: whole lines of
// printable text (no control character but the newline that ends each
// line, no C1 control, no bidirectional override, valid UTF-8), no line
// ending in "<nil>", no Go panic or fatal error, and none of secrets.
func checkStderr(t *testing.T, what, stderr string, secrets ...string) {
	t.Helper()
	for _, crash := range []string{"panic:", "goroutine ", "fatal error:"} {
		if i := strings.Index(stderr, crash); i >= 0 {
			t.Errorf("%s: the tool crashed: %q", what, stderr[i:min(len(stderr), i+200)])
			return
		}
	}
	if stderr != "" && !strings.HasSuffix(stderr, "\n") {
		t.Errorf("%s: stderr does not end a line: %q", what, stderr)
	}
	if !utf8.ValidString(stderr) {
		t.Errorf("%s: stderr is not valid UTF-8: %q", what, stderr)
	}
	for line := range strings.Lines(stderr) {
		line = strings.TrimSuffix(line, "\n")
		for _, r := range line {
			if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
				t.Errorf("%s: stderr holds the control character %U: %q", what, r, line)
				return
			}
		}
		if strings.HasSuffix(line, "<nil>") {
			t.Errorf("%s: a message ends in <nil>: %q", what, line)
		}
	}
	for _, s := range secrets {
		if strings.Contains(stderr, s) {
			t.Errorf("%s: stderr shows the secret %q: %q", what, s, stderr)
		}
	}
}

// hostile is a loopback server standing where etcd should be, answering
// as no etcd does. It speaks HTTP/1.1 and HTTP/2, in the clear (h2c, as
// gRPC without TLS does) or over TLS, and counts the connections it took.
type hostile struct {
	endpoint string // scheme://127.0.0.1:port
	conns    atomic.Int64
}

// startHostile starts a hostile server that answers with h, over TLS with
// cert if not nil.
func startHostile(t *testing.T, cert *tls.Certificate, h http.HandlerFunc) *hostile {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &hostile{endpoint: "http://" + l.Addr().String()}
	srv := &http.Server{
		Handler:   h,
		ConnState: func(_ net.Conn, state http.ConnState) { countNew(&s.conns, state) },
		Protocols: new(http.Protocols),
	}
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetHTTP2(true)
	srv.Protocols.SetUnencryptedHTTP2(true)
	if cert != nil {
		s.endpoint = "https://" + l.Addr().String()
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{*cert}}
		go srv.ServeTLS(l, "", "")
	} else {
		go srv.Serve(l)
	}
	t.Cleanup(func() { srv.Close() })
	return s
}

func countNew(n *atomic.Int64, state http.ConnState) {
	if state == http.StateNew {
		n.Add(1)
	}
}

// answerGRPC answers a gRPC call with one message (gzip-compressed if
// compressed, which the client never asked for) and status OK.
func answerGRPC(w http.ResponseWriter, message []byte, compressed bool) {
	w.Header().Set("Content-Type", "application/grpc")
	w.Header().Set("Trailer", "Grpc-Status")
	framed := grpcMessage(message)
	if compressed {
		w.Header().Set("Grpc-Encoding", "gzip")
		framed[0] = 1 // the compressed flag
	}
	w.WriteHeader(http.StatusOK)
	w.Write(framed)
	w.Header().Set("Grpc-Status", "0")
}

// grpcError answers a gRPC call with an error status and message.
func grpcError(w http.ResponseWriter, code codes.Code, message string) {
	w.Header().Set("Content-Type", "application/grpc")
	w.Header().Set("Trailer", "Grpc-Status, Grpc-Message")
	w.WriteHeader(http.StatusOK)
	w.Header().Set("Grpc-Status", strconv.Itoa(int(code)))
	w.Header().Set("Grpc-Message", percentEncode(message))
}

// genArgs are the arguments of a gen -etcd run through endpoint.
func genArgs(endpoint string, args ...string) []string {
	return append([]string{"gen", "-format", "scru64", "-etcd", endpoint, "-etcd-size", "4"}, args...)
}

// TestCLINeverFollowsRedirects: an endpoint (or something in front of it)
// that answers 307 or 308 to every request, pointing elsewhere, plain HTTP
// or TLS. The tool must fail with status 1 at once, and nothing may reach
// the other host: not the user's password, not a token, not a request.
func TestCLINeverFollowsRedirects(t *testing.T) {
	bin := buildCLI(t)
	p := newPKI(t, "redirect CA")
	certFile, keyFile := p.issue(t, "redirector", x509.ExtKeyUsageServerAuth)
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	const password = "redirected-password-7"
	for _, code := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		for _, overTLS := range []bool{false, true} {
			elsewhere := startHostile(t, nil, func(w http.ResponseWriter, r *http.Request) {})
			var tlsCert *tls.Certificate
			args := []string{"-etcd-user", "alice"}
			if overTLS {
				tlsCert = &cert
				args = append(args, "-etcd-cacert", p.ca)
			}
			var asked atomic.Int64
			redirector := startHostile(t, tlsCert, func(w http.ResponseWriter, r *http.Request) {
				asked.Add(1)
				http.Redirect(w, r, elsewhere.endpoint+r.URL.Path, code)
			})
			what := strconv.Itoa(code) + " from " + redirector.endpoint
			r := runCLI(t, bin, []string{"SCRU128_ETCD_PASSWORD=" + password}, genArgs(redirector.endpoint, args...)...)
			checkFailure(t, what, r, 1, "leasing a node ID from etcd")
			checkStderr(t, what, r.stderr, password)
			if n := elsewhere.conns.Load(); n != 0 {
				t.Errorf("%s: the redirect was followed: %d connections to %s", what, n, elsewhere.endpoint)
			}
			if asked.Load() == 0 {
				t.Errorf("%s: the tool sent nothing to the redirecting endpoint", what)
			}
		}
	}
}

// TestCLIBoundsWhatItReads: an endpoint answers the first request with a
// message of a few kilobytes that unpacks to 60 MiB of empty entries
// (gzip, which the tool never asked for), or with 8 MiB, 1 MiB or 256 KiB
// of them sent plainly. Each entry costs a decoder a hundred bytes or so:
// the tool must fail with status 1, without a crash, within 256 MiB of
// data segment (ulimit -d).
func TestCLIBoundsWhatItReads(t *testing.T) {
	bin := buildCLI(t)
	// An etcd answer of 60 MiB of empty entries: a TxnResponse whose
	// first response is a range of empty key-values, in protobuf (each
	// entry is the field tag 0x12 and length 0), gzip-packed. A gzip stream
	// may be several members, which unpack to their concatenation: the
	// message's head, then one member of 1 MiB of entries, packed once and
	// sent 60 times.
	const size = 60 << 20
	op := protowire(0x0a, size)
	head := append(protowire(0x1a, len(op)+size), op...)
	var packed, member bytes.Buffer
	for _, m := range []struct {
		to   *bytes.Buffer
		data []byte
	}{{&packed, head}, {&member, bytes.Repeat([]byte{0x12, 0x00}, 1<<19)}} {
		gz, _ := gzip.NewWriterLevel(m.to, gzip.BestCompression)
		gz.Write(m.data)
		gz.Close()
	}
	for range size >> 20 {
		packed.Write(member.Bytes())
	}
	t.Logf("%d MiB unpacked, %d KiB packed", (len(head)+size)>>20, packed.Len()>>10)
	plain := func(size int) []byte {
		r := bytes.Repeat([]byte{0x12, 0x00}, size/2)
		op := append(protowire(0x0a, len(r)), r...)
		return append(protowire(0x1a, len(op)), op...)
	}

	for _, tc := range []struct {
		name   string
		answer http.HandlerFunc
	}{
		{"60 MiB packed into gzip", func(w http.ResponseWriter, r *http.Request) { answerGRPC(w, packed.Bytes(), true) }},
		{"8 MiB sent plainly", func(w http.ResponseWriter, r *http.Request) { answerGRPC(w, plain(8<<20), false) }},
		{"1 MiB sent plainly", func(w http.ResponseWriter, r *http.Request) { answerGRPC(w, plain(1<<20), false) }},
		{"256 KiB sent plainly", func(w http.ResponseWriter, r *http.Request) { answerGRPC(w, plain(256<<10), false) }},
	} {
		srv := startHostile(t, nil, tc.answer)
		r := runLimited(t, bin, 256<<20, genArgs(srv.endpoint)...)
		t.Logf("%s: status %d: %s", tc.name, r.status, strings.TrimSpace(r.stderr))
		if r.status != 1 || r.stdout != "" {
			t.Errorf("%s: status %d, stdout %q; want 1", tc.name, r.status, r.stdout)
		}
		checkStderr(t, tc.name, r.stderr)
	}
}

// protowire returns a protobuf field tag and a length.
func protowire(tag byte, length int) []byte {
	return binary.AppendUvarint([]byte{tag}, uint64(length))
}

// runLimited runs the tool with args, its data segment limited to limit
// bytes. (Its peak resident size is not the measure: a process started by
// the test is charged with the test's own until it execs.)
func runLimited(t *testing.T, bin string, limit int64, args ...string) cliRun {
	t.Helper()
	shell := "ulimit -d " + strconv.FormatInt(limit>>10, 10) + ` && exec "$0" "$@"`
	cmd := exec.Command("sh", append([]string{"-c", shell, bin}, args...)...)
	cmd.Env = cliEnv(nil)
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

// TestCLIShowsServerTextWithoutControlCharacters: etcd's error messages
// (here from a server answering in its place) are printed, but never a
// control character in them: an ANSI escape would recolour or clear the
// terminal, a carriage return overwrite the line, a bidirectional override
// reorder it. They are shown escaped instead.
func TestCLIShowsServerTextWithoutControlCharacters(t *testing.T) {
	bin := buildCLI(t)
	const hostileText = "etcdserver: \x1b[2J\x1b[31mall good\x1b[0m\r\x07 \u009b31m \u202egnp.exe \xff done"
	srv := startHostile(t, nil, func(w http.ResponseWriter, r *http.Request) {
		grpcError(w, codes.FailedPrecondition, hostileText)
	})
	r := runCLI(t, bin, nil, genArgs(srv.endpoint)...)
	checkFailure(t, "control characters from the server", r, 1, "etcdserver: ", "all good", "done")
	checkStderr(t, "control characters from the server", r.stderr)
	if !strings.Contains(r.stderr, `\x1b[31m`) {
		t.Errorf("the escape is not shown escaped: %q", r.stderr)
	}
}

// TestCLINeverPrintsThePasswordEtcdEchoes: a server that answers the
// authentication with an error quoting what it was sent (the user's
// password among it): the password must not reach stderr.
func TestCLINeverPrintsThePasswordEtcdEchoes(t *testing.T) {
	bin := buildCLI(t)
	const password = "echoed-password-8"
	srv := startHostile(t, nil, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		grpcError(w, codes.InvalidArgument, "etcdserver: cannot parse "+strings.ToValidUTF8(string(body), "?"))
	})
	for _, args := range [][]string{{"-etcd-user", "alice:" + password}, {"-etcd-user", "alice"}} {
		r := runCLI(t, bin, []string{"SCRU128_ETCD_PASSWORD=" + password}, genArgs(srv.endpoint, args...)...)
		checkFailure(t, "an echoed password", r, 1, "cannot parse")
		checkStderr(t, "an echoed password", r.stderr, password)
	}
}

// TestCLIReadsWrongDataFromEtcdAsAFailure: data in etcd that no node of
// this protocol wrote (an empty or garbage realm value, a garbage record,
// another node ID's record) is a failure, status 1, with a message that
// names the key: it is not a usage error (status 2), which the flags cause.
// A realm of another node ID size is the one usage error: -etcd-size
// disagrees with it.
func TestCLIReadsWrongDataFromEtcdAsAFailure(t *testing.T) {
	bin := buildCLI(t)
	srv := startServer(t)
	c := newClient(t, srv.endpoint)
	put := func(key, value string) {
		t.Helper()
		if _, err := c.Put(context.Background(), key, value); err != nil {
			t.Fatal(err)
		}
	}
	put("/empty/size", "")
	put("/garbage/size", "\x1b[2Jeight")
	put("/other/size", "8")
	put("/record/size", "4")
	put("/record/last/0000000", "not an ID \x1b[2J")
	put("/theirs/size", "4")
	put("/theirs/last/0000000", "0u375nxqh5cq") // an ID of node ID 2, size 4
	for _, tc := range []struct {
		prefix string
		status int
		want   []string
	}{
		{"/empty/", 1, []string{`"/empty/size"`}},
		{"/garbage/", 1, []string{`"/garbage/size"`}},
		{"/other/", 2, []string{"-etcd-size", "8"}},
		{"/record/", 1, []string{`"/record/last/0000000"`}},
		{"/theirs/", 1, []string{`"/theirs/last/0000000"`}},
	} {
		r := runCLI(t, bin, nil, genArgs(srv.endpoint, "-etcd-prefix", tc.prefix)...)
		checkFailure(t, tc.prefix, r, tc.status, tc.want...)
		checkStderr(t, tc.prefix, r.stderr)
	}
}

// TestCLIRefusesMalformedAnswers: answers that a real etcd does not give,
// rewritten by a proxy in front of one: a listed key shorter than the
// prefix, one outside the range asked for, one with control characters,
// one of the wrong form inside the range (which etcd can hold), a lease
// grant with lease ID 0, and grants with a TTL past etcd's largest or
// below one second. Each is a failure (status 1) that names what was
// wrong, without a crash, and leaves no holder key.
func TestCLIRefusesMalformedAnswers(t *testing.T) {
	bin := buildCLI(t)
	srv := startServer(t)
	c := newClient(t, srv.endpoint)
	if _, err := c.Put(context.Background(), "/form/node/0000000x", "junk"); err != nil {
		t.Fatal(err)
	}
	listed := func(key string) *rule {
		return &rule{match: onPath(rangePath), action: rewriteAnswer, rewrite: rangeWith(t, withKey(key))}
	}
	granted := func(change func(m *etcdserverpb.LeaseGrantResponse)) *rule {
		return &rule{match: onPath(grantPath), action: rewriteAnswer, rewrite: leaseAnswer(t, change)}
	}
	const noEtcd = "an answer no etcd gives"
	for _, tc := range []struct {
		name   string
		prefix string
		rule   *rule
		want   []string
	}{
		{"a key shorter than the prefix", "/short/", listed("/s"), []string{`"/s"`, "outside the range"}},
		{"a key outside the range", "/outside/", listed("/outside/node/9999999"), []string{`"/outside/node/9999999"`}},
		{"a key with control characters", "/ctl/", listed("/ctl/node/00\x1b[2J001"), []string{`"/ctl/node/00\x1b[2J001"`}},
		{"a key of the wrong form in the range", "/form/", nil, []string{`"/form/node/0000000x"`}},
		{"lease ID 0", "/lease0/", granted(func(m *etcdserverpb.LeaseGrantResponse) { m.ID = 0 }), []string{noEtcd, "lease 0"}},
		{"a TTL past etcd's largest", "/ttl/", granted(func(m *etcdserverpb.LeaseGrantResponse) { m.TTL = 9_000_000_001 }), []string{noEtcd, "TTL of 9000000001 s"}},
		{"a TTL of 0", "/ttl0/", granted(func(m *etcdserverpb.LeaseGrantResponse) { m.TTL = 0 }), []string{noEtcd, "TTL of 0 s"}},
		{"a negative TTL", "/ttl-5/", granted(func(m *etcdserverpb.LeaseGrantResponse) { m.TTL = -5 }), []string{noEtcd, "TTL of -5 s"}},
	} {
		endpoint := srv.endpoint
		if tc.rule != nil {
			var px *proxy
			px, endpoint = startProxy(t, srv.endpoint)
			px.addRule(tc.rule)
		}
		r := runCLI(t, bin, nil, genArgs(endpoint, "-etcd-prefix", tc.prefix, "-n", "10")...)
		checkFailure(t, tc.name, r, 1, append([]string{"leasing a node ID from etcd"}, tc.want...)...)
		checkStderr(t, tc.name, r.stderr)
		if held := holderKeys(t, c, tc.prefix); len(held) != 0 {
			t.Errorf("%s: holder keys left: %q", tc.name, held)
		}
	}
}

// holderKeys returns the holder keys under prefix: keys of the form
// prefix + "node/" + seven digits.
func holderKeys(t *testing.T, c *clientv3.Client, prefix string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := c.Get(ctx, prefix+"node/", clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, kv := range resp.Kvs {
		id := strings.TrimPrefix(string(kv.Key), prefix+"node/")
		if _, err := strconv.ParseUint(id, 10, 32); err == nil && len(id) == 7 {
			keys = append(keys, string(kv.Key))
		}
	}
	return keys
}
