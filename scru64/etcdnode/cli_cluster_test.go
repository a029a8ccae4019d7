package etcdnode_test

import (
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// link is a loopback TCP link to a target that a test can cut: while cut,
// it passes no byte either way and opens no connection to the target,
// keeping every connection open, as a partitioned network or a hung peer
// does; healing it closes the connections it held, and later ones pass.
type link struct {
	listener net.Listener
	target   string
	cut      atomic.Bool

	mu    sync.Mutex
	conns []net.Conn
	wg    sync.WaitGroup
}

// startLink starts a link to target (host:port) and returns it; it is
// closed when the test ends.
func startLink(t *testing.T, target string) *link {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	k := &link{listener: l, target: target}
	k.wg.Add(1)
	go func() {
		defer k.wg.Done()
		for {
			in, err := l.Accept()
			if err != nil {
				return
			}
			k.track(in)
			k.wg.Add(1)
			go func() {
				defer k.wg.Done()
				defer in.Close()
				k.waitHealed(in)
				out, err := net.Dial("tcp", k.target)
				if err != nil {
					return
				}
				defer out.Close()
				k.track(out)
				done := make(chan struct{}, 2)
				go func() { k.pipe(out, in); done <- struct{}{} }()
				go func() { k.pipe(in, out); done <- struct{}{} }()
				<-done
			}()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		k.heal()
		k.wg.Wait()
	})
	return k
}

func (k *link) addr() string { return k.listener.Addr().String() }

func (k *link) track(c net.Conn) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.conns = append(k.conns, c)
}

// waitHealed returns when the link is not cut, or c is closed.
func (k *link) waitHealed(c net.Conn) {
	for k.cut.Load() {
		time.Sleep(10 * time.Millisecond)
	}
}

