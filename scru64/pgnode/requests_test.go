package pgnode_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fastid/scru128/scru64/pgnode"
)

// The scenarios of the protocol's requests as PostgreSQL sees them: each
// is given the TTL's safety margin at first (0.75 s with steadyTTL), a
// step of Acquire or Close that fails is sent again, and a renewal that is
// slow to answer has another sent beside it. Every repeat must be safe.

// TestHedgedRenewalsOfOneLease: renewals of one lease at once, as a node
// sends when the first is slow, each renew it from its own statement and
// answer its TTL, without deadlock or error, and leave the lease a whole
// TTL ahead. A node whose renewals each take a second, more than its
// request timeout, sends a second beside the first, and keeps its lease
// and mints on.
func TestHedgedRenewalsOfOneLease(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	r := newRealm(t, dsn)
	ctx := context.Background()
	store := pgnode.StoreOf(r.db, r.schema)
	lease, granted, err := store.Grant(ctx, 5)
	if err != nil || granted != 5 {
		t.Fatalf("Grant: %d, %v", granted, err)
	}
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if ttl, _, err := store.KeepAliveOnce(ctx, lease); err != nil || ttl != 5 {
				t.Errorf("a renewal among 16 at once: %d, %v", ttl, err)
			}
		}()
	}
	wg.Wait()
	var left float64
	if err := r.db.QueryRow(ctx, "SELECT extract(epoch FROM expires_at - clock_timestamp())::float8 FROM "+
		pgx.Identifier{r.schema, "leases"}.Sanitize()+" WHERE id = $1", lease).Scan(&left); err != nil || left < 4 || left > 5 {
		t.Fatalf("after 16 renewals at once, the lease has %v s left (%v), want about 5", left, err)
	}

	px, _ := startProxy(t, hostOf(t, dsn))
	var led ledger
	n := r.via(t, px, "slow-renewals").acquire(t)
	slowRenewals := px.addRule(&rule{match: calls("keep_alive"), action: slow, after: time.Second})
	done := mintingEvery(n, led.HolderOf("slow renewals", n), 1)
	time.Sleep(3 * steadyTTL / 2)
	select {
	case err := <-done:
		t.Fatalf("with renewals answered in 1 s, the node stopped: %v", err)
	default:
	}
	slowRenewals.mu.Lock()
	overlap, sent := slowRenewals.overlap, slowRenewals.acted
	slowRenewals.mu.Unlock()
	if overlap < 2 {
		t.Fatalf("%d renewals in %v, at most %d at once: no renewal was hedged", sent, 3*steadyTTL/2, overlap)
	}
	t.Logf("%d renewals in %v, up to %d at once", sent, 3*steadyTTL/2, overlap)
	if err := n.Close(ctx); err != nil {
		t.Fatal(err)
	}
	<-done
	next := r.acquire(t, takeOver(n, nil)...)
	led.HolderOf("next", next).Add(mint(t, next, 100)...)
	led.Check(t)
}

// TestShortPausesAreRiddenOut pauses the link between a node and the
// server for 1.2 s, shorter than the node's deadline leaves: during
// Acquire, whose first statements time out and are sent again while the
// link delivers the first ones late (a grant, an acquire statement), and
// twice while the node mints. Acquire succeeds with one node ID held by
// its lease, and the node mints on.
func TestShortPausesAreRiddenOut(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	r := newRealm(t, dsn)
	px, _ := startProxy(t, hostOf(t, dsn))
	proxied := r.via(t, px, "paused")
	var led ledger
	ctx := context.Background()
	px.pause()
	acquired := make(chan *pgnode.Node, 1)
	go func() {
		n, err := proxied.tryAcquire()
		if err != nil {
			t.Errorf("Acquire through a pause of 1.2 s: %v", err)
		}
		acquired <- n
	}()
	time.Sleep(1200 * time.Millisecond)
	px.resume()
	n := <-acquired
	if n == nil {
		return
	}
	t.Cleanup(func() { closeSoon(n) })
	time.Sleep(time.Second) // late statements have been delivered
	if held := r.keysOf(t, n.LeaseID()); !slices.Equal(held, []string{holderKey(pgnode.DefaultRealm, n.NodeID())}) {
		t.Fatalf("node ID %d, and its lease holds %q", n.NodeID(), held)
	}
	done := mintingEvery(n, led.HolderOf("paused", n), 1)
	for range 2 {
		time.Sleep(time.Second)
		px.pause()
		time.Sleep(1200 * time.Millisecond)
		px.resume()
	}
	time.Sleep(time.Second)
	select {
	case err := <-done:
		t.Fatalf("the node stopped: %v", err)
	default:
	}
	if err := n.Close(ctx); err != nil {
		t.Fatal(err)
	}
	<-done
	next := r.acquire(t, takeOver(n, nil)...)
	led.HolderOf("next", next).Add(mint(t, next, 100)...)
	led.Check(t)
}

