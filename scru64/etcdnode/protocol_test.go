package etcdnode_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fastid/scru128/internal/nodelease"
	"github.com/fastid/scru128/scru64"
	"github.com/fastid/scru128/scru64/etcdnode"
)

// The protocol tests run over the Store of clientv3 (what etcdnode and the
// command-line tool use), against a real etcd server.
var stores = []struct {
	name string
	open func(t *testing.T, endpoint string) nodelease.Store
}{
	{"clientv3", func(t *testing.T, endpoint string) nodelease.Store {
		return etcdnode.StoreOf(newClient(t, endpoint))
	}},
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

// forEachStore runs f once per Store, in parallel with each other and
// with the other tests that run in parallel: such a test mostly waits
// (for a lease to end, a stall to show), each on a server of its own.
func forEachStore(t *testing.T, f func(t *testing.T, open func(endpoint string) nodelease.Store)) {
	t.Parallel()
	for _, s := range stores {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			f(t, func(endpoint string) nodelease.Store { return s.open(t, endpoint) })
		})
	}
}

// forEachStoreInTurn runs f once per Store, one after the other, for tests
// that keep both cores busy minting: in parallel they would starve each
// other's keep-alives past the short test TTL, which is failing closed
// working as designed but not what such a test is about.
func forEachStoreInTurn(t *testing.T, f func(t *testing.T, open func(endpoint string) nodelease.Store)) {
	for _, s := range stores {
		t.Run(s.name, func(t *testing.T) {
			f(t, func(endpoint string) nodelease.Store { return s.open(t, endpoint) })
		})
	}
}

// acquire leases a node ID with cfg (TTL steadyTTL unless set) and closes
// the node when the test ends.
func acquire(t *testing.T, store nodelease.Store, cfg nodelease.Config) *nodelease.Node {
	t.Helper()
	n, err := tryAcquire(store, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeSoon(n) })
	return n
}

// closeSoon closes n, giving up after a second (its connection may be cut).
func closeSoon(n *nodelease.Node) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	n.Close(ctx)
}

// tryAcquire acquires with cfg, whose zero fields take the defaults (and
// TTL steadyTTL), giving up after a minute: 50 nodes racing for node IDs
// under the race detector, on a loaded machine, take half of that.
func tryAcquire(store nodelease.Store, cfg nodelease.Config) (*nodelease.Node, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return nodelease.Acquire(ctx, store, withDefaults(cfg))
}

// withDefaults returns cfg with the defaults in its zero fields, and TTL
// steadyTTL.
func withDefaults(cfg nodelease.Config) nodelease.Config {
	def := nodelease.DefaultConfig()
	if cfg.Prefix == "" {
		cfg.Prefix = def.Prefix
	}
	if cfg.NodeIDSize == 0 {
		cfg.NodeIDSize = def.NodeIDSize
	}
	if cfg.TTL == 0 {
		cfg.TTL = steadyTTL
	}
	return cfg
}

// shifted returns a wall clock that runs d ahead of time.Now (behind if d
// is negative).
func shifted(d time.Duration) func() time.Time {
	return func() time.Time { return time.Now().Add(d) }
}

// mint returns count IDs from n, failing the test on an error.
func mint(t *testing.T, n *nodelease.Node, count int) []scru64.ID {
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

func TestConcurrentAcquireGetsDistinctLowestNodeIDs(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := startServer(t)
		store := open(srv.endpoint)
		const nodes = 50
		var wg sync.WaitGroup
		got := make([]*nodelease.Node, nodes)
		errs := make([]error, nodes)
		for i := range nodes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[i], errs[i] = tryAcquire(store, nodelease.Config{})
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
	})
}

