//go:build (unix && !aix) || windows

package etcdcli

// gen -etcd's connection to etcd: etcd's Go client, set up from the flags,
// and a watch on its connections while the node ID is leased, so that gen
// says at once why no endpoint can be used.

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/fastid/scru128/cmd/scru128/internal/cli"
)

const (
	// dialTimeout bounds the authentication that etcd's client makes
	// before its first request, and a connection's wait for the server's
	// first words.
	dialTimeout = 5 * time.Second
	// reconnectDelay is the longest wait between two attempts to connect
	// to a member: gRPC's default of two minutes would outlast any lease.
	reconnectDelay = time.Second
	// sendLimit and recvLimit bound one gRPC message each way, for the
	// default prefix; messageLimits adds room for a longer one. gen's
	// requests are a few keys long, and its largest answer is a page of
	// 1,024 holder keys, some 40 KiB. A bound on bytes bounds what
	// decoding an answer allocates too: a hostile answer of empty entries
	// two bytes each costs the decoder some 150 bytes per entry, 20 MiB
	// for recvLimit.
	sendLimit = 64 << 10
	recvLimit = 256 << 10
)

// messageLimits returns the send and receive limits for a prefix.
func messageLimits(prefix string) (send, recv int) {
	// A request names up to six keys under the prefix; an answer lists up
	// to 1,024 of them, each with its revisions.
	return sendLimit + 6*len(prefix), recvLimit + 1024*(len(prefix)+64)
}

