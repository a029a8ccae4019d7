package pgnode_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fastid/scru128/internal/nodelease"
	"github.com/fastid/scru128/scru64"
	"github.com/fastid/scru128/scru64/pgnode"
)

// The protocol tests: what etcdnode's protocol tests check against etcd,
// here against PostgreSQL, through the public API.

func TestConcurrentAcquireGetsDistinctLowestNodeIDs(t *testing.T) {
	t.Parallel()
	r := newRealm(t, sharedServer(t))
	const nodes = 50
	var wg sync.WaitGroup
	got := make([]*pgnode.Node, nodes)
	errs := make([]error, nodes)
	for i := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = r.tryAcquire()
		}()
	}
	wg.Wait()
	ids := make([]int, 0, nodes)
	for i, n := range got {
		if errs[i] != nil {
			t.Fatalf("Acquire %d: %v", i, errs[i])
		}
		defer closeSoon(n)
		ids = append(ids, int(n.NodeID()))
	}
	slices.Sort(ids)
	for i, id := range ids {
		if id != i {
			t.Fatalf("node IDs %v: want 0..%d, each once", ids, nodes-1)
		}
	}
}

func TestExhaustionGivesErrNoFreeNodeID(t *testing.T) {
	t.Parallel()
	r := newRealm(t, sharedServer(t))
	small := []pgnode.Option{pgnode.WithRealm("small"), pgnode.WithNodeIDSize(2)}
	var nodes []*pgnode.Node
	for range 4 {
		nodes = append(nodes, r.acquire(t, small...))
	}
	if _, err := r.tryAcquire(small...); !errors.Is(err, pgnode.ErrNoFreeNodeID) {
		t.Fatalf("fifth Acquire of 2-bit node IDs: err = %v, want ErrNoFreeNodeID", err)
	}
	// Closing one frees exactly that node ID.
	if err := nodes[2].Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := r.acquire(t, small...); n.NodeID() != 2 {
		t.Fatalf("after closing node ID 2, Acquire took %d", n.NodeID())
	}
	// A range, and a single node ID, are exhausted on their own.
	ranged := []pgnode.Option{pgnode.WithRealm("ranged"), pgnode.WithNodeIDRange(10, 11)}
	for want := uint32(10); want <= 11; want++ {
		if n := r.acquire(t, ranged...); n.NodeID() != want {
			t.Fatalf("range 10..11: got node ID %d, want %d", n.NodeID(), want)
		}
	}
	if _, err := r.tryAcquire(ranged...); !errors.Is(err, pgnode.ErrNoFreeNodeID) {
		t.Fatalf("third Acquire in 10..11: err = %v, want ErrNoFreeNodeID", err)
	}
}

func TestRealmRejectsAnotherNodeIDSize(t *testing.T) {
	t.Parallel()
	r := newRealm(t, sharedServer(t))
	r.acquire(t) // size 8 records the realm
	_, err := r.tryAcquire(pgnode.WithNodeIDSize(4))
	var realm *pgnode.RealmError
	if !errors.Is(err, pgnode.ErrRealmMismatch) || !errors.As(err, &realm) || realm.Found != "8" || realm.Want != 4 {
		t.Fatalf("size 4 in a size-8 realm: err = %v, want a *RealmError (found 8, want 4)", err)
	}
	if n := r.acquire(t, pgnode.WithNodeIDSize(4), pgnode.WithRealm("hot")); n.NodeIDSize() != 4 {
		t.Fatalf("another realm: size %d", n.NodeIDSize())
	}
}