func TestExhaustionGivesErrNoFreeNodeID(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := startServer(t)
		store := open(srv.endpoint)
		cfg := nodelease.Config{Prefix: "/small/", NodeIDSize: 2}
		var nodes []*nodelease.Node
		for range 4 {
			nodes = append(nodes, acquire(t, store, cfg))
		}
		if _, err := tryAcquire(store, cfg); !errors.Is(err, nodelease.ErrNoFreeNodeID) {
			t.Fatalf("fifth Acquire of 2-bit node IDs: err = %v, want ErrNoFreeNodeID", err)
		}
		// Closing one frees exactly that node ID.
		if err := nodes[2].Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		if n := acquire(t, store, cfg); n.NodeID() != 2 {
			t.Fatalf("after closing node ID 2, Acquire took %d", n.NodeID())
		}
		// A range, and a single node ID, are exhausted on their own.
		ranged := nodelease.Config{Prefix: "/ranged/", HasRange: true, MinNodeID: 10, MaxNodeID: 11}
		for want := uint32(10); want <= 11; want++ {
			if n := acquire(t, store, ranged); n.NodeID() != want {
				t.Fatalf("range 10..11: got node ID %d, want %d", n.NodeID(), want)
			}
		}
		if _, err := tryAcquire(store, ranged); !errors.Is(err, nodelease.ErrNoFreeNodeID) {
			t.Fatalf("third Acquire in 10..11: err = %v, want ErrNoFreeNodeID", err)
		}
	})
}

func TestRealmRejectsAnotherNodeIDSize(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := startServer(t)
		store := open(srv.endpoint)
		acquire(t, store, nodelease.Config{}) // size 8 records the realm
		cfg := nodelease.Config{NodeIDSize: 4}
		_, err := tryAcquire(store, cfg)
		var realm *nodelease.RealmError
		if !errors.Is(err, nodelease.ErrRealmMismatch) || !errors.As(err, &realm) || realm.Found != "8" || realm.Want != 4 {
			t.Fatalf("size 4 in a size-8 realm: err = %v, want a *RealmError (found 8, want 4)", err)
		}
		cfg.Prefix = "/hot/"
		if n := acquire(t, store, cfg); n.NodeIDSize() != 4 {
			t.Fatalf("another prefix: size %d", n.NodeIDSize())
		}
	})
}

// TestCloseContinuity: after Close, the next holder of the node ID starts
// after every ID the previous one issued, without waiting, even with its
// clock 8 s behind; with its clock an hour behind it refuses to go back
// (ErrClockRollback) instead.
func TestCloseContinuity(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := startServer(t)
		store := open(srv.endpoint)
		first := acquire(t, store, nodelease.Config{})
		ids := mint(t, first, 100_000) // overflows the 16-bit counter: the last ID is ticks ahead
		last := slices.Max(ids)
		if err := first.Close(context.Background()); err != nil {
			t.Fatal(err)
		}

		behind := acquire(t, store, nodelease.Config{Wall: shifted(-8 * time.Second)})
		if behind.NodeID() != first.NodeID() {
			t.Fatalf("next holder took node ID %d, want the freed %d", behind.NodeID(), first.NodeID())
		}
		start := time.Now()
		id, err := behind.Generate()
		if err != nil || id <= last {
			t.Fatalf("next holder, clock 8 s behind: first ID %v (err %v), want above %v", id, err, last)
		}
		if d := time.Since(start); d > 100*time.Millisecond {
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

		farBehind := acquire(t, store, nodelease.Config{Wall: shifted(-time.Hour)})
		if id, err := farBehind.Generate(); !errors.Is(err, scru64.ErrClockRollback) {
			t.Fatalf("next holder, clock an hour behind: Generate = %v, %v; want ErrClockRollback", id, err)
		}
		if err := farBehind.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		// Closing a node that minted nothing keeps the record as it was.
		again := acquire(t, store, nodelease.Config{})
		if id, err := again.Generate(); err != nil || id <= last {
			t.Fatalf("after a holder that minted nothing: %v (err %v), want above %v", id, err, last)
		}
	})
}