// newClient returns etcd's client for the setup, its connections watched
// by r. It has authenticated if the setup has a user; ctx ends its requests
// when cancelled.
func (s *etcdSetup) newClient(ctx context.Context, r *reach) (*clientv3.Client, error) {
	var creds credentials.TransportCredentials = insecure.NewCredentials()
	if s.tls != nil {
		creds = credentials.NewTLS(s.tls)
	}
	send, recv := messageLimits(s.lease.Prefix)
	c, err := clientv3.New(clientv3.Config{
		Endpoints:          s.endpoints,
		DialTimeout:        dialTimeout,
		Username:           s.user,
		Password:           s.password,
		Context:            ctx,
		Logger:             zap.NewNop(),
		MaxCallSendMsgSize: send,
		MaxCallRecvMsgSize: recv,
		DialOptions: []grpc.DialOption{
			grpc.WithContextDialer(r.dial),
			// The client's own credentials for the endpoints' scheme are
			// replaced by these, the same TLS settings, watched.
			grpc.WithTransportCredentials(watchedCreds{creds, r}),
			grpc.WithConnectParams(grpc.ConnectParams{
				Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: reconnectDelay},
				MinConnectTimeout: dialTimeout,
			}),
		},
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// reach follows the connections to each endpoint while gen leases its node
// ID. etcd's client waits for a connection to become ready for as long as a
// request may take; gen instead fails as soon as every endpoint has failed
// (a refused connection, a TLS handshake etcd or gen refused, an endpoint
// that does not speak gRPC), saying why for each, as it would with a
// request of its own.
type reach struct {
	endpoints map[string]string // by address (host:port): the endpoint as given
	tls       *tls.Config       // gen's TLS settings, nil for plain HTTP

	mu      sync.Mutex
	state   map[string]error // by address: nil once it answered, else its last failure
	failed  chan struct{}    // closed when every endpoint has failed
	isEnded bool
}

func newReach(endpoints []string, tlsConfig *tls.Config) *reach {
	r := &reach{endpoints: map[string]string{}, tls: tlsConfig, state: map[string]error{}, failed: make(chan struct{})}
	for _, e := range endpoints {
		r.endpoints[hostOf(e)] = e
	}
	return r
}

// hostOf returns the host:port of an endpoint URL.
func hostOf(endpoint string) string {
	_, host, _ := strings.Cut(endpoint, "://")
	return host
}

// dial connects to addr for gRPC, noting a failure.
func (r *reach) dial(ctx context.Context, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	if err != nil {
		r.fail(addr, err)
		return nil, err
	}
	return &dialed{Conn: c, addr: addr}, nil
}

// dialed is a connection with the address gen dialled, which names the
// endpoint in messages.
type dialed struct {
	net.Conn
	addr string
}

// fail notes that the endpoint at addr failed with err.
func (r *reach) fail(addr string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.state[addr] = err
	if r.isEnded || len(r.state) < len(r.endpoints) {
		return
	}
	for _, err := range r.state {
		if err == nil {
			return
		}
	}
	r.isEnded = true
	close(r.failed)
}

// answered notes that the endpoint at addr answered as a gRPC server.
func (r *reach) answered(addr string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.isEnded {
		r.state[addr] = nil
	}
}

// end stops the watch: gen has its node ID, and failures from now on are
// the node's to handle.
func (r *reach) end() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.isEnded = true
}

// errors returns why each endpoint failed, in the order given.
func (r *reach) errors(order []string) error {
	r.mu.Lock()
	state := maps.Clone(r.state)
	r.mu.Unlock()
	var errs []error
	for _, e := range order {
		err := state[hostOf(e)]
		if err == nil {
			continue
		}
		err = connectionError(e, err)
		if _, ok := err.(*tlsError); !ok && r.tls != nil {
			// In TLS 1.3 the client finishes its handshake before the
			// server has checked the client's certificate: a refusal
			// comes as an alert that races with gRPC's first writes, which
			// may then fail as a broken connection. A handshake of gen's
			// own, which then waits for the server's first word, tells
			// whether that is what happened.
			if probed := connectionError(e, r.probe(hostOf(e))); isTLSError(probed) {
				err = probed
			}
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// probeWait bounds the handshake of probe, and its wait for the server's
// first bytes.
const probeWait = time.Second

// probe makes a TLS connection to addr with gen's settings and reads from
// it, and returns the error of either: a server that refuses the client's
// certificate says so in an alert that the read returns, while one that
// accepts it sends its HTTP/2 settings.
func (r *reach) probe(addr string) error {
	ctx, cancel := context.WithTimeout(context.Background(), probeWait)
	defer cancel()
	config := r.tls.Clone()
	config.NextProtos = []string{"h2"}
	conn, err := (&tls.Dialer{Config: config}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := conn.SetReadDeadline(time.Now().Add(probeWait)); err != nil {
		return err
	}
	_, err = conn.Read(make([]byte, 1))
	return err
}

// isTLSError reports whether err is a *tlsError.
func isTLSError(err error) bool {
	_, ok := err.(*tlsError)
	return ok
}

// watchedCreds are transport credentials that tell reach how each
// connection's handshake, and the server's first bytes, went.
type watchedCreds struct {
	credentials.TransportCredentials
	r *reach
}

func (w watchedCreds) ClientHandshake(ctx context.Context, authority string, raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	addr := raw.RemoteAddr().String()
	if d, ok := raw.(*dialed); ok {
		addr = d.addr
	}
	conn, info, err := w.TransportCredentials.ClientHandshake(ctx, authority, raw)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) {
			// Closed in the middle of the handshake, with no alert: what
			// an etcd serving plain HTTP does with a TLS hello.
			err = errHandshakeHungUp
		}
		w.r.fail(addr, err)
		return nil, nil, err
	}
	return &firstBytes{Conn: conn, addr: addr, r: w.r}, info, nil
}

func (w watchedCreds) Clone() credentials.TransportCredentials {
	return watchedCreds{w.TransportCredentials.Clone(), w.r}
}

// firstBytes watches what a server sends first: an HTTP/2 server, as every
// gRPC server is, starts with a SETTINGS frame, whose fourth byte (the
// frame type) is 4. A failure before that (a TLS alert refusing the client's
// certificate, which TLS 1.3 sends after the handshake) or other bytes (an
// HTTP/1 answer to a TLS server spoken to in plain text) mean the endpoint
// cannot be used.
type firstBytes struct {
	net.Conn
	addr string
	r    *reach

	mu       sync.Mutex
	seen     int
	decided  bool
	writeErr bool // a write failed before the server's first bytes
}

// errNotGRPC is what an endpoint that answers with something other than
// HTTP/2 failed with.
var errNotGRPC = errors.New("it does not answer as a gRPC server (HTTP/2)")

func (c *firstBytes) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := 0; i < n && !c.decided; i++ {
		if c.seen == 3 {
			c.decided = true
			if p[i] == 4 {
				c.r.answered(c.addr)
			} else {
				c.r.fail(c.addr, errNotGRPC)
			}
		}
		c.seen++
	}
	switch {
	case err == nil || c.decided:
	case errors.Is(err, net.ErrClosed) && c.writeErr:
		// gRPC closed it after a write failed, which was noted.
		c.decided = true
	case errors.Is(err, net.ErrClosed):
		// gRPC closed it, having waited for the server's first words.
		c.decided = true
		c.r.fail(c.addr, errSilent)
	case err == io.EOF:
		c.decided = true
		c.r.fail(c.addr, errHungUp)
	default:
		c.decided = true
		c.r.fail(c.addr, err)
	}
	return n, err
}

func (c *firstBytes) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if err != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		if !c.decided {
			// A server that refuses the client's certificate may close
			// the connection before gRPC reads its alert: what the
			// endpoint did is found by probing it (see errors).
			c.writeErr = true
			c.r.fail(c.addr, err)
		}
	}
	return n, err
}

