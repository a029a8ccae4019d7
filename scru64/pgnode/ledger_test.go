package pgnode_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fastid/scru128/internal/nodelease/leasetest"
	"github.com/fastid/scru128/scru64"
	"github.com/fastid/scru128/scru64/pgnode"
)

// ledger records every ID a scenario minted, by holder, and checks that
// none was issued twice and that each holder of a node ID minted above the
// ones before it (see leasetest.Ledger).
type ledger = leasetest.Ledger

// holder is one tenure of a node ID: a Node from Acquire to its end.
type holder = leasetest.Holder

// minting mints from n into h in the background until n is done, pausing
// briefly every 64 IDs so that the loop leaves a core for the server, and
// returns a channel that receives n's error. A stall (ErrStalled: writes
// of the record fail while the lease holds) is waited out, as a caller
// that hears it would: the node is not done.
func minting(n *pgnode.Node, h *holder) <-chan error { return mintingEvery(n, h, 64) }

// mintingEvery is minting that pauses every batch IDs: 1 for a node that
// must mint on for a while without taking a core from the server.
func mintingEvery(n *pgnode.Node, h *holder, batch int) <-chan error {
	return leasetest.Minting(n.Generate, h, batch, pgnode.ErrStalled)
}

// shortTTL is the lease TTL of the tests that wait for a lease to be lost
// or to expire: short, so that they are quick (deadline 1.55 s after a
// keep-alive request, keep-alives every 0.5 s).
const shortTTL = 2 * time.Second

// steadyTTL is the TTL of the other tests, long enough (deadline 4.25 s
// after a keep-alive request) that a loaded machine, where a keep-alive
// may wait seconds for a core, does not make a node fail closed in a test
// that is about something else.
const steadyTTL = 5 * time.Second

// realm is a test's place on a server: a pool and a schema set up there.
type realm struct {
	db     *pgxpool.Pool
	schema string
}

// newRealm sets up a schema on the server at dsn and opens a pool to it;
// options are the test's defaults, which those given to acquire follow.
func newRealm(t testing.TB, dsn string) realm {
	t.Helper()
	return realm{db: newPool(t, dsn, "node"), schema: newSchema(t, dsn)}
}

// on returns the realm with another pool, to the same schema (another
// process, or the same one through a proxy).
func (r realm) on(t testing.TB, dsn, name string) realm {
	return realm{db: newPool(t, dsn, name), schema: r.schema}
}

// via returns the realm with a pool of its own through the proxy p. The
// proxy is closed before that pool when the test ends: a pool waits for
// its connections to close, which through a cut proxy takes long.
func (r realm) via(t testing.TB, p *proxy, name string) realm {
	t.Helper()
	db := newPool(t, withHost(t, r.db.Config().ConnConfig.ConnString(), p.addr), name)
	t.Cleanup(p.close)
	return realm{db: db, schema: r.schema}
}

// tryAcquire acquires a node in the realm's schema, with TTL steadyTTL
// unless opts set another.
func (r realm) tryAcquire(opts ...pgnode.Option) (*pgnode.Node, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return pgnode.Acquire(ctx, r.db, append([]pgnode.Option{pgnode.WithSchema(r.schema), pgnode.WithTTL(steadyTTL)}, opts...)...)
}

// acquire is tryAcquire that fails the test on an error and closes the
// node when the test ends.
func (r realm) acquire(t testing.TB, opts ...pgnode.Option) *pgnode.Node {
	t.Helper()
	n, err := r.tryAcquire(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeSoon(n) })
	return n
}

// acquireWhenFree acquires, retrying while the node ID is held, for up to
// within.
func (r realm) acquireWhenFree(t testing.TB, within time.Duration, opts ...pgnode.Option) *pgnode.Node {
	t.Helper()
	for deadline := time.Now().Add(within); ; {
		n, err := r.tryAcquire(opts...)
		switch {
		case err == nil:
			t.Cleanup(func() { closeSoon(n) })
			return n
		case !errors.Is(err, pgnode.ErrNoFreeNodeID):
			t.Fatal(err)
		case time.Now().After(deadline):
			t.Fatalf("the node ID was not free within %v", within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// record reads a node ID's continuity record of the default realm with
// the realm's pool, as the schema's owner.
func (r realm) record(t testing.TB, nodeID uint32) (scru64.ID, bool) {
	return r.recordOf(t, pgnode.DefaultRealm, nodeID)
}

// recordOf reads a node ID's continuity record in a named realm.
func (r realm) recordOf(t testing.TB, realmName string, nodeID uint32) (scru64.ID, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var value string
	err := r.db.QueryRow(ctx, "SELECT value FROM "+pgx.Identifier{r.schema, "keys"}.Sanitize()+" WHERE key = $1",
		recordKey(realmName, nodeID)).Scan(&value)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false
	}
	if err != nil {
		t.Fatalf("reading the record of node ID %d: %v", nodeID, err)
	}
	id, err := scru64.Parse(value)
	if err != nil {
		t.Fatalf("record of node ID %d = %q: %v", nodeID, value, err)
	}
	return id, true
}

// recordKey returns the key of a node ID's continuity record in a realm.
func recordKey(realmName string, nodeID uint32) string {
	return fmt.Sprintf("%s/last/%07d", realmName, nodeID)
}

// holderKey returns the key of a node ID's holder in a realm.
func holderKey(realmName string, nodeID uint32) string {
	return fmt.Sprintf("%s/node/%07d", realmName, nodeID)
}

// closeSoon closes n, giving up after a second (its connection may be cut).
func closeSoon(n *pgnode.Node) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	n.Close(ctx)
}

// takeOver returns the options of a node that takes over n's node ID, with
// the wall clock wall (nil for the system clock).
func takeOver(n *pgnode.Node, wall func() time.Time) []pgnode.Option {
	return []pgnode.Option{pgnode.WithNodeID(n.NodeID()), pgnode.WithNodeIDSize(n.NodeIDSize()), pgnode.WithClock(wall)}
}

// shifted returns a wall clock that runs d ahead of time.Now (behind if d
// is negative).
func shifted(d time.Duration) func() time.Time {
	return func() time.Time { return time.Now().Add(d) }
}

// mint returns count IDs from n, failing the test on an error.
func mint(t testing.TB, n *pgnode.Node, count int) []scru64.ID {
	t.Helper()
	ids := make([]scru64.ID, count)
	for i := range ids {
		id, err := n.GenerateOrSleep()
		if err != nil {
			t.Fatalf("ID %d: %v", i, err)
		}
		ids[i] = id
	}
	return ids
}

// waitDone waits until n stops minting, for up to within, and returns its
// error.
func waitDone(t testing.TB, n *pgnode.Node, within time.Duration) error {
	t.Helper()
	select {
	case <-n.Done():
		return n.Err()
	case <-time.After(within):
		t.Fatalf("the node still mints %v later", within)
		return nil
	}
}
