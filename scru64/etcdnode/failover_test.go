package etcdnode_test

import (
	"context"
	"testing"
	"time"

	"github.com/fastid/scru128/internal/nodelease"
	"github.com/fastid/scru128/scru64/etcdnode"
)

// TestFailoverToTheMajority runs nodes against a cluster of three members
// while one of them is in trouble: cut off from the other two, so that it
// has no leader and answers "etcdserver: no leader" (or nothing); cut off
// from everyone, clients included (a partition); or reachable but never
// answering (a hung member, or a stalled link to it). The nodes' clients
// know all three endpoints, the troubled one first. A node that was
// minting before the trouble goes on minting through it, nodes acquire
// node IDs during it, and every ID stays unique.
func TestFailoverToTheMajority(t *testing.T) {
	t.Parallel()
	c := startCluster(t, 3)
	px, viaProxy := startProxy(t, c.members[0].endpoint)
	// open returns a Store over a client of the three endpoints, connected
	// to each (gRPC connects lazily, and a client that first connects to
	// a member in trouble leaves it out: no test of failing over).
	open := func() nodelease.Store {
		t.Helper()
		before := px.accepted.Load()
		client := newClusterClient(t, c.endpoints(viaProxy))
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
	for _, sc := range []struct {
		name        string
		start, stop func()
	}{
		{"no leader", func() { c.isolate(0) }, c.heal},
		{"partitioned", func() { c.isolate(0); px.cut.Store(true) }, func() { px.cut.Store(false); c.heal() }},
		{"hangs", px.pause, px.resume},
	} {
		t.Run(sc.name, func(t *testing.T) {
			cfg := nodelease.Config{Prefix: "/failover/", TTL: steadyTTL}
			before := acquire(t, open(), cfg)
			mintingBefore := mintingEvery(before, led.holderOf(sc.name+": before", before), 1)
			// The clients of the nodes that acquire during the trouble
			// connect before it: a client that connects during it never
			// gets through to the troubled member and leaves it out.
			stores := []nodelease.Store{open(), open(), open()}
			sc.start()
			defer func() {
				sc.stop()
				c.waitLeader(0, 10*time.Second)
			}()
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
				during = append(during, mintingEvery(n, led.holderOf(sc.name+": during", n), 1))
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
	led.check(t)
}