// pipe copies from src to dst, holding bytes while the link is cut.
func (k *link) pipe(dst io.Writer, src io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		for k.cut.Load() {
			time.Sleep(10 * time.Millisecond)
		}
		n, err := src.Read(buf)
		for k.cut.Load() {
			time.Sleep(10 * time.Millisecond)
		}
		if n > 0 {
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// heal closes every connection the link holds and lets new ones through.
func (k *link) heal() {
	k.mu.Lock()
	for _, c := range k.conns {
		c.Close()
	}
	k.conns = nil
	k.mu.Unlock()
	k.cut.Store(false)
}

// cliMember is one member of an embedded etcd cluster: clients reach it
// through client, and the other members through peer.
type cliMember struct {
	etcd   *embed.Etcd
	client *link
	peer   *link
}

// startCLICluster starts a cluster of n embedded etcd members on loopback
// ports, each reached (by clients and by its peers) through links the test
// can cut. Elections take half a second, so that a loaded machine does
// not make the cluster lose its leader, and leases can be as short as 1 s.
func startCLICluster(t *testing.T, n int) []*cliMember {
	t.Helper()
	members := make([]*cliMember, n)
	cfgs := make([]*embed.Config, n)
	var initial []string
	for i := range members {
		cfg := embed.NewConfig()
		cfg.Name = fmt.Sprintf("m%d", i)
		cfg.Dir = t.TempDir()
		cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
		cfg.TickMs, cfg.ElectionMs = 50, 500
		cfg.UnsafeNoFsync = true
		clientURL := url.URL{Scheme: "http", Host: "127.0.0.1:" + freePort(t)}
		peerURL := url.URL{Scheme: "http", Host: "127.0.0.1:" + freePort(t)}
		m := &cliMember{client: startLink(t, clientURL.Host), peer: startLink(t, peerURL.Host)}
		cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{clientURL}, []url.URL{{Scheme: "http", Host: m.client.addr()}}
		cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peerURL}, []url.URL{{Scheme: "http", Host: m.peer.addr()}}
		initial = append(initial, cfg.Name+"=http://"+m.peer.addr())
		members[i], cfgs[i] = m, cfg
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i, cfg := range cfgs {
		cfg.InitialCluster = strings.Join(initial, ",")
		wg.Add(1)
		go func() {
			defer wg.Done()
			e, err := embed.StartEtcd(cfg)
			if err != nil {
				errs[i] = err
				return
			}
			members[i].etcd = e
			select {
			case <-e.Server.ReadyNotify():
			case <-time.After(30 * time.Second):
				errs[i] = fmt.Errorf("member %d not ready in 30 s", i)
			}
		}()
	}
	wg.Wait()
	t.Cleanup(func() {
		for _, m := range members {
			if m.etcd != nil {
				m.etcd.Close()
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return members
}

// cliEndpoints returns the members' client endpoints, comma-separated.
func cliEndpoints(members []*cliMember) string {
	var eps []string
	for _, m := range members {
		eps = append(eps, "http://"+m.client.addr())
	}
	return strings.Join(eps, ",")
}

// waitCLILeader waits until every member knows a leader.
func waitCLILeader(t *testing.T, members []*cliMember) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; {
		ok := true
		for _, m := range members {
			ok = ok && m.etcd.Server.Leader() != 0
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the cluster has no leader after 30 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestCLIFailsOverToTheOtherMembers runs gen -etcd A,B,C against a
// three-member cluster whose first member, A, is in trouble while B and C
// form a majority: A is partitioned from everyone, A hangs (its client
// port takes connections and never answers), or A has no leader (it
// answers clients, but no peer reaches it). Acquiring must succeed with A
// in trouble from the start, and a run that was minting when the trouble
// began must go on minting for two TTLs, then give its node ID back on
// SIGINT.
func TestCLIFailsOverToTheOtherMembers(t *testing.T) {
	bin := buildCLI(t)
	members := startCLICluster(t, 3)
	a := members[0]
	c := newClient(t, "http://"+members[1].client.addr())
	eps := cliEndpoints(members)
	const ttl = 3 * time.Second
	for _, tc := range []struct {
		name  string
		fault func()
	}{
		{"A partitioned", func() { a.client.cut.Store(true); a.peer.cut.Store(true) }},
		{"A hung", func() { a.client.cut.Store(true) }},
		{"A without a leader", func() { a.peer.cut.Store(true) }},
	} {
		// Each part starts with the cluster whole, and heals it after.
		part := func(name string, f func(t *testing.T)) {
			t.Run(tc.name+" "+name, func(t *testing.T) {
				waitCLILeader(t, members)
				t.Cleanup(func() { a.client.heal(); a.peer.heal() })
				f(t)
			})
		}
		part("from the start", func(t *testing.T) {
			tc.fault()
			start := time.Now()
			g := startStreamWith(t, bin, nil, "-etcd", eps, "-etcd-prefix", "/failover/", "-etcd-ttl", "3s")
			g.waitUntil(t, 15*time.Second, "printing IDs", func() bool { return strings.Count(g.stdout.String(), "\n") >= 100 })
			t.Logf("printing after %v", time.Since(start).Round(time.Millisecond))
			g.interrupt(t, syscall.SIGINT)
			checkStderr(t, tc.name, g.stderr.String())
			if g.stderr.String() != "" {
				t.Errorf("stderr %q", g.stderr.String())
			}
			if held := holderKeys(t, c, "/failover/"); len(held) != 0 {
				t.Errorf("the node ID was not given back: %q", held)
				waitFree(t, c, "/failover/")
			}
		})
		part("while minting", func(t *testing.T) {
			g := startStreamingGen(t, bin, eps, "-etcd-ttl", "3s")
			tc.fault()
			for began := time.Now(); time.Since(began) < 2*ttl; {
				before := len(g.stdout.String())
				g.waitUntil(t, 5*time.Second, "printing IDs", func() bool { return len(g.stdout.String()) > before })
				if strings.Contains(g.stderr.String(), "lease lost") {
					t.Fatalf("the lease was lost %v into the trouble: %q", time.Since(began), g.stderr.String())
				}
				time.Sleep(200 * time.Millisecond)
			}
			g.interrupt(t, syscall.SIGINT)
			checkStderr(t, tc.name, g.stderr.String())
			g.checkIDs(t)
			if g.stderr.String() != "" {
				t.Errorf("stderr %q", g.stderr.String())
			}
			if held := holderKeys(t, c, "/scru64/"); len(held) != 0 {
				t.Errorf("the node ID was not given back: %q", held)
				waitFree(t, c, "/scru64/")
			}
		})
	}
}
