package etcdnode_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"

	"github.com/fastid/scru128/internal/nodelease"
	"github.com/fastid/scru128/scru64/etcdnode"
)

// What etcd's operators do on purpose, as scenarios of the fault harness:
// answers that come late, a member defragmented, the store compacted. Each
// runs nodes while it happens, records every ID in a ledger, and checks
// that no ID was issued twice, that each node ID's holders minted in
// order, and that the node took none of it for lost data.

// twiceStore sends every write of the continuity record twice and answers
// with the second answer, as a client that sends a request again after a
// timeout does when the first had applied and its answer was slow: the
// second finds the record moved by the first.
type twiceStore struct{ nodelease.Store }

func (s twiceStore) WriteRecord(ctx context.Context, w nodelease.RecordWrite) (nodelease.RecordResult, error) {
	s.Store.WriteRecord(ctx, w)
	return s.Store.WriteRecord(ctx, w)
}

// TestWritesSentTwiceAreTheNodesOwn: every write of the record reaches
// etcd twice, the first applied and its answer dropped. The node must take
// what the second finds for its own write, not for data loss, and mint on;
// Close stores the last ID; the next holder continues after it.
func TestWritesSentTwiceAreTheNodesOwn(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := startServer(t)
		var led ledger
		n := acquire(t, twiceStore{open(srv.endpoint)}, nodelease.Config{})
		h := led.HolderOf("first", n)
		done := minting(n, h)
		time.Sleep(6 * time.Second) // two raises of the bound or more
		select {
		case err := <-done:
			t.Fatalf("the node stopped: %v", err)
		default:
		}
		if err := n.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		<-done
		next := acquire(t, open(srv.endpoint), takeOver(n, nil))
		led.HolderOf("next", next).Add(mint(t, next, 1000)...)
		led.Check(t)
	})
}

// fillMiB is how much each member holds in the defragmentation scenarios.
var fillMiB = 128

// lateAnswers is how late a slow etcd answers in these scenarios: more
// than a request's first try at the CLI's 10-s TTL was given before
// (500 ms), less than the node's request timeout at that TTL (1.25 s).
const lateAnswers = 600 * time.Millisecond

// TestLateAnswersAreRiddenOut: etcd applies every request at once and
// every answer comes lateAnswers after, for longer than a lease's TTL.
// Nodes mint on, renewing and raising their bounds, and none stops.
func TestLateAnswersAreRiddenOut(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := startServer(t)
		px, viaProxy := startProxy(t, srv.endpoint)
		var led ledger
		var nodes []*nodelease.Node
		var dones []<-chan error
		for i := range 2 {
			n := acquire(t, open(viaProxy), nodelease.Config{TTL: 10 * time.Second})
			nodes = append(nodes, n)
			dones = append(dones, minting(n, led.HolderOf("node "+string(rune('A'+i)), n)))
		}
		px.late.Store(int64(lateAnswers))
		time.Sleep(12 * time.Second)
		px.late.Store(0)
		for i, n := range nodes {
			select {
			case err := <-dones[i]:
				t.Fatalf("node %d stopped while answers were late: %v", i, err)
			default:
			}
			if err := n.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			<-dones[i]
		}
		led.Check(t)
	})
}

// fill writes about mib MiB of values under /fill/, which stay: a
// defragmentation copies every live key into a new file, so that it takes
// time in proportion to what the member holds.
func fill(t *testing.T, c *clientv3.Client, mib int) {
	t.Helper()
	value := strings.Repeat("x", 1<<20)
	for i := range mib {
		if _, err := c.Put(context.Background(), "/fill/"+pad7(uint32(i)), value); err != nil {
			t.Fatal(err)
		}
	}
}

