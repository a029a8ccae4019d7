package pgnode_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fastid/scru128/scru64/pgnode"
)

// The scenarios that PostgreSQL adds to etcd's: backends ended by the
// server, a failover, another cluster answering, skewed clocks, churn.

// TestTerminatedBackendsAreRiddenOut ends every backend of a node's pool
// with pg_terminate_backend, five times a second apart, while it mints:
// the pool reconnects, and the node goes on minting (a renewal that fails
// is retried at the next); its successor mints above it.
func TestTerminatedBackendsAreRiddenOut(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	r := newRealm(t, dsn)
	app := "victim_" + strconv.FormatUint(rand.Uint64(), 36)
	victim := r.on(t, dsn, app)
	var led ledger
	n := victim.acquire(t, pgnode.WithTTL(longTTL))
	h := led.HolderOf("victim", n)
	done := minting(n, h)
	ended := 0
	for range 5 {
		time.Sleep(time.Second)
		var count int
		if err := r.db.QueryRow(context.Background(),
			"SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1", app).Scan(&count); err != nil {
			t.Fatal(err)
		}
		ended += count
	}
	time.Sleep(time.Second)
	select {
	case err := <-done:
		t.Fatalf("the node stopped: %v", err)
	default:
	}
	if ended == 0 {
		t.Fatal("no backend of the node was found to end")
	}
	before := h.Max()
	time.Sleep(100 * time.Millisecond)
	if h.Max() == before {
		t.Fatal("the node no longer mints")
	}
	t.Logf("%d backends ended; the node minted on", ended)
	if err := n.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-done
	next := r.acquire(t, takeOver(n, nil)...)
	led.HolderOf("next", next).Add(mint(t, next, 1000)...)
	led.Check(t)
}

// TestFailoverToALaggingReplicaStopsTheNode: a node mints against a
// primary that streams to a replica; the replica stops (it lags), the node
// mints on, the primary crashes, and the replica is promoted and takes the
// primary's address. It lacks the node's last commits and has a new
// timeline: the node must stop with an error matching ErrDataLoss at its
// first statement to it. New nodes of the realm, started once the old
// holder's last tick has passed, mint above every ID it issued.
func TestFailoverToALaggingReplicaStopsTheNode(t *testing.T) {
	t.Parallel()
	primary := newCluster(t)
	r := newRealm(t, primary.dsn())
	replica := primary.replica()
	px, _ := startProxy(t, primary.addr()) // the address the fleet knows the primary by
	var led ledger
	n := r.via(t, px, "fleet").acquire(t, pgnode.WithTTL(longTTL))
	old := led.HolderOf("old", n)
	done := minting(n, old)
	time.Sleep(time.Second)
	replica.stop() // from here on, it lags
	time.Sleep(3 * time.Second)
	primary.crash()
	replica.mustStart()
	replica.exec("SELECT pg_promote()")
	px.setTarget(replica.addr())
	px.dropConnections()
	failedOver := time.Now()
	select {
	case err := <-done:
		if !errors.Is(err, pgnode.ErrDataLoss) {
			t.Fatalf("the node stopped with %v, want an error matching ErrDataLoss", err)
		}
		t.Logf("the node stopped %v after the failover: %v", time.Since(failedOver), err)
	case <-time.After(2 * longTTL):
		t.Fatal("the node still mints against a promoted replica that lacks its last commits")
	}
	time.Sleep(time.Until(old.Max().Time().Add(300 * time.Millisecond))) // past the old holder's last tick
	promoted := r.via(t, px, "after failover")
	next := promoted.acquireWhenFree(t, 3*steadyTTL, takeOver(n, nil)...)
	led.HolderOf("next", next).Add(mint(t, next, 1000)...)
	led.Check(t)
}

// TestAnotherClusterAnswersStopsTheNode: the address a node knows its
// database by moves to another cluster, set up the same: the node must
// stop with an error matching ErrDataLoss at its first statement there.
func TestAnotherClusterAnswersStopsTheNode(t *testing.T) {
	t.Parallel()
	first, other := newCluster(t), newCluster(t)
	r := newRealm(t, first.dsn())
	if err := pgnode.Setup(context.Background(), newPool(t, other.dsn(), "setup"), pgnode.WithSchema(r.schema)); err != nil {
		t.Fatal(err)
	}
	px, _ := startProxy(t, first.addr())
	n := r.via(t, px, "fleet").acquire(t)
	mint(t, n, 100)
	px.setTarget(other.addr())
	px.dropConnections()
	if err := waitDone(t, n, 2*steadyTTL); !errors.Is(err, pgnode.ErrDataLoss) {
		t.Fatalf("the node stopped with %v, want an error matching ErrDataLoss", err)
	} else {
		t.Logf("the node stopped: %v", err)
	}
}

