package etcdnode_test

import (
	"context"
	"io"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// server is a real etcd running in this process on loopback ports, with
// its data in a test's temporary directory.
type server struct {
	etcd     *embed.Etcd
	endpoint string // http://127.0.0.1:port, serving gRPC and the JSON gateway
	stopOnce sync.Once
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

// startServer starts an etcd server and stops it when the test ends. Its
// election timing is shortened so that it elects itself at once and grants
// leases as short as 1 s (etcd's minimum TTL is 1.5 election timeouts,
// rounded up to whole seconds).
func startServer(t testing.TB) *server {
	t.Helper()
	cfg := embed.NewConfig()
	cfg.Name = "test"
	cfg.Dir = t.TempDir()
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	cfg.TickMs, cfg.ElectionMs = 10, 100
	cfg.UnsafeNoFsync = true     // a test server: speed over durability
	cfg.EnableGRPCGateway = true // the JSON gateway internal/etcdhttp speaks; true by default too
	var client, peer url.URL
	for range 5 {
		client = url.URL{Scheme: "http", Host: "127.0.0.1:" + freePort(t)}
		peer = url.URL{Scheme: "http", Host: "127.0.0.1:" + freePort(t)}
		cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
		cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
		cfg.InitialCluster = cfg.Name + "=" + peer.String()
		e, err := embed.StartEtcd(cfg)
		if err != nil {
			t.Logf("starting etcd on %s: %v (retrying with other ports)", client.Host, err)
			continue
		}
		select {
		case <-e.Server.ReadyNotify():
		case <-time.After(20 * time.Second):
			e.Close()
			t.Fatal("etcd did not become ready in 20 s")
		}
		s := &server{etcd: e, endpoint: client.String()}
		t.Cleanup(s.stop)
		return s
	}
	t.Fatal("could not start etcd")
	return nil
}

// stop stops the server; later calls do nothing.
func (s *server) stop() { s.stopOnce.Do(s.etcd.Close) }

// newClient returns a clientv3 client for endpoint, closed when the test ends.
func newClient(t testing.TB, endpoint string) *clientv3.Client {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{
		Endpoints:   []string{endpoint},
		DialTimeout: 5 * time.Second,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// proxy forwards TCP connections to a server until it is cut, and then
// behaves as a network partition: it keeps connections open and accepts
// new ones but drops every byte, so requests hang rather than fail.
type proxy struct {
	listener net.Listener
	target   string
	cut      atomic.Bool
}

// startProxy starts a proxy to endpoint's host and returns it and its own
// endpoint.
func startProxy(t testing.TB, endpoint string) (*proxy, string) {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{listener: l, target: u.Host}
	var conns sync.WaitGroup
	var mu sync.Mutex
	var open []net.Conn
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range open {
			c.Close()
		}
		mu.Unlock()
		conns.Wait()
	})
	go func() {
		for {
			in, err := l.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", p.target)
			if err != nil {
				in.Close()
				continue
			}
			mu.Lock()
			open = append(open, in, out)
			mu.Unlock()
			conns.Add(2)
			go func() { defer conns.Done(); p.pipe(out, in) }()
			go func() { defer conns.Done(); p.pipe(in, out) }()
		}
	}()
	return p, "http://" + l.Addr().String()
}

// pipe copies src to dst until either fails, dropping the bytes once cut.
func (p *proxy) pipe(dst io.Writer, src io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !p.cut.Load() {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func TestServerStarts(t *testing.T) {
	s := startServer(t)
	c := newClient(t, s.endpoint)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := c.Put(ctx, "k", "v"); err != nil {
		t.Fatal(err)
	}
	l, err := c.Grant(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("granted TTL %d for 1 asked", l.TTL)
}