// TestCrashContinuity: a holder that stops without Close (its connection
// cut, so its lease expires) leaves a high-water mark that the next holder
// starts after, even with a clock 4 s behind, and the next holder cannot
// take the node ID until the first has stopped minting.
func TestCrashContinuity(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := startServer(t)
		cut, viaProxy := startProxy(t, srv.endpoint)
		first := acquire(t, open(viaProxy), nodelease.Config{TTL: shortTTL})
		second := open(srv.endpoint) // another process, with a connection of its own

		// The first mints until it fails, recording its last success.
		var (
			mu      sync.Mutex
			issued  []scru64.ID
			lastOK  time.Time
			minting = make(chan struct{})
		)
		go func() {
			defer close(minting)
			for {
				id, err := first.Generate()
				now := time.Now()
				if err != nil {
					if !errors.Is(err, nodelease.ErrLeaseLost) {
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
		cut.cut.Store(true)

		// The second tries for that node ID until it gets it.
		cfg := nodelease.Config{HasRange: true, MinNodeID: first.NodeID(), MaxNodeID: first.NodeID(),
			Wall: shifted(-4 * time.Second)}
		var next *nodelease.Node
		var tookAt time.Time
		for deadline := time.Now().Add(10 * time.Second); next == nil; {
			tookAt = time.Now()
			n, err := tryAcquire(second, cfg)
			switch {
			case err == nil:
				next = n
				t.Cleanup(func() { closeSoon(n) })
			case !errors.Is(err, nodelease.ErrNoFreeNodeID):
				t.Fatal(err)
			case time.Now().After(deadline):
				t.Fatal("the node ID was not freed within 10 s of the cut")
			default:
				time.Sleep(50 * time.Millisecond)
			}
		}
		<-minting
		mu.Lock()
		defer mu.Unlock()
		if !lastOK.Before(tookAt) {
			t.Fatalf("first holder minted at %v, after the second began the Acquire that took its node ID at %v",
				lastOK.Format(time.StampMicro), tookAt.Format(time.StampMicro))
		}
		t.Logf("first holder: %d IDs, last %v before the second's acquire", len(issued), tookAt.Sub(lastOK))
		select {
		case <-first.Done():
		default:
			t.Fatal("the first holder's Done is not closed")
		}
		id, err := next.Generate()
		if err != nil || id <= slices.Max(issued) {
			t.Fatalf("next holder after a crash, clock 4 s behind: %v (err %v), want above %v", id, err, slices.Max(issued))
		}
	})
}

// failClosed checks that a node whose keep-alives stop getting through at
// stoppedAt fails closed before its TTL has passed. The last keep-alive
// answered was sent before stoppedAt, so the lease may expire at stoppedAt
// + TTL at the earliest: just before then, Generate must return
// ErrLeaseLost. That check reads the deadline the way every mint does and
// does not depend on a goroutine being scheduled in time; Done, closed by
// the lease loop, is given a second more.
func failClosed(t *testing.T, n *nodelease.Node, stoppedAt time.Time) {
	t.Helper()
	time.Sleep(time.Until(stoppedAt.Add(shortTTL - 100*time.Millisecond)))
	for range 3 {
		if id, err := n.Generate(); !errors.Is(err, nodelease.ErrLeaseLost) {
			t.Fatalf("Generate %v after keep-alives stopped (TTL %v) = %v, %v; want ErrLeaseLost",
				time.Since(stoppedAt), shortTTL, id, err)
		}
		if id, err := n.GenerateOrSleep(); !errors.Is(err, nodelease.ErrLeaseLost) {
			t.Fatalf("GenerateOrSleep after the deadline = %v, %v; want ErrLeaseLost", id, err)
		}
	}
	if !errors.Is(n.Err(), nodelease.ErrLeaseLost) {
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
	forEachStore(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := startServer(t)
		cut, viaProxy := startProxy(t, srv.endpoint)
		n := acquire(t, open(viaProxy), nodelease.Config{TTL: shortTTL})
		stoppedAt := time.Now()
		cut.cut.Store(true)
		select {
		case <-n.Done():
			t.Logf("Done closed %v after the cut (deadline at most %v after it)",
				time.Since(stoppedAt), shortTTL-nodelease.Margin(shortTTL))
		case <-time.After(shortTTL + 2*time.Second):
			t.Fatalf("Done not closed %v after the cut", shortTTL+2*time.Second)
		}
		if !errors.Is(n.Err(), nodelease.ErrLeaseLost) {
			t.Fatalf("Err = %v, want ErrLeaseLost", n.Err())
		}
	})
}

func TestFailClosedWhenServerStops(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := startServer(t)
		n := acquire(t, open(srv.endpoint), nodelease.Config{TTL: shortTTL})
		mint(t, n, 10)
		srv.stop()
		stoppedAt := time.Now() // no keep-alive can be answered after this
		failClosed(t, n, stoppedAt)
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		if err := n.Close(ctx); !errors.Is(err, nodelease.ErrLeaseLost) {
			t.Fatalf("Close after the loss = %v, want an error matching ErrLeaseLost", err)
		}
		if _, err := n.Generate(); !errors.Is(err, nodelease.ErrClosed) {
			t.Fatalf("Generate after Close = %v, want ErrClosed", err)
		}
	})
}