// TestCloseRetriesLostAnswers: Close's write of the record and its
// revocation are each committed by the server but their answers are lost
// (the connection cut after the commit). Close sends each again, finds
// the write its own, and succeeds: the record is the last ID, the node ID
// free.
func TestCloseRetriesLostAnswers(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	r := newRealm(t, dsn)
	px, _ := startProxy(t, hostOf(t, dsn))
	n := r.via(t, px, "closing").acquire(t)
	mint(t, n, 100)
	write := px.addRule(&rule{match: writesRecord(n.NodeID()), action: loseAnswer, count: 1})
	revoke := px.addRule(&rule{match: calls("revoke_lease"), action: loseAnswer, count: 1})
	if err := n.Close(context.Background()); err != nil {
		t.Fatalf("Close with lost answers: %v", err)
	}
	if write.actedOn() != 1 || revoke.actedOn() != 1 {
		t.Fatalf("answers lost: %d of a write, %d of a revocation; want one each", write.actedOn(), revoke.actedOn())
	}
	if record, ok := r.record(t, n.NodeID()); !ok || record != n.NodeSpec().NodePrev() {
		t.Fatalf("record after Close = %v (present %v), want the last ID %v", record, ok, n.NodeSpec().NodePrev())
	}
	if held := r.keysOf(t, n.LeaseID()); len(held) != 0 {
		t.Fatalf("after Close, the lease still holds %q", held)
	}
	if next := r.acquire(t, takeOver(n, nil)...); next.NodeSpec().NodePrev() != n.NodeSpec().NodePrev() {
		t.Fatalf("the next holder continues after %v, want %v", next.NodeSpec().NodePrev(), n.NodeSpec().NodePrev())
	}
}

// TestStoreGrantsTTLsWithinBounds: the schema's grant refuses a TTL that
// no lease may have (below 1 s, past 9e9 s), grants the ones between as
// asked, and a renewal answers the TTL granted; a node leases with the
// longest, MaxTTL.
func TestStoreGrantsTTLsWithinBounds(t *testing.T) {
	t.Parallel()
	r := newRealm(t, sharedServer(t))
	ctx := context.Background()
	store := pgnode.StoreOf(r.db, r.schema)
	for _, ttl := range []int64{0, -1, 9_000_000_001, 1 << 62} {
		if lease, granted, err := store.Grant(ctx, ttl); err == nil {
			t.Errorf("Grant(%d) = lease %x, TTL %d; want an error", ttl, lease, granted)
		}
	}
	for _, ttl := range []int64{1, 10, 9_000_000_000} {
		lease, granted, err := store.Grant(ctx, ttl)
		if err != nil || granted != ttl {
			t.Fatalf("Grant(%d) = %d, %v", ttl, granted, err)
		}
		if renewed, _, err := store.KeepAliveOnce(ctx, lease); err != nil || renewed != ttl {
			t.Fatalf("a renewal of a lease of %d s = %d, %v", ttl, renewed, err)
		}
		if err := store.Revoke(ctx, lease); err != nil {
			t.Fatal(err)
		}
	}
	n := r.acquire(t, pgnode.WithTTL(pgnode.MaxTTL))
	mint(t, n, 100)
	if err := n.Close(ctx); err != nil {
		t.Fatal(err)
	}
}