// skewedClock returns a wall clock that starts offset from time.Now and
// runs at rate times its pace.
func skewedClock(offset time.Duration, rate float64) func() time.Time {
	start := time.Now()
	return func() time.Time {
		return start.Add(offset + time.Duration(float64(time.Since(start))*rate))
	}
}

// TestSkewedClocksHandOver hands one node ID over between nodes whose
// clocks are wrong, as far as the rollback allowance lets them be: one
// starts 2 s ahead and runs twice as fast, one starts 3 s behind and runs
// half as fast, one is right, one is 2 s behind, and one starts 1 s ahead
// and runs twice as fast; by Close and by crash, in turn. Each holder mints
// at once, above every earlier one.
func TestSkewedClocksHandOver(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	r := newRealm(t, dsn)
	var led ledger
	clocks := []struct {
		name string
		now  func() time.Time
	}{
		{"fast", skewedClock(2*time.Second, 2)},
		{"slow", skewedClock(-3*time.Second, 0.5)},
		{"right", skewedClock(0, 1)},
		{"behind", skewedClock(-2*time.Second, 1)},
		{"fast again", skewedClock(time.Second, 2)},
	}
	for i, c := range clocks {
		px, _ := startProxy(t, hostOf(t, dsn))
		opts := []pgnode.Option{pgnode.WithNodeIDSize(1), pgnode.WithNodeID(0), pgnode.WithClock(c.now), pgnode.WithTTL(shortTTL)}
		n := r.via(t, px, c.name).acquireWhenFree(t, 3*shortTTL, opts...)
		h := led.HolderOf(c.name, n)
		start := time.Now()
		if id, err := n.Generate(); err != nil {
			t.Fatalf("%s: the first Generate: %v", c.name, err)
		} else {
			h.Add(id)
		}
		if d := time.Since(start); d > 500*time.Millisecond {
			t.Errorf("%s: the first Generate took %v", c.name, d)
		}
		done := minting(n, h)
		time.Sleep(1500 * time.Millisecond)
		if i%2 == 0 {
			if err := n.Close(context.Background()); err != nil {
				t.Fatalf("%s: Close: %v", c.name, err)
			}
		} else {
			px.cut.Store(true) // a crash
		}
		if err := <-done; !errors.Is(err, pgnode.ErrClosed) && !errors.Is(err, pgnode.ErrLeaseLost) {
			t.Fatalf("%s: %v", c.name, err)
		}
	}
	led.Check(t)
}

