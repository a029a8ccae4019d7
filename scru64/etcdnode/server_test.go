package etcdnode_test

import (
	"context"
	"errors"
	"net/url"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// server is a real etcd running in this process on loopback ports, with
// its data in a test's temporary directory.
type server struct {
	t        testing.TB
	cfg      *embed.Config
	endpoint string // http://127.0.0.1:port, serving gRPC

	mu      sync.Mutex
	etcd    *embed.Etcd // nil while stopped
	stopped bool        // for good: the test has ended
}

// startServer starts an etcd server and stops it when the test ends. Its
// election timing is shortened so that it elects itself at once and grants
// leases as short as 1 s (etcd's minimum TTL is 1.5 election timeouts,
// rounded up to whole seconds).
func startServer(t testing.TB) *server {
	t.Helper()
	return startServerWith(t, "http", nil)
}

// startServerWith is startServer with clients served under scheme (http or
// https) and configure, if not nil, applied to the config first.
func startServerWith(t testing.TB, scheme string, configure func(*embed.Config)) *server {
	t.Helper()
	cfg := embed.NewConfig()
	cfg.Name = "test"
	cfg.Dir = t.TempDir()
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	cfg.TickMs, cfg.ElectionMs = 10, 100
	cfg.UnsafeNoFsync = true // a test server: speed over durability
	if configure != nil {
		configure(cfg)
	}
	for range 5 {
		client := url.URL{Scheme: scheme, Host: "127.0.0.1:" + strconv.Itoa(freePort(t))}
		peer := url.URL{Scheme: "http", Host: "127.0.0.1:" + strconv.Itoa(freePort(t))}
		cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
		cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
		cfg.InitialCluster = cfg.Name + "=" + peer.String()
		s := &server{t: t, cfg: cfg, endpoint: client.String()}
		if err := s.start(); err != nil {
			t.Logf("starting etcd on %s: %v (retrying with other ports)", client.Host, err)
			continue
		}
		t.Cleanup(func() {
			s.mu.Lock()
			s.stopped = true
			s.mu.Unlock()
			s.stop()
		})
		return s
	}
	t.Fatal("could not start etcd")
	return nil
}

// start starts the server on its ports and data directory.
func (s *server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.etcd != nil || s.stopped {
		return errors.New("etcd is running or the test has ended")
	}
	e, err := embed.StartEtcd(s.cfg)
	if err != nil {
		return err
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(20 * time.Second):
		e.Close()
		return errors.New("etcd did not become ready in 20 s")
	}
	s.etcd = e
	return nil
}

// stop stops the server; stopping a stopped server does nothing.
func (s *server) stop() {
	s.mu.Lock()
	e := s.etcd
	s.etcd = nil
	s.mu.Unlock()
	if e != nil {
		e.Close()
	}
}

// restart stops the server and starts it again on the same ports, with
// its data (dir "") or with the data directory dir: an empty one is a
// server that lost its data, a copy taken earlier is a restored backup.
func (s *server) restart(dir string) {
	s.t.Helper()
	s.stop()
	if dir != "" {
		s.cfg.Dir = dir
	}
	// The ports were just released; freePort keeps them from the other
	// tests of this process, and a few retries ride out the rest.
	var err error
	for range 20 {
		if err = s.start(); err == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Fatalf("restarting etcd: %v", err)
}

// backup stops the server, copies its data directory to a new temporary
// directory, starts it again and returns the copy's path.
func (s *server) backup() string {
	s.t.Helper()
	s.stop()
	dir := s.t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(s.cfg.Dir)); err != nil {
		s.t.Fatal(err)
	}
	s.restart("")
	return dir
}

// newClient returns a clientv3 client for the endpoints (one, or a
// cluster's), closed when the test ends.
func newClient(t testing.TB, endpoints ...string) *clientv3.Client {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{
		Endpoints:   endpoints,
		DialTimeout: 5 * time.Second,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
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