// TestRealmsAreApart: realms whose names nest or differ only in case or
// in bytes that a collation would fold share no node ID, and none lists
// another's rows among its own, even where one name is another's with
// "/node" or "/last" and digits after it; the same realm name in another
// schema is another realm.
func TestRealmsAreApart(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	r := newRealm(t, dsn)
	names := []string{"a", "A", "a/node", "a/node/", "a/node/x0000000", "a/last", "a/last/0000000", "ä", "a ", "orders/eu", "orders"}
	for _, name := range names {
		n := r.acquire(t, pgnode.WithRealm(name), pgnode.WithNodeIDSize(1))
		if n.NodeID() != 0 {
			t.Errorf("realm %q: node ID %d, want 0 (another realm's node took it)", name, n.NodeID())
		}
	}
	other := newRealm(t, dsn)
	if n := other.acquire(t, pgnode.WithRealm("a"), pgnode.WithNodeIDSize(1)); n.NodeID() != 0 {
		t.Errorf("realm a in another schema: node ID %d, want 0", n.NodeID())
	}
	// The second node of each realm takes node ID 1; a third finds none.
	for _, name := range names {
		if n := r.acquire(t, pgnode.WithRealm(name), pgnode.WithNodeIDSize(1)); n.NodeID() != 1 {
			t.Errorf("realm %q: second node ID %d, want 1", name, n.NodeID())
		}
		if _, err := r.tryAcquire(pgnode.WithRealm(name), pgnode.WithNodeIDSize(1)); !errors.Is(err, pgnode.ErrNoFreeNodeID) {
			t.Errorf("realm %q: third Acquire: %v, want ErrNoFreeNodeID", name, err)
		}
	}
}

// TestCloseContinuity: after Close, the next holder of the node ID starts
// after every ID the previous one issued, without waiting, even with its
// clock 8 s behind; with its clock an hour behind it refuses to go back
// (ErrClockRollback) instead.
func TestCloseContinuity(t *testing.T) {
	t.Parallel()
	r := newRealm(t, sharedServer(t))
	first := r.acquire(t)
	ids := mint(t, first, 100_000) // overflows the 16-bit counter: the last ID is ticks ahead
	last := slices.Max(ids)
	if err := first.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	behind := r.acquire(t, pgnode.WithClock(shifted(-8*time.Second)))
	if behind.NodeID() != first.NodeID() {
		t.Fatalf("next holder took node ID %d, want the freed %d", behind.NodeID(), first.NodeID())
	}
	start := time.Now()
	id, err := behind.Generate()
	if err != nil || id <= last {
		t.Fatalf("next holder, clock 8 s behind: first ID %v (err %v), want above %v", id, err, last)
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Fatalf("the first Generate took %v: it should not wait", d)
	}
	if prev := behind.NodeSpec().NodePrev(); prev != id {
		t.Fatalf("NodeSpec().NodePrev() = %v, want the last ID %v", prev, id)
	}
	more := mint(t, behind, 1000)
	last = max(slices.Max(more), id)
	if err := behind.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if record, _ := r.record(t, first.NodeID()); record != last {
		t.Fatalf("record after Close = %v, want the last ID %v", record, last)
	}
	farBehind := r.acquire(t, pgnode.WithClock(shifted(-time.Hour)))
	if id, err := farBehind.Generate(); !errors.Is(err, scru64.ErrClockRollback) {
		t.Fatalf("next holder, clock an hour behind: Generate = %v, %v; want ErrClockRollback", id, err)
	}
	if err := farBehind.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Closing a node that minted nothing keeps the record as it was.
	again := r.acquire(t)
	if id, err := again.Generate(); err != nil || id <= last {
		t.Fatalf("after a holder that minted nothing: %v (err %v), want above %v", id, err, last)
	}
}