// defragmentEach compacts the store to its current revision and then
// defragments each member in turn, as an operator's maintenance does: a
// member being defragmented answers nothing until it is done.
func defragmentEach(t *testing.T, c *cluster, admin *clientv3.Client) {
	t.Helper()
	resp, err := admin.Get(context.Background(), "/")
	if err != nil {
		t.Fatal(err)
	}
	_, err = admin.Compact(context.Background(), resp.Header.Revision, clientv3.WithCompactPhysical())
	if err != nil && !errors.Is(err, rpctypes.ErrCompacted) { // nothing written since the last round
		t.Fatal(err)
	}
	for i, m := range c.members {
		// A defragmentation blocks the member's applies; on the leader,
		// that holds up every renewal of the cluster, and a lease not
		// renewed for its TTL is lost (fail closed, as it must). So, as
		// docs/fleet.md tells operators, leadership moves to another
		// member before the leader is defragmented.
		st, err := admin.Status(context.Background(), m.endpoint)
		if err != nil {
			t.Fatal(err)
		}
		if st.Leader == st.Header.MemberId {
			next := c.members[(i+1)%len(c.members)]
			to, err := admin.Status(context.Background(), next.endpoint)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := newClient(t, m.endpoint).MoveLeader(context.Background(), to.Header.MemberId); err != nil {
				t.Fatalf("moving leadership from %s to %s: %v", m.name, next.name, err)
			}
			t.Logf("moved leadership from %s to %s", m.name, next.name)
		}
		began := time.Now()
		if _, err := admin.Defragment(context.Background(), m.endpoint); err != nil {
			t.Fatalf("defragmenting %s: %v", m.name, err)
		}
		t.Logf("defragmented %s in %v", m.name, time.Since(began).Round(time.Millisecond))
	}
}

// TestDefragmentationIsRiddenOut: the store is compacted and each member of
// a three-member cluster defragmented in turn (the leader after moving
// leadership away, as operators do) while nodes mint through all three.
// None stops, and every ID is unique.
func TestDefragmentationIsRiddenOut(t *testing.T) {
	t.Parallel()
	c := startClusterWith(t, 3, func(cfg *embed.Config) { cfg.UnsafeNoFsync = false })
	var endpoints []string
	for _, m := range c.members {
		endpoints = append(endpoints, m.endpoint)
	}
	admin := newClient(t, endpoints...)
	fill(t, admin, fillMiB)
	var led ledger
	var nodes []*nodelease.Node
	var dones []<-chan error
	for i := range 2 {
		n := acquire(t, etcdnode.StoreOf(newClient(t, endpoints...)), nodelease.Config{TTL: 10 * time.Second})
		nodes = append(nodes, n)
		dones = append(dones, minting(n, led.HolderOf("node "+string(rune('A'+i)), n)))
	}
	defragmentEach(t, c, admin)
	time.Sleep(3 * time.Second) // a raise of the bound after the last
	for i, n := range nodes {
		select {
		case err := <-dones[i]:
			t.Fatalf("node %d stopped: %v", i, err)
		default:
		}
		if err := n.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		<-dones[i]
	}
	led.Check(t)
}

// TestCLIThroughLateAnswers: gen -etcd -stream while etcd's answers come
// lateAnswers late, from before the first ID and for two TTLs after. It
// must mint on, never report lost data, and give its node ID back on
// SIGINT.
func TestCLIThroughLateAnswers(t *testing.T) {
	bin, srv := startCLITest(t)
	px, viaProxy := startProxy(t, srv.endpoint)
	direct := newClient(t, srv.endpoint)
	px.late.Store(int64(lateAnswers))
	g := startStreamingGen(t, bin, viaProxy, "-etcd-ttl", "10s")
	for began := time.Now(); time.Since(began) < 20*time.Second; {
		before := len(g.stdout.String())
		g.waitUntil(t, 10*time.Second, "printing IDs", func() bool { return len(g.stdout.String()) > before })
		time.Sleep(500 * time.Millisecond)
	}
	if s := g.stderr.String(); s != "" {
		t.Fatalf("stderr while answers were late: %q", s)
	}
	px.late.Store(0)
	g.interrupt(t, syscall.SIGINT)
	g.checkIDs(t)
	checkStderr(t, "late answers", g.stderr.String())
	if held := holderKeys(t, direct, "/scru64/"); len(held) != 0 {
		t.Errorf("the node ID was not given back: %q", held)
	}
}

// TestCLIThroughDefragmentation: gen -etcd -stream with the three members'
// endpoints while the store is compacted and each member defragmented. It
// must mint on, say nothing, and give its node ID back on SIGINT.
func TestCLIThroughDefragmentation(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command-line tool")
	}
	bin := buildCLI(t)
	// Members that sync their writes, as production ones do: a
	// defragmentation then holds a member for long enough (2 to 6 s here
	// under the race detector) that requests through it time out.
	c := startClusterWith(t, 3, func(cfg *embed.Config) { cfg.UnsafeNoFsync = false })
	var endpoints []string
	for _, m := range c.members {
		endpoints = append(endpoints, m.endpoint)
	}
	admin := newClient(t, endpoints...)
	fill(t, admin, fillMiB)
	g := startStreamingGen(t, bin, strings.Join(endpoints, ","), "-etcd-ttl", "10s")
	// Past gen's run-up (see waitRunUp), when its IDs are held by the
	// clock and it writes its record every 2.5 s or so: a few rounds, so
	// that some of those writes meet a member busy defragmenting.
	g.waitRunUp(t)
	for range 4 {
		defragmentEach(t, c, admin)
	}
	time.Sleep(3 * time.Second)
	if s := g.stderr.String(); s != "" {
		t.Fatalf("stderr after defragmentation: %q", s)
	}
	g.interrupt(t, syscall.SIGINT)
	g.checkIDs(t)
	checkStderr(t, "defragmentation", g.stderr.String())
	if held := holderKeys(t, admin, "/scru64/"); len(held) != 0 {
		t.Errorf("the node ID was not given back: %q", held)
	}
}