var (
	errHungUp          = errors.New("the server closed the connection without answering")
	errHandshakeHungUp = errors.New("the server closed the connection in the handshake, without a word of TLS")
	errSilent          = errors.New("the server took the connection but did not answer")
)

// connectionError returns err, the failure of a connection to endpoint, as
// gen words it: a failed TLS handshake as a *tlsError that names the
// setting it points at.
func connectionError(endpoint string, err error) error {
	var (
		verify *tls.CertificateVerificationError
		header tls.RecordHeaderError
		op     *net.OpError
	)
	switch {
	case errors.As(err, &verify):
		return &tlsError{endpoint: endpoint, field: cli.FieldCACert, err: verify}
	case errors.As(err, &header):
		return &tlsError{endpoint: endpoint, field: cli.FieldEndpoints, err: header}
	case errors.As(err, &op) && op.Op == "remote error":
		// crypto/tls reports an alert the server sent as a *net.OpError
		// with this Op. A server sends one in the handshake when it
		// refuses what this client offered, which is the client's
		// certificate: the client's own check of the server comes first,
		// above.
		return &tlsError{endpoint: endpoint, field: cli.FieldCert, err: op}
	}
	if err == errHandshakeHungUp {
		return &tlsError{endpoint: endpoint, field: cli.FieldEndpoints,
			err: fmt.Errorf("%w (if it serves plain HTTP, give it as http://)", err)}
	}
	if strings.HasPrefix(endpoint, "http://") && (err == errNotGRPC || err == errHungUp) {
		err = fmt.Errorf("%w (if it serves TLS, give it as https://, or give -etcd-cacert)", err)
	}
	return &endpointError{endpoint: endpoint, err: err}
}

// endpointError is a connection to an endpoint that failed.
type endpointError struct {
	endpoint string
	err      error
}

func (e *endpointError) Error() string { return e.endpoint + ": " + e.err.Error() }
func (e *endpointError) Unwrap() error { return e.err }

// tlsError is a TLS handshake with an endpoint that failed, and the setting
// it points at: the CA when gen could not verify the server's certificate
// (with -etcd-cacert, or the system's roots without it), the client
// certificate when the server refused it (or its absence), the endpoint
// when it does not speak TLS at all.
type tlsError struct {
	endpoint string
	field    cli.ConnField
	err      error
}

func (e *tlsError) Error() string { return e.text("") }

// text words the error, naming the setting it points at as name (the
// flag or variable that gave it), if not "".
func (e *tlsError) text(name string) string {
	what := "the handshake failed"
	switch e.field {
	case cli.FieldCACert:
		what = "the server's certificate was not verified"
	case cli.FieldCert:
		what = "the server refused the client's certificate (or its absence)"
	case cli.FieldEndpoints:
		what = "the endpoint does not speak TLS"
	}
	if name != "" {
		what += " (" + name + ")"
	}
	return "TLS handshake with " + e.endpoint + ": " + what + ": " + e.err.Error()
}

func (e *tlsError) Unwrap() error { return e.err }