// TestCrashContinuity: a holder that stops without Close (its connection
// cut, so its lease expires by the server's clock) leaves a high-water
// mark that the next holder starts after, even with a clock 4 s behind,
// and the next holder cannot take the node ID until the first has stopped
// minting: the first's last ID comes before the second sends the acquire
// statement that takes the node ID (which a proxy on its way notes, as
// the second's Acquire may spend a while on its earlier steps).
func TestCrashContinuity(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	r := newRealm(t, dsn)
	px, _ := startProxy(t, hostOf(t, dsn))
	first := r.via(t, px, "first").acquire(t, pgnode.WithTTL(shortTTL))
	var (
		mu      sync.Mutex
		issued  []scru64.ID
		lastOK  time.Time
		stopped = make(chan struct{})
	)
	go func() {
		defer close(stopped)
		for {
			id, err := first.Generate()
			now := time.Now()
			if err != nil {
				if !errors.Is(err, pgnode.ErrLeaseLost) {
					t.Errorf("first holder: %v, want ErrLeaseLost", err)
				}
				return
			}
			mu.Lock()
			issued, lastOK = append(issued, id), now
			mu.Unlock()
			if len(issued)%64 == 0 {
				time.Sleep(time.Millisecond)
			}
		}
	}()
	time.Sleep(500 * time.Millisecond)
	px.cut.Store(true)

	// The second, another process, tries for that node ID until it gets it.
	second, _ := startProxy(t, hostOf(t, dsn))
	var tookAt time.Time // when the last acquire statement was sent
	second.addRule(&rule{match: func(req []byte) bool {
		if calls("acquire")(req) {
			mu.Lock()
			tookAt = time.Now()
			mu.Unlock()
		}
		return false
	}})
	other := r.via(t, second, "second")
	var next *pgnode.Node
	for deadline := time.Now().Add(10 * time.Second); next == nil; {
		n, err := other.tryAcquire(append(takeOver(first, shifted(-4*time.Second)), pgnode.WithTTL(shortTTL))...)
		switch {
		case err == nil:
			next = n
			t.Cleanup(func() { closeSoon(n) })
		case !errors.Is(err, pgnode.ErrNoFreeNodeID):
			t.Fatal(err)
		case time.Now().After(deadline):
			t.Fatal("the node ID was not freed within 10 s of the cut")
		default:
			time.Sleep(50 * time.Millisecond)
		}
	}
	<-stopped
	mu.Lock()
	defer mu.Unlock()
	if !lastOK.Before(tookAt) {
		t.Fatalf("first holder minted at %v, after the second sent the acquire statement that took its node ID at %v",
			lastOK.Format(time.StampMicro), tookAt.Format(time.StampMicro))
	}
	t.Logf("first holder: %d IDs, the last %v before the second's acquire", len(issued), tookAt.Sub(lastOK))
	id, err := next.Generate()
	if err != nil || id <= slices.Max(issued) {
		t.Fatalf("next holder after a crash, clock 4 s behind: %v (err %v), want above %v", id, err, slices.Max(issued))
	}
}

// failClosed checks that a node whose keep-alives stop getting through at
// stoppedAt fails closed before its TTL has passed. The last keep-alive
// answered was sent before stoppedAt, so the lease may expire at stoppedAt
// + TTL at the earliest: just before then, Generate must return
// ErrLeaseLost. That check reads the deadline the way every mint does and
// does not depend on a goroutine being scheduled in time; Done, closed by
// the lease loop, is given a second more.
func failClosed(t *testing.T, n *pgnode.Node, stoppedAt time.Time) {
	t.Helper()
	time.Sleep(time.Until(stoppedAt.Add(shortTTL - 100*time.Millisecond)))
	for range 3 {
		if id, err := n.Generate(); !errors.Is(err, pgnode.ErrLeaseLost) {
			t.Fatalf("Generate %v after keep-alives stopped (TTL %v) = %v, %v; want ErrLeaseLost",
				time.Since(stoppedAt), shortTTL, id, err)
		}
		if id, err := n.GenerateOrSleep(); !errors.Is(err, pgnode.ErrLeaseLost) {
			t.Fatalf("GenerateOrSleep after the deadline = %v, %v; want ErrLeaseLost", id, err)
		}
	}
	if !errors.Is(n.Err(), pgnode.ErrLeaseLost) {
		t.Fatalf("Err = %v, want ErrLeaseLost", n.Err())
	}
	select {
	case <-n.Done():
	case <-time.After(time.Second):
		t.Fatal("Done not closed")
	}
}

// TestDoneClosesByItself: a node that nobody calls still closes Done when
// its deadline passes.
func TestDoneClosesByItself(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	r := newRealm(t, dsn)
	px, _ := startProxy(t, hostOf(t, dsn))
	n := r.via(t, px, "cut").acquire(t, pgnode.WithTTL(shortTTL))
	stoppedAt := time.Now()
	px.cut.Store(true)
	select {
	case <-n.Done():
		t.Logf("Done closed %v after the cut (deadline at most %v after it)",
			time.Since(stoppedAt), shortTTL-nodelease.Margin(shortTTL))
	case <-time.After(shortTTL + 2*time.Second):
		t.Fatalf("Done not closed %v after the cut", shortTTL+2*time.Second)
	}
	if !errors.Is(n.Err(), pgnode.ErrLeaseLost) {
		t.Fatalf("Err = %v, want ErrLeaseLost", n.Err())
	}
}