// TestChurn runs 200 Acquire/Close cycles on one realm from four
// goroutines, each node minting a few IDs, and one Acquire in five
// cancelled at a random moment. Every ID is unique, each node ID's
// holders mint in order, and at the end no node ID is held, and no lease
// is left once a TTL has passed (an Acquire cancelled while its lease was
// being granted never learns the lease's ID, which then expires).
func TestChurn(t *testing.T) {
	t.Parallel()
	r := newRealm(t, sharedServer(t))
	var led ledger
	const workers, cycles = 4, 50
	var wg sync.WaitGroup
	var cancelled, acquired sync.Map
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range cycles {
				name := "worker " + strconv.Itoa(w) + " cycle " + strconv.Itoa(i)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				if i%5 == 4 {
					ctx, cancel = context.WithTimeout(context.Background(), time.Duration(rand.IntN(20_000))*time.Microsecond)
				}
				n, err := pgnode.Acquire(ctx, r.db, pgnode.WithSchema(r.schema), pgnode.WithNodeIDSize(3), pgnode.WithTTL(shortTTL))
				cancel()
				if err != nil {
					if i%5 != 4 {
						t.Errorf("%s: %v", name, err)
						return
					}
					cancelled.Store(name, err)
					continue
				}
				acquired.Store(name, n.NodeID())
				h := led.HolderOf(name, n)
				for range 20 {
					id, err := n.Generate()
					if err != nil {
						t.Errorf("%s: %v", name, err)
						return
					}
					h.Add(id)
				}
				if err := n.Close(context.Background()); err != nil {
					t.Errorf("%s: Close: %v", name, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	cancels, takes := 0, 0
	cancelled.Range(func(any, any) bool { cancels++; return true })
	acquired.Range(func(any, any) bool { takes++; return true })
	t.Logf("%d nodes acquired, minted and closed; %d Acquires cancelled", takes, cancels)
	store := pgnode.StoreOf(r.db, r.schema)
	ctx := context.Background()
	if held, err := store.Keys(ctx, holderKey(pgnode.DefaultRealm, 0), holderKey(pgnode.DefaultRealm, 7)+"\x00", 10); err != nil || len(held) != 0 {
		t.Errorf("after the churn: node IDs held: %q, %v; want none", held, err)
	}
	var leases int
	if err := r.db.QueryRow(ctx, "SELECT count(*) FROM "+r.schema+".leases").Scan(&leases); err != nil {
		t.Fatal(err)
	}
	time.Sleep(shortTTL + 100*time.Millisecond)
	var live int
	if err := r.db.QueryRow(ctx, "SELECT count(*) FROM "+r.schema+".leases WHERE greatest(expires_at, pg_postmaster_start_time() + make_interval(secs => ttl)) > clock_timestamp()").Scan(&live); err != nil {
		t.Fatal(err)
	}
	if live != 0 {
		t.Errorf("a TTL after the churn: %d leases live, want none", live)
	}
	t.Logf("%d leases were left by cancelled Acquires, none a TTL later", leases)
	// The records are the last holders' last IDs: a new node of each node
	// ID starts above every ID.
	for id := uint32(0); id < 8; id++ {
		n := r.acquire(t, pgnode.WithNodeIDSize(3), pgnode.WithNodeID(id))
		led.HolderOf("last of "+strconv.Itoa(int(id)), n).Add(mint(t, n, 10)...)
	}
	led.Check(t)
}

// libfaketime returns the path of libfaketime's library, or skips the test
// (fails it if the servers are required).
func libfaketime(t testing.TB) string {
	t.Helper()
	for _, pattern := range []string{"/usr/lib/*/faketime/libfaketime.so.1", "/usr/lib/faketime/libfaketime.so.1",
		"/usr/local/lib/faketime/libfaketime.so.1"} {
		if found, _ := filepath.Glob(pattern); len(found) > 0 {
			return found[0]
		}
	}
	skipOrFail(t, "libfaketime was not found (apt-get install faketime)")
	return ""
}

// fakeClockCluster starts a cluster under libfaketime, whose clock is
// offset by what the returned file says ("+0" at first, "+1h", "-1h").
func fakeClockCluster(t testing.TB) (c *cluster, offset string) {
	t.Helper()
	lib := libfaketime(t)
	offset = filepath.Join(tempDir(t, "pgnode-faketime-"), "offset")
	if err := os.WriteFile(offset, []byte("+0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c = newClusterWithEnv(t, []string{"LD_PRELOAD=" + lib, "FAKETIME_TIMESTAMP_FILE=" + offset,
		"FAKETIME_CACHE_DURATION=1", "FAKETIME_DONT_FAKE_MONOTONIC=1"})
	return c, offset
}

// clockOf returns the clock of the server behind db.
func clockOf(t testing.TB, db *pgxpool.Pool) time.Time {
	t.Helper()
	var now time.Time
	if err := db.QueryRow(context.Background(), "SELECT clock_timestamp()").Scan(&now); err != nil {
		t.Fatal(err)
	}
	return now
}

// TestServerClockSteppedForward steps the server's wall clock an hour
// ahead (libfaketime) while a node mints: by the server's clock its lease
// has ended, and another node takes its node ID at once, while the first
// may still mint until its next statement. That voids one holder at a
// time, not uniqueness: the second starts after the first's high-water
// mark, which bounds every ID the first can mint.
func TestServerClockSteppedForward(t *testing.T) {
	t.Parallel()
	c, offset := fakeClockCluster(t)
	r := newRealm(t, c.dsn())
	serverClock := func() time.Time { return clockOf(t, r.db) }
	if skew := time.Until(serverClock()); skew < -time.Second || skew > time.Second {
		t.Fatalf("the server's clock is %v off before the step", skew)
	}
	var led ledger
	first := r.acquire(t)
	h := led.HolderOf("first", first)
	done := minting(first, h)
	time.Sleep(time.Second)
	if err := os.WriteFile(offset, []byte("+1h\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); time.Until(serverClock()) < 59*time.Minute; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the server's clock did not step within 5 s")
		}
	}
	stepped := time.Now()
	next := r.acquireWhenFree(t, steadyTTL, takeOver(first, nil)...)
	took := time.Since(stepped)
	hn := led.HolderOf("next", next)
	nextDone := minting(next, hn)
	select {
	case err := <-done:
		if !errors.Is(err, pgnode.ErrLeaseLost) {
			t.Fatalf("the first holder stopped with %v, want ErrLeaseLost", err)
		}
		t.Logf("the next holder took the node ID %v after the step; the first stopped: %v", took, err)
	case <-time.After(2 * steadyTTL):
		t.Fatal("the first holder still mints after its node ID was taken")
	}
	time.Sleep(500 * time.Millisecond)
	if err := next.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-nextDone
	led.Check(t)
}
