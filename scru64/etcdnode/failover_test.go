package etcdnode_test

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fastid/scru128/internal/nodelease"
	"github.com/fastid/scru128/scru64/etcdnode"
)

// TestFailoverToTheMajority runs nodes against a cluster of three members
// while one of them is in trouble (see cluster.troubles): the leader cut
// off from the other two, so that it answers from what it knew until it
// steps down, and then has no leader; partitioned from everyone, clients
// included; or reachable but never answering. The nodes' clients
// know all three endpoints, the troubled one first. A node that was
// minting before the trouble goes on minting through it, nodes acquire
// node IDs during it, and every ID stays unique.
func TestFailoverToTheMajority(t *testing.T) {
	t.Parallel()
	c := startCluster(t, 3)
	px, endpoints := c.front(0)
	// open returns a Store over a client of the three endpoints, connected
	// to each (gRPC connects lazily, and a client that first connects to
	// a member in trouble leaves it out: no test of failing over).
	open := func() nodelease.Store {
		t.Helper()
		before := px.accepted.Load()
		client := newClient(t, endpoints...)
		for deadline := time.Now().Add(5 * time.Second); px.accepted.Load() == before; {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			client.Get(ctx, "/warm-up")
			cancel()
			if time.Now().After(deadline) {
				t.Fatal("the client did not connect to the first member")
			}
		}
		time.Sleep(100 * time.Millisecond) // its handshake
		return etcdnode.StoreOf(client)
	}
	const runFor = 2 * steadyTTL // two lease deadlines
	var led ledger
	for _, sc := range c.troubles(0, px) {
		t.Run(sc.name, func(t *testing.T) {
			cfg := nodelease.Config{Prefix: "/failover/", TTL: steadyTTL}
			before := acquire(t, open(), cfg)
			mintingBefore := mintingEvery(before, led.HolderOf(sc.name+": before", before), 1)
			// The clients of the nodes that acquire during the trouble
			// connect before it: a client that connects during it never
			// gets through to the troubled member and leaves it out.
			stores := []nodelease.Store{open(), open(), open()}
			sc.start(t)
			defer sc.stop(t)
			start := time.Now()
			// Nodes that acquire during the trouble, each over a client
			// of its own: between them, each step of Acquire meets the
			// troubled member.
			var during []<-chan error
			for i, store := range stores {
				ctx, cancel := context.WithTimeout(context.Background(), 2*steadyTTL)
				n, err := nodelease.Acquire(ctx, store, withDefaults(cfg))
				cancel()
				if err != nil {
					t.Fatalf("Acquire %d, %v into the trouble: %v", i, time.Since(start).Round(time.Millisecond), err)
				}
				t.Cleanup(func() { closeSoon(n) })
				during = append(during, mintingEvery(n, led.HolderOf(sc.name+": during", n), 1))
			}
			t.Logf("3 nodes acquired in %v", time.Since(start).Round(time.Millisecond))
			time.Sleep(time.Until(start.Add(runFor)))
			for i, done := range append(during, mintingBefore) {
				select {
				case err := <-done:
					t.Fatalf("node %d stopped minting %v into the trouble: %v", i, time.Since(start).Round(time.Millisecond), err)
				default:
				}
			}
			if err := before.Err(); err != nil {
				t.Fatalf("the node acquired before the trouble: %v", err)
			}
		})
	}
	led.Check(t)
}

// TestCLIFailsOverToTheOtherMembers runs gen -etcd A,B,C against a
// three-member cluster whose first member, A, is in trouble while B and C
// form a majority: A, the leader, is cut off from B and C (it answers
// clients, from what it knew, until it steps down, and then has no
// leader), A is partitioned from everyone, or A hangs (its client port
// takes connections and never answers). Acquiring must succeed with A
// in trouble from the start, and a run that was minting when the trouble
// began must go on minting for two TTLs, then give its node ID back on
// SIGINT. The run's stderr must stay empty: no stall while a majority
// answers.
//
// The trouble begins once the run's IDs are held back by the clock (see
// waitRunUp). Until then a streaming gen runs its IDs ahead of the clock,
// and every bound of the continuity record is on its path: the record may
// lead the last ID by 20 ticks and no more, so each 20 ticks minted wait
// for a write, and a write that the troubled member holds for a request
// timeout or two is a stall that gen rightly reports. Held by the clock,
// the run has 2.5 to 5 s of bound ahead of it, more than an election.
func TestCLIFailsOverToTheOtherMembers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command-line tool")
	}
	bin := buildCLI(t)
	c := startCluster(t, 3)
	px, endpoints := c.front(0)
	eps := strings.Join(endpoints, ",")
	direct := newClient(t, c.members[1].endpoint)
	const ttl = 3 * time.Second
	for _, tc := range c.troubles(0, px) {
		// Each part starts with the cluster whole, and heals it after.
		part := func(name string, f func(t *testing.T)) {
			t.Run(tc.name+" "+name, func(t *testing.T) {
				defer tc.stop(t)
				f(t)
			})
		}
		part("from the start", func(t *testing.T) {
			tc.start(t)
			start := time.Now()
			g := startStreamWith(t, bin, nil, "-etcd", eps, "-etcd-prefix", "/failover/", "-etcd-ttl", "3s")
			g.waitUntil(t, 15*time.Second, "printing IDs", func() bool { return strings.Count(g.stdout.String(), "\n") >= 100 })
			t.Logf("printing after %v", time.Since(start).Round(time.Millisecond))
			g.interrupt(t, syscall.SIGINT)
			checkStderr(t, tc.name, g.stderr.String())
			if g.stderr.String() != "" {
				t.Errorf("stderr %q", g.stderr.String())
			}
			if held := holderKeys(t, direct, "/failover/"); len(held) != 0 {
				t.Errorf("the node ID was not given back: %q", held)
				waitFree(t, direct, "/failover/")
			}
		})
		part("while minting", func(t *testing.T) {
			g := startStreamingGen(t, bin, eps, "-etcd-ttl", "3s")
			g.waitRunUp(t)
			tc.start(t)
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
			if held := holderKeys(t, direct, "/scru64/"); len(held) != 0 {
				t.Errorf("the node ID was not given back: %q", held)
				waitFree(t, direct, "/scru64/")
			}
		})
	}
}

// waitRunUp waits until g's IDs are held back by the clock: a gen that
// prints as fast as it can runs its IDs ahead of the clock by counter
// overflows until they are the rollback allowance (10 s) ahead, and then
// mints as the clock moves.
func (g *streamingGen) waitRunUp(t *testing.T) {
	t.Helper()
	g.waitUntil(t, 10*time.Second, "running its IDs 9 s ahead of the clock", func() bool {
		return time.Until(g.lastID(t).Time()) > 9*time.Second
	})
}