func TestFailClosedWhenServerStops(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	r := newRealm(t, c.dsn())
	n := r.acquire(t, pgnode.WithTTL(shortTTL))
	mint(t, n, 10)
	c.stop()
	stoppedAt := time.Now() // no keep-alive can be answered after this
	failClosed(t, n, stoppedAt)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if err := n.Close(ctx); !errors.Is(err, pgnode.ErrLeaseLost) {
		t.Fatalf("Close after the loss = %v, want an error matching ErrLeaseLost", err)
	}
	if _, err := n.Generate(); !errors.Is(err, pgnode.ErrClosed) {
		t.Fatalf("Generate after Close = %v, want ErrClosed", err)
	}
}

func TestFailClosedWhenConnectionIsCut(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	r := newRealm(t, dsn)
	px, _ := startProxy(t, hostOf(t, dsn))
	n := r.via(t, px, "cut").acquire(t, pgnode.WithTTL(shortTTL))
	mint(t, n, 10)
	stoppedAt := time.Now()
	px.cut.Store(true)
	failClosed(t, n, stoppedAt)
}

func TestRevokedLeaseIsLost(t *testing.T) {
	t.Parallel()
	r := newRealm(t, sharedServer(t))
	n := r.acquire(t)
	if err := pgnode.StoreOf(r.db, r.schema).Revoke(context.Background(), n.LeaseID()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-n.Done():
	case <-time.After(steadyTTL):
		t.Fatal("Done not closed within the TTL of a revocation")
	}
	if _, err := n.Generate(); !errors.Is(err, pgnode.ErrLeaseLost) {
		t.Fatalf("Generate after revocation: %v, want ErrLeaseLost", err)
	}
}

func TestCloseTwiceAndAfterClose(t *testing.T) {
	t.Parallel()
	r := newRealm(t, sharedServer(t))
	n := r.acquire(t)
	if err := n.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-n.Done():
	default:
		t.Fatal("Done not closed by Close")
	}
	if err := n.Close(context.Background()); !errors.Is(err, pgnode.ErrClosed) {
		t.Fatalf("second Close = %v, want ErrClosed", err)
	}
	if _, err := n.Generate(); !errors.Is(err, pgnode.ErrClosed) {
		t.Fatalf("Generate after Close = %v, want ErrClosed", err)
	}
	if _, err := n.GenerateOrSleep(); !errors.Is(err, pgnode.ErrClosed) {
		t.Fatalf("GenerateOrSleep after Close = %v, want ErrClosed", err)
	}
	// Close freed the node ID and revoked the lease: no row is left of it.
	var leases, holders int
	ctx := context.Background()
	if err := r.db.QueryRow(ctx, "SELECT count(*) FROM "+r.schema+".leases").Scan(&leases); err != nil {
		t.Fatal(err)
	}
	if err := r.db.QueryRow(ctx, "SELECT count(*) FROM "+r.schema+".keys WHERE lease IS NOT NULL").Scan(&holders); err != nil {
		t.Fatal(err)
	}
	if leases != 0 || holders != 0 {
		t.Fatalf("after Close: %d leases, %d keys with a lease; want none", leases, holders)
	}
}

// TestTwoNodesMintManyWithoutCollision mints 300,000 IDs on each of two
// nodes at once, the counter overflowing ahead of the clock, so that both
// the rollback allowance and the high-water mark are exercised.
func TestTwoNodesMintManyWithoutCollision(t *testing.T) {
	t.Parallel()
	r := newRealm(t, sharedServer(t))
	const perNode = 300_000
	a, b := r.acquire(t), r.acquire(t)
	var all [2][]scru64.ID
	var wg sync.WaitGroup
	var failed atomic.Bool
	for i, n := range []*pgnode.Node{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids := make([]scru64.ID, perNode)
			for j := range ids {
				id, err := n.GenerateOrSleep()
				if err != nil {
					t.Errorf("node %d, ID %d: %v", n.NodeID(), j, err)
					failed.Store(true)
					return
				}
				ids[j] = id
			}
			all[i] = ids
		}()
	}
	wg.Wait()
	if failed.Load() {
		return
	}
	for i, ids := range all {
		if !slices.IsSorted(ids) {
			t.Fatalf("node %d's IDs are not increasing", i)
		}
	}
	merged := append(all[0], all[1]...)
	slices.Sort(merged)
	if len(slices.Compact(merged)) != 2*perNode {
		t.Fatal("the two nodes minted a common ID")
	}
}

