package etcdnode_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// cluster is an etcd cluster of several members in this process, each
// member's peer traffic through a peerProxy of the test's own, so that a
// test can cut one member off from the others (it then has no leader)
// while its clients still reach it; and, with front, a member's client
// traffic through a fault proxy, so that a test can partition it from its
// clients too, or make it hang.
type cluster struct {
	t       testing.TB
	members []*member
}

// member is one member of a cluster.
type member struct {
	name     string
	id       string // the member ID in hexadecimal, as peers name each other
	endpoint string // its client URL, direct
	etcd     *embed.Etcd
	peers    *peerProxy // in front of its peer listener: what the others dial
}

// startCluster starts a cluster of size members and stops it when the test
// ends. Election timing is short, but long enough that a loaded machine
// does not make the members elect a new leader every few seconds.
func startCluster(t testing.TB, size int) *cluster {
	t.Helper()
	return startClusterWith(t, size, nil)
}

// startClusterWith is startCluster with configure, if not nil, applied to
// each member's config.
func startClusterWith(t testing.TB, size int, configure func(*embed.Config)) *cluster {
	t.Helper()
	for range 5 {
		c, err := tryStartCluster(t, size, configure)
		if err == nil {
			return c
		}
		t.Logf("starting a cluster of %d: %v (retrying with other ports)", size, err)
	}
	t.Fatal("could not start the cluster")
	return nil
}

func tryStartCluster(t testing.TB, size int, configure func(*embed.Config)) (*cluster, error) {
	c := &cluster{t: t}
	var initial []string
	cfgs := make([]*embed.Config, size)
	for i := range cfgs {
		cfg := embed.NewConfig()
		cfg.Name = "m" + string(rune('0'+i))
		cfg.Dir = t.TempDir()
		cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
		cfg.TickMs, cfg.ElectionMs = 25, 500
		cfg.UnsafeNoFsync = true // a test cluster: speed over durability
		if configure != nil {
			configure(cfg)
		}
		client := url.URL{Scheme: "http", Host: "127.0.0.1:" + strconv.Itoa(freePort(t))}
		listen := url.URL{Scheme: "http", Host: "127.0.0.1:" + strconv.Itoa(freePort(t))}
		pp, err := startPeerProxy(listen.Host)
		if err != nil {
			c.stop()
			return nil, err
		}
		advertised := url.URL{Scheme: "http", Host: pp.listener.Addr().String()}
		cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
		cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{listen}, []url.URL{advertised}
		initial = append(initial, cfg.Name+"="+advertised.String())
		cfgs[i] = cfg
		c.members = append(c.members, &member{name: cfg.Name, endpoint: client.String(), peers: pp})
	}
	type started struct {
		e   *embed.Etcd
		err error
	}
	results := make([]chan started, size)
	for i, cfg := range cfgs {
		cfg.InitialCluster = strings.Join(initial, ",")
		results[i] = make(chan started, 1)
		go func() {
			e, err := embed.StartEtcd(cfg)
			results[i] <- started{e, err}
		}()
	}
	var errs []error
	for i, r := range results {
		s := <-r
		if s.err != nil {
			errs = append(errs, s.err)
			continue
		}
		c.members[i].etcd = s.e
	}
	if err := errors.Join(errs...); err != nil {
		c.stop()
		return nil, err
	}
	for _, m := range c.members {
		select {
		case <-m.etcd.Server.ReadyNotify():
		case <-time.After(20 * time.Second):
			c.stop()
			return nil, errors.New("the cluster did not become ready in 20 s")
		}
		m.id = m.etcd.Server.MemberID().String()
	}
	t.Cleanup(c.stop)
	return c, nil
}

func (c *cluster) stop() {
	var wg sync.WaitGroup
	for _, m := range c.members {
		wg.Go(func() {
			if m.etcd != nil {
				m.etcd.Close()
			}
			m.peers.close()
		})
	}
	wg.Wait()
}

// front starts a fault proxy in front of member i's client URL, and
// returns it and the members' client URLs, member i's through the proxy.
func (c *cluster) front(i int) (*proxy, []string) {
	px, via := startProxy(c.t, c.members[i].endpoint)
	var eps []string
	for _, m := range c.members {
		eps = append(eps, m.endpoint)
	}
	eps[i] = via
	return px, eps
}

// trouble is a fault of one member of a cluster of three, while the other
// two, a majority, are sound: start brings it about, and stop heals the
// cluster and waits until every member sees a leader again.
type trouble struct {
	name  string
	start func(t testing.TB)
	stop  func(t testing.TB)
}

// troubles returns the ways member i can be in trouble, given px in front
// of its client URL (see front): the leader, cut off from the other
// members, so that it answers from what it knew at the cut until it steps
// down, an election timeout later, and then has no leader and answers
// "etcdserver: no leader" (or nothing), while the others elect one;
// partitioned from everyone, its clients included; or reachable but never
// answering (a hung member, or a stalled link to it).
func (c *cluster) troubles(i int, px *proxy) []trouble {
	healed := func(heal func()) func(t testing.TB) {
		return func(t testing.TB) {
			t.Helper()
			heal()
			for j := range c.members {
				c.waitLeader(t, j, 10*time.Second)
			}
		}
	}
	return []trouble{
		{"no leader", func(t testing.TB) { c.makeLeader(t, i); c.isolate(i) }, healed(c.heal)},
		{"partitioned", func(testing.TB) { c.isolate(i); px.cut.Store(true) }, healed(func() { px.cut.Store(false); c.heal() })},
		{"hangs", func(testing.TB) { px.pause() }, healed(px.resume)},
	}
}