func TestFailClosedWhenConnectionIsCut(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := startServer(t)
		cut, viaProxy := startProxy(t, srv.endpoint)
		n := acquire(t, open(viaProxy), nodelease.Config{TTL: shortTTL})
		mint(t, n, 10)
		stoppedAt := time.Now()
		cut.cut.Store(true)
		failClosed(t, n, stoppedAt)
	})
}

func TestRevokedLeaseIsLost(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := startServer(t)
		store := open(srv.endpoint)
		n := acquire(t, store, nodelease.Config{})
		if err := store.Revoke(context.Background(), n.Lease()); err != nil {
			t.Fatal(err)
		}
		select {
		case <-n.Done():
		case <-time.After(steadyTTL):
			t.Fatal("Done not closed within the TTL of a revocation")
		}
		if _, err := n.Generate(); !errors.Is(err, nodelease.ErrLeaseLost) {
			t.Fatalf("Generate after revocation: %v, want ErrLeaseLost", err)
		}
	})
}

func TestCloseTwiceAndAfterClose(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := startServer(t)
		n := acquire(t, open(srv.endpoint), nodelease.Config{})
		if err := n.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		select {
		case <-n.Done():
		default:
			t.Fatal("Done not closed by Close")
		}
		if err := n.Close(context.Background()); !errors.Is(err, nodelease.ErrClosed) {
			t.Fatalf("second Close = %v, want ErrClosed", err)
		}
		if _, err := n.Generate(); !errors.Is(err, nodelease.ErrClosed) {
			t.Fatalf("Generate after Close = %v, want ErrClosed", err)
		}
		if _, err := n.GenerateOrSleep(); !errors.Is(err, nodelease.ErrClosed) {
			t.Fatalf("GenerateOrSleep after Close = %v, want ErrClosed", err)
		}
	})
}

// TestTwoNodesMintMillionsWithoutCollision mints a million IDs on each of
// two nodes at once, the counter overflowing far ahead of the clock, so
// that both the rollback allowance and the high-water mark are exercised.
func TestTwoNodesMintMillionsWithoutCollision(t *testing.T) {
	forEachStoreInTurn(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := startServer(t)
		store := open(srv.endpoint)
		const perNode = 1_000_000
		a, b := acquire(t, store, nodelease.Config{}), acquire(t, store, nodelease.Config{})
		var all [2][]scru64.ID
		var wg sync.WaitGroup
		var failed atomic.Bool
		for i, n := range []*nodelease.Node{a, b} {
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
	})
}

func TestHighWaterMarkStaysAhead(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := startServer(t)
		store := open(srv.endpoint)
		n := acquire(t, store, nodelease.Config{})
		keyOf := fmt.Sprintf("%slast/%07d", nodelease.DefaultPrefix, n.NodeID())
		// Across several refreshes the record stays ahead of every ID
		// issued so far: the proof's first step.
		for range 12 {
			id, err := n.Generate()
			if err != nil {
				t.Fatal(err)
			}
			keys, err := store.Keys(context.Background(), keyOf, keyOf+"\x00", 1)
			if err != nil || len(keys) != 1 {
				t.Fatalf("record key %q: %v %v", keyOf, keys, err)
			}
			res, err := recordOf(store, keyOf)
			if err != nil {
				t.Fatal(err)
			}
			if res < id {
				t.Fatalf("record %v is below the issued ID %v", res, id)
			}
			time.Sleep(250 * time.Millisecond)
		}
	})
}

// recordOf reads a continuity record through PutIfAbsent, which returns
// the current value of an existing key without changing it.
func recordOf(store nodelease.Store, key string) (scru64.ID, error) {
	v, _, err := store.PutIfAbsent(context.Background(), key, "absent")
	if err != nil {
		return 0, err
	}
	return scru64.Parse(v)
}