// TestCLIEndsSoonAfterFailing: once minting fails (a lost lease behind a
// partition; a stall whose writes get no answer, given up after 30 s), gen
// tries to give its node ID back through the same silence. It must say
// within a second what it waits for and exit within a few seconds, not
// fall silent for etcd's 30-s bound as it did (30 s after "lease lost", 25
// s after "gave up").
func TestCLIEndsSoonAfterFailing(t *testing.T) {
	bin, srv := startCLITest(t)
	const (
		saysWithin = time.Second
		endsWithin = 3*time.Second + time.Second // failedGiveBack and then some
	)
	check := func(t *testing.T, g *streamingGen, failure string) {
		t.Helper()
		g.waitUntil(t, 60*time.Second, "reporting "+failure, func() bool { return strings.Contains(g.stderr.String(), failure) })
		failed := time.Now()
		g.waitUntil(t, saysWithin, "saying what it waits for", func() bool {
			_, after, _ := strings.Cut(g.stderr.String(), failure)
			return strings.Contains(after, "waiting up to") || isClosed(g.exited)
		})
		select {
		case <-g.exited:
		case <-time.After(endsWithin):
			t.Fatalf("gen still runs %v after %q; stderr %q", time.Since(failed).Round(time.Millisecond), failure, g.stderr.String())
		}
		t.Logf("exit %v after %q: %v; stderr %q", time.Since(failed).Round(time.Millisecond), failure, g.waitErr, g.stderr.String())
		checkExit(t, failure, g.waitErr, 1)
		checkStderr(t, failure, g.stderr.String())
		g.checkIDs(t)
	}
	t.Run("lease lost", func(t *testing.T) {
		t.Parallel()
		px, endpoint := startProxy(t, srv.endpoint)
		g := startStreamingGen(t, bin, endpoint, "-etcd-ttl", "3s")
		px.cut.Store(true)
		check(t, g, "lease lost")
	})
	t.Run("the stall's wait runs out", func(t *testing.T) {
		t.Parallel()
		px, endpoint := startProxy(t, srv.endpoint)
		prefix := "/gaveup/"
		c := newClient(t, srv.endpoint)
		var held *rule
		g := startStalledGen(t, bin, endpoint, c, func() {
			// The record's writes get no answer; keep-alives do.
			held = px.addRule(&rule{match: func(path string, body []byte) bool {
				return strings.HasSuffix(path, "/Txn") && bytes.Contains(body, []byte(prefix+"last/"))
			}, action: hold})
		}, nil, "-etcd-prefix", prefix)
		defer px.deliverHeld(held)
		check(t, g.streamingGen, "gave up after waiting")
	})
}

// isClosed reports whether c is closed.
func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// TestAcquireRidesOutAnElection: for 2.5 s every request to set the realm's
// size is answered "no leader" at once, as every member answers while the
// cluster elects a leader (an election timeout or two). Acquire must wait
// it out within its context, not use its attempts up in a second (as it
// did: TestFailoverToTheMajority's "no leader" failed so under load).
func TestAcquireRidesOutAnElection(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	s := &electingStore{transientStore: transientStore{etcdnode.StoreOf(newClient(t, srv.endpoint))}, until: time.Now().Add(2500 * time.Millisecond)}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	n, err := nodelease.Acquire(ctx, s, withDefaults(nodelease.Config{Prefix: "/election/", TTL: steadyTTL}))
	if err != nil {
		t.Fatalf("Acquire %v into a 2.5-s election, after %d refusals: %v", time.Since(start).Round(time.Millisecond), s.refused.Load(), err)
	}
	defer closeSoon(n)
	if k := s.refused.Load(); k > 20 {
		t.Errorf("%d requests refused in 2.5 s: want a wait between them", k)
	}
	t.Logf("acquired %v in, after %d refusals", time.Since(start).Round(time.Millisecond), s.refused.Load())
}