// makeLeader moves the cluster's leadership to member i, unless it leads
// already, and waits until every member sees it lead.
func (c *cluster) makeLeader(t testing.TB, i int) {
	t.Helper()
	target := c.members[i].etcd.Server.MemberID()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		led := true
		for _, m := range c.members {
			led = led && m.etcd.Server.Leader() == target
		}
		if led {
			return
		}
		for _, m := range c.members {
			if lead := m.etcd.Server.MemberID(); m.etcd.Server.Leader() == lead && lead != target {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				err := m.etcd.Server.MoveLeader(ctx, uint64(lead), uint64(target))
				cancel()
				if err != nil {
					t.Logf("moving the leadership to %s: %v", c.members[i].name, err)
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("member %s does not lead 10 s after the leadership was moved to it", c.members[i].name)
		}
	}
}

// isolate cuts member i off from the other members, both ways, and
// closes the connections between them; its clients still reach it. After
// an election timeout it has no leader, and the others elect one among
// themselves if it was theirs.
func (c *cluster) isolate(i int) {
	for j, m := range c.members {
		if j == i {
			m.peers.refuse("")
		} else {
			m.peers.refuse(c.members[i].id)
		}
	}
}

// heal lets every member reach every other again.
func (c *cluster) heal() {
	for _, m := range c.members {
		m.peers.allow()
	}
}

// waitLeader waits until member i sees a leader.
func (c *cluster) waitLeader(t testing.TB, i int, within time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(within); c.members[i].etcd.Server.Leader() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("member %s has no leader %v after the cluster healed", c.members[i].name, within)
		}
	}
}

// peerProxy sits in front of a member's peer listener. The members' raft
// traffic is HTTP/1.1, and each of its requests names the member that
// sent it (the X-Server-From header); the proxy refuses the connections of
// the members it is told to refuse, or every connection.
type peerProxy struct {
	listener net.Listener
	target   string

	mu      sync.Mutex
	all     bool                // refuse every connection
	refused map[string]bool     // member IDs whose connections are refused
	open    map[net.Conn]string // client side of open connections, with the sender ("" if it said none)
	stopped bool
	wg      sync.WaitGroup
}

func startPeerProxy(target string) (*peerProxy, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &peerProxy{listener: l, target: target, refused: map[string]bool{}, open: map[net.Conn]string{}}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			in, err := l.Accept()
			if err != nil {
				return
			}
			p.wg.Add(1)
			go func() {
				defer p.wg.Done()
				p.serve(in)
			}()
		}
	}()
	return p, nil
}

// serve reads the first request's header on in to learn its sender, and
// then passes the connection's bytes both ways unless refused.
func (p *peerProxy) serve(in net.Conn) {
	defer in.Close()
	r := bufio.NewReaderSize(in, 16<<10)
	in.SetReadDeadline(time.Now().Add(10 * time.Second))
	// Peek no further than the client has sent: it waits for an answer.
	if _, err := r.Peek(1); err != nil {
		return
	}
	var head []byte
	for {
		b, _ := r.Peek(r.Buffered())
		if i := bytes.Index(b, []byte("\r\n\r\n")); i >= 0 || len(b) == r.Size() {
			head = b
			break
		}
		if _, err := r.Peek(len(b) + 1); err != nil {
			return
		}
	}
	in.SetReadDeadline(time.Time{})
	from := ""
	for _, line := range strings.Split(string(head), "\r\n") {
		if name, value, ok := strings.Cut(line, ":"); ok && strings.EqualFold(strings.TrimSpace(name), "X-Server-From") {
			from = strings.TrimSpace(value)
		}
	}
	p.mu.Lock()
	if p.stopped || p.all || p.refused[from] {
		p.mu.Unlock()
		return
	}
	p.open[in] = from
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.open, in)
		p.mu.Unlock()
	}()
	out, err := net.DialTimeout("tcp", p.target, 2*time.Second)
	if err != nil {
		return
	}
	defer out.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		io.Copy(in, out)
		in.Close()
	}()
	io.Copy(out, r)
	out.Close()
	<-done
}

// refuse refuses the connections of member id, or every connection if id
// is empty, and closes those open now.
func (p *peerProxy) refuse(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if id == "" {
		p.all = true
	} else {
		p.refused[id] = true
	}
	for c, from := range p.open {
		if id == "" || from == id {
			c.Close()
		}
	}
}

// allow accepts every connection again.
func (p *peerProxy) allow() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.all = false
	clear(p.refused)
}

func (p *peerProxy) close() {
	p.listener.Close()
	p.mu.Lock()
	p.stopped = true
	for c := range p.open {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}