// TestCloseDuringMinting closes a node while goroutines mint from it: the
// last ID that Close stores is at least every ID any of them was given, so
// the next holder starts after all of them (Close's ordering argument).
func TestCloseDuringMinting(t *testing.T) {
	forEachStoreInTurn(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := startServer(t)
		store := open(srv.endpoint)
		// Node ID size 2: 2^22 IDs per tick, so that tight loops do not
		// overflow the counter past the rollback allowance.
		cfg := nodelease.Config{NodeIDSize: 2}
		for round := range 5 {
			n := acquire(t, store, cfg)
			var wg sync.WaitGroup
			issued := make([][]scru64.ID, 4)
			for g := range issued {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						id, err := n.Generate()
						if err != nil {
							if !errors.Is(err, nodelease.ErrClosed) {
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
			next := acquire(t, store, cfg)
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
	})
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
	forEachStore(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := startServer(t)
		store := open(srv.endpoint)
		var wall steppedClock
		n := acquire(t, store, nodelease.Config{Wall: wall.now})
		key := fmt.Sprintf("%slast/%07d", nodelease.DefaultPrefix, n.NodeID())
		mint(t, n, 10)
		wall.offset.Store(int64(time.Minute))
		stepped := time.Now().Add(time.Minute)
		for start := time.Now(); ; {
			id, err := n.Generate()
			if err != nil {
				t.Fatal(err)
			}
			record, err := recordOf(store, key)
			if err != nil {
				t.Fatal(err)
			}
			if record < id {
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
	})
}

// TestStoreWriteRecordIsFenced runs the fenced write of both Stores
// against etcd directly: it applies only with the holder key on the lease,
// the record at the expected mod revision and the realm key at its create
// revision, and when it does not, it reports what it found.
func TestStoreWriteRecordIsFenced(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := startServer(t)
		store := open(srv.endpoint)
		ctx := context.Background()
		if _, _, err := store.PutIfAbsent(ctx, "/f/size", "8"); err != nil {
			t.Fatal(err)
		}
		lease, _, err := store.Grant(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		res, err := store.Acquire(ctx, nodelease.AcquireRequest{RealmKey: "/f/size", RealmValue: "8",
			HolderKey: "/f/node/0000000", HolderValue: "h", Lease: lease, RecordKey: "/f/last/0000000"})
		if err != nil || !res.Acquired || res.Record.Exists() || res.RealmCreateRevision == 0 || res.Header.Revision == 0 {
			t.Fatalf("Acquire = %+v, %v", res, err)
		}
		w := nodelease.RecordWrite{HolderKey: "/f/node/0000000", Lease: lease, RecordKey: "/f/last/0000000",
			RealmKey: "/f/size", RealmCreateRevision: res.RealmCreateRevision, Value: "first"}
		first, err := store.WriteRecord(ctx, w)
		if err != nil || !first.Written || first.Header.Revision <= res.Header.Revision {
			t.Fatalf("first write = %+v, %v", first, err)
		}
		// The same write again expects an absent record: it fails, and
		// reports the record, the holder's lease and the realm.
		again, err := store.WriteRecord(ctx, w)
		if err != nil || again.Written || again.Record != (nodelease.Record{Value: "first", ModRevision: first.Header.Revision}) ||
			again.HolderLease != lease || again.RealmCreateRevision != res.RealmCreateRevision {
			t.Fatalf("a stale write = %+v, %v", again, err)
		}
		w.ModRevision, w.Value = first.Header.Revision, "second"
		second, err := store.WriteRecord(ctx, w)
		if err != nil || !second.Written {
			t.Fatalf("a write on top of the first = %+v, %v", second, err)
		}
		// With the right mod revision, another lease or another realm
		// create revision each fails alone.
		w.ModRevision = second.Header.Revision
		for _, bad := range []func(*nodelease.RecordWrite){
			func(b *nodelease.RecordWrite) { b.Lease++ },
			func(b *nodelease.RecordWrite) { b.RealmCreateRevision++ },
		} {
			b := w
			b.Value = "bad"
			bad(&b)
			if got, err := store.WriteRecord(ctx, b); err != nil || got.Written ||
				got.Record != (nodelease.Record{Value: "second", ModRevision: second.Header.Revision}) {
				t.Fatalf("a write with a wrong guard = %+v, %v", got, err)
			}
		}
		w.Delete = true
		if del, err := store.WriteRecord(ctx, w); err != nil || !del.Written {
			t.Fatalf("a fenced delete = %+v, %v", del, err)
		}
		if err := store.Revoke(ctx, lease); err != nil {
			t.Fatal(err)
		}
		w.ModRevision, w.Delete, w.Value = 0, false, "after revoke"
		if got, err := store.WriteRecord(ctx, w); err != nil || got.Written || got.HolderLease != 0 || got.Record.Exists() {
			t.Fatalf("a write after the lease was revoked = %+v, %v", got, err)
		}
	})
}