func TestHighWaterMarkStaysAhead(t *testing.T) {
	t.Parallel()
	r := newRealm(t, sharedServer(t))
	n := r.acquire(t)
	// Across several refreshes the record stays ahead of every ID issued
	// so far: the proof's first step.
	for range 12 {
		id, err := n.Generate()
		if err != nil {
			t.Fatal(err)
		}
		record, ok := r.record(t, n.NodeID())
		if !ok || record < id {
			t.Fatalf("record %v (present %v) is below the issued ID %v", record, ok, id)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// TestCloseDuringMinting closes a node while goroutines mint from it: the
// last ID that Close stores is at least every ID any of them was given, so
// the next holder starts after all of them (Close's ordering argument).
func TestCloseDuringMinting(t *testing.T) {
	t.Parallel()
	r := newRealm(t, sharedServer(t))
	// Node ID size 2: 2^22 IDs per tick, so that tight loops do not
	// overflow the counter past the rollback allowance.
	size := pgnode.WithNodeIDSize(2)
	for round := range 5 {
		n := r.acquire(t, size)
		var wg sync.WaitGroup
		issued := make([][]scru64.ID, 4)
		for g := range issued {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					id, err := n.Generate()
					if err != nil {
						if !errors.Is(err, pgnode.ErrClosed) {
							t.Errorf("minting: %v, want ErrClosed", err)
						}
						return
					}
					issued[g] = append(issued[g], id)
				}
			}()
		}
		time.Sleep(time.Duration(20+10*round) * time.Millisecond)
		if err := n.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		var last scru64.ID
		for _, ids := range issued {
			if len(ids) > 0 {
				last = max(last, slices.Max(ids))
			}
		}
		next := r.acquire(t, size)
		if next.NodeID() != n.NodeID() {
			t.Fatalf("round %d: next holder took node ID %d, want %d", round, next.NodeID(), n.NodeID())
		}
		if prev := next.NodeSpec().NodePrev(); prev < last {
			t.Fatalf("round %d: the stored last ID %v is below the issued %v", round, prev, last)
		}
		if id, err := next.Generate(); err != nil || id <= last {
			t.Fatalf("round %d: next holder's first ID %v (err %v), want above %v", round, id, err, last)
		}
		if err := next.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// steppedClock is a wall clock that runs with time.Now plus an offset the
// test can change.
type steppedClock struct{ offset atomic.Int64 }

func (c *steppedClock) now() time.Time { return time.Now().Add(time.Duration(c.offset.Load())) }

// TestClockStepForwardWaitsForTheBound steps the node's clock a minute
// ahead: IDs would then run past the persisted high-water mark, so
// Generate waits for the next write of it, and the record stays at or
// above every ID issued.
func TestClockStepForwardWaitsForTheBound(t *testing.T) {
	t.Parallel()
	r := newRealm(t, sharedServer(t))
	var wall steppedClock
	n := r.acquire(t, pgnode.WithClock(wall.now))
	mint(t, n, 10)
	wall.offset.Store(int64(time.Minute))
	stepped := time.Now().Add(time.Minute)
	for start := time.Now(); ; {
		id, err := n.Generate()
		if err != nil {
			t.Fatal(err)
		}
		if record, _ := r.record(t, n.NodeID()); record < id {
			t.Fatalf("ID %v issued above the persisted record %v", id, record)
		}
		if id.Time().After(stepped.Add(-time.Second)) {
			break // minting at the stepped clock
		}
		if time.Since(start) > 5*time.Second {
			t.Fatal("the node did not follow a clock stepped forward within 5 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