// TestBoundRidesOutAnElection: the writes of a minting node's continuity
// record are answered "no leader" for 1.5 s from the first write after
// the trouble begins, as every member answers while a cluster elects a
// leader (an election timeout or two). The bound loop writes when half
// its lead (2.56 s) is left, so the node has time to wait the election
// out: it must neither fail a Generate nor report a stall (Stalled), and
// its next write after the election must apply. On the bound loop of
// before, the round's three attempts were all refused within a
// millisecond and the node was stalled for the rest of the election.
func TestBoundRidesOutAnElection(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	s := &electingWrites{transientStore: transientStore{etcdnode.StoreOf(newClient(t, srv.endpoint))}, span: 1500 * time.Millisecond}
	n, err := tryAcquire(s, nodelease.Config{Prefix: "/election-writes/"})
	if err != nil {
		t.Fatal(err)
	}
	defer closeSoon(n)
	s.arm()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	minted := 0
	for deadline := time.Now().Add(4 * boundWrites); s.applied.Load() == 0; <-tick.C {
		if time.Now().After(deadline) {
			t.Fatalf("no write applied within %v of the trouble (%d refused, election over: %v)",
				4*boundWrites, s.refused.Load(), s.over())
		}
		if _, err := n.Generate(); err != nil {
			t.Fatalf("Generate %v into the trouble, after %d IDs and %d refused writes: %v",
				s.since(), minted, s.refused.Load(), err)
		}
		minted++
		if err := n.Stalled(); err != nil {
			t.Fatalf("stalled %v into the trouble, after %d refused writes: %v", s.since(), s.refused.Load(), err)
		}
	}
	switch k := s.refused.Load(); {
	case k < 2:
		t.Fatalf("%d writes refused: the election was not met", k)
	case k > 20:
		t.Errorf("%d writes refused in 1.5 s: want a wait between them", k)
	}
	t.Logf("%d IDs minted; %d writes refused; the next applied %v into the trouble", minted, s.refused.Load(), s.since())
}

// boundWrites is how often a node minting at the clock writes its
// continuity record: when half its lead of 20 ticks of 256 ms is left.
const boundWrites = 10 * 256 * time.Millisecond

// electingWrites answers WriteRecord "no leader" for span from the first
// write after arm, and counts the writes it refused and those that
// applied after.
type electingWrites struct {
	transientStore
	span time.Duration

	mu      sync.Mutex
	armed   bool
	began   time.Time // the first write after arm; zero before
	refused atomic.Int32
	applied atomic.Int32
}

func (s *electingWrites) arm() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.armed = true
}

// since returns how long ago the trouble began (0 before).
func (s *electingWrites) since() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.began.IsZero() {
		return 0
	}
	return time.Since(s.began).Round(time.Millisecond)
}

// over reports whether the trouble has begun and ended.
func (s *electingWrites) over() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.began.IsZero() && time.Since(s.began) >= s.span
}

func (s *electingWrites) WriteRecord(ctx context.Context, w nodelease.RecordWrite) (nodelease.RecordResult, error) {
	s.mu.Lock()
	if s.armed && s.began.IsZero() {
		s.began = time.Now()
	}
	during := s.armed && time.Since(s.began) < s.span
	after := s.armed && !during
	s.mu.Unlock()
	if during {
		s.refused.Add(1)
		return nodelease.RecordResult{}, rpctypes.ErrNoLeader
	}
	res, err := s.Store.WriteRecord(ctx, w)
	if after && err == nil && res.Written {
		s.applied.Add(1)
	}
	return res, err
}

// electingStore answers PutIfAbsent "no leader" until until.
type electingStore struct {
	transientStore
	until   time.Time
	refused atomic.Int32
}

// transientStore is an etcdnode Store to wrap, which keeps its Transient.
type transientStore struct{ nodelease.Store }

func (s transientStore) Transient(err error) bool {
	return s.Store.(nodelease.Transient).Transient(err)
}

func (s *electingStore) PutIfAbsent(ctx context.Context, key, value string) (string, nodelease.Header, error) {
	if time.Now().Before(s.until) {
		s.refused.Add(1)
		return "", nodelease.Header{}, rpctypes.ErrNoLeader
	}
	return s.Store.PutIfAbsent(ctx, key, value)
}
