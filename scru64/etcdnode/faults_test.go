package etcdnode_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fastid/scru128/internal/nodelease"
	"github.com/fastid/scru128/scru64"
)

// The fault scenarios: each runs nodes against a real etcd through a proxy
// that injects one kind of fault, records every ID in a ledger and checks
// that no ID was issued twice and that each node ID's holders minted in
// order.

// TestLateRecordWriteCannotLowerTheRecord: a write of the continuity
// record is held by the network while its client gives up and retries;
// the node goes on minting far past the held value; then the held write
// reaches etcd, and the node crashes. The late write must not take the
// record back below the IDs the node issued, or the next holder (its clock
// behind) starts below them.
func TestLateRecordWriteCannotLowerTheRecord(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := startServer(t)
		px, viaProxy := startProxy(t, srv.endpoint)
		var led ledger
		first := acquire(t, open(viaProxy), nodelease.Config{TTL: shortTTL})
		key := recordKeyOf(nodelease.DefaultPrefix, first.NodeID())
		held := px.addRule(&rule{match: recordTxn(key), action: hold, count: 1})
		firstDone := minting(first, led.HolderOf("first", first))
		held.waitMatched(t, 1, 10*time.Second)
		time.Sleep(8 * time.Second) // minting goes on, under bounds written after the held one
		if err := px.deliverHeld(held); err != nil {
			t.Fatalf("delivering the held write: %v", err)
		}
		px.cut.Store(true) // the first holder crashes, as far as etcd can tell
		if err := <-firstDone; !errors.Is(err, nodelease.ErrLeaseLost) {
			t.Fatalf("first holder: %v, want ErrLeaseLost", err)
		}
		next := acquireWhenFree(t, open(srv.endpoint), takeOver(first, shifted(-5*time.Second)), 10*time.Second)
		h := led.HolderOf("next", next)
		h.Add(mint(t, next, 1000)...)
		led.Check(t)
	})
}

// TestFailedAcquireLeavesTheRecord: Acquire's first write of the record is
// applied by etcd but its answer never comes, so Acquire fails; 23 times
// in a row. Each failed Acquire must leave the record as it found it, and
// a node that then acquires mints at once, without ErrClockRollback.
func TestFailedAcquireLeavesTheRecord(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := startServer(t)
		px, viaProxy := startProxy(t, srv.endpoint)
		direct := newClient(t, srv.endpoint)
		store := open(viaProxy)
		cfg := nodelease.Config{Prefix: "/lost-answers/", HasRange: true, MinNodeID: 0, MaxNodeID: 0, TTL: steadyTTL}
		key := recordKeyOf(cfg.Prefix, 0)
		for i := range 23 {
			before, had := readRecord(t, direct, key)
			// The acquire transaction reads the record and passes; the
			// next transaction that names it is the first write.
			lost := px.addRule(&rule{match: recordTxn(key), action: loseAnswer, skip: 1, count: 1})
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			n, err := nodelease.Acquire(ctx, store, withDefaults(cfg))
			cancel()
			px.removeRule(lost)
			if err == nil {
				n.Close(context.Background())
				t.Fatalf("Acquire %d succeeded although its first record write was not answered", i)
			}
			after, has := readRecord(t, direct, key)
			if has != had || after != before {
				t.Fatalf("after failed Acquire %d (%v): record %v (present %v), want it as it was: %v (present %v)",
					i, err, after, has, before, had)
			}
		}
		n := acquire(t, open(srv.endpoint), cfg)
		if id, err := n.Generate(); err != nil {
			t.Fatalf("after 23 failed Acquires: Generate = %v, %v", id, err)
		}
	})
}

// TestFailedAcquireSaysWhenTheRecordStaysAhead: Acquire's first record
// write is applied but not answered, and then etcd becomes unreachable, so
// the record cannot be put back. Acquire gives up on that within its
// cleanup bound (2 s past its context) and says so in its error.
func TestFailedAcquireSaysWhenTheRecordStaysAhead(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := startServer(t)
		px, viaProxy := startProxy(t, srv.endpoint)
		cfg := nodelease.Config{Prefix: "/stays-ahead/", TTL: steadyTTL}
		lost := px.addRule(&rule{match: recordTxn(recordKeyOf(cfg.Prefix, 0)), action: loseAnswer, skip: 1, count: 1})
		go func() {
			lost.waitMatched(t, 1, 10*time.Second)
			px.cut.Store(true)
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		start := time.Now()
		n, err := nodelease.Acquire(ctx, open(viaProxy), withDefaults(cfg))
		if err == nil {
			closeSoon(n)
			t.Fatal("Acquire succeeded although its first record write was not answered")
		}
		if d := time.Since(start); d > 500*time.Millisecond+2*time.Second+500*time.Millisecond {
			t.Errorf("Acquire took %v to fail, more than its context and the 2 s cleanup bound", d)
		}
		if !strings.Contains(err.Error(), "could not be put back") {
			t.Fatalf("Acquire: %v; want it to say that the record could not be put back", err)
		}
		t.Log(err)
	})
}

// TestClockGlitchWithNothingMintedKeepsTheRecordNear: the node's wall
// clock jumps a day ahead for 1.5 s while nothing is minted. The record
// must stay within about the lead of the true time, so that after a crash
// the next holder of the node ID mints at once.
func TestClockGlitchWithNothingMintedKeepsTheRecordNear(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := startServer(t)
		px, viaProxy := startProxy(t, srv.endpoint)
		direct := newClient(t, srv.endpoint)
		var wall steppedClock
		var led ledger
		n := acquire(t, open(viaProxy), nodelease.Config{Wall: wall.now, TTL: shortTTL})
		h := led.HolderOf("glitched", n)
		h.Add(mint(t, n, 10)...)
		wall.offset.Store(int64(24 * time.Hour))
		time.Sleep(1500 * time.Millisecond)
		wall.offset.Store(0)
		time.Sleep(1500 * time.Millisecond) // the clock re-anchors within 1 s
		key := recordKeyOf(nodelease.DefaultPrefix, n.NodeID())
		record, _ := readRecord(t, direct, key)
		if ahead := time.Until(record.Time()); ahead > 6*time.Second {
			t.Fatalf("after a clock glitch with nothing minted the record is %v ahead of the clock", ahead)
		}
		h.Add(mint(t, n, 10)...)
		px.cut.Store(true) // a crash: the lease expires
		waitDone(t, n, 2*shortTTL)
		next := acquireWhenFree(t, open(srv.endpoint), takeOver(n, nil), 10*time.Second)
		id, err := next.Generate()
		if err != nil {
			t.Fatalf("the next holder after the glitch: Generate = %v, %v", id, err)
		}
		led.HolderOf("next", next).Add(id)
		led.Check(t)
	})
}

// writeFarRecord makes node ID 0 of a realm of size under prefix look as
// if its last holder had minted ahead of the clock by ahead.
func writeFarRecord(t *testing.T, srv *server, prefix string, size uint8, ahead time.Duration) scru64.ID {
	t.Helper()
	return writeRecordAt(t, srv, prefix, size, time.Now().Add(ahead))
}

// writeRecordAt is writeFarRecord for a last ID minted at the time at.
func writeRecordAt(t *testing.T, srv *server, prefix string, size uint8, at time.Time) scru64.ID {
	t.Helper()
	c := newClient(t, srv.endpoint)
	far, err := scru64.FromParts(uint64(at.UnixMilli())>>8, 1<<(24-size)-1)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.Put(ctx, prefix+"size", strconv.Itoa(int(size))); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Put(ctx, recordKeyOf(prefix, 0), far.String()); err != nil {
		t.Fatal(err)
	}
	return far
}

// TestGenerateOrSleepDoesNotWaitADaySilently: the record of the node ID
// taken is a day ahead of the clock. GenerateOrSleep must not sleep for a
// day: it returns at once a *RollbackError (matching ErrClockRollback) that
// says how long the wait is, as Generate does and ClockWait tells.
func TestGenerateOrSleepDoesNotWaitADaySilently(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := startServer(t)
		far := writeFarRecord(t, srv, "/far/", 8, 24*time.Hour)
		n := acquire(t, open(srv.endpoint), nodelease.Config{Prefix: "/far/"})
		// Minting resumes when the clock is the allowance behind the end of
		// the record's 256-ms tick, which can end up to a tick after the
		// record's time.
		want := 24*time.Hour - scru64.DefaultRollbackAllowance*time.Millisecond
		const tick = 256 * time.Millisecond
		if wait := n.ClockWait(); wait < want-5*time.Second || wait > want+tick {
			t.Errorf("ClockWait = %v, want about %v", wait, want)
		}
		type result struct {
			id  scru64.ID
			err error
		}
		got := make(chan result, 1)
		go func() {
			id, err := n.GenerateOrSleep()
			got <- result{id, err}
		}()
		select {
		case r := <-got:
			var behind *nodelease.RollbackError
			if !errors.Is(r.err, scru64.ErrClockRollback) || !errors.As(r.err, &behind) {
				t.Fatalf("GenerateOrSleep = %v, %v; want a *RollbackError", r.id, r.err)
			}
			if behind.Last < far || behind.Wait < want-5*time.Second || behind.Wait > want+tick || behind.NodeID != 0 {
				t.Fatalf("GenerateOrSleep: %+v; want the wait for the record %v, about %v", behind, far, want)
			}
			t.Logf("GenerateOrSleep: %v", r.err)
		case <-time.After(2 * time.Second):
			closeSoon(n)
			t.Fatal("GenerateOrSleep still waits, silently, 2 s into a wait of a day")
		}
		if _, err := n.Generate(); !errors.As(err, new(*nodelease.RollbackError)) {
			t.Fatalf("Generate: %v, want a *RollbackError", err)
		}
		if err := n.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		if wait := n.ClockWait(); wait != 0 {
			t.Fatalf("ClockWait after Close = %v, want 0", wait)
		}
	})
}

// TestGenerateOrSleepWaitsAFewSeconds: a record 13 s ahead of the clock is
// a wait of about 3 s, within MaxSleep: GenerateOrSleep sleeps through it
// and returns an ID above the record.
func TestGenerateOrSleepWaitsAFewSeconds(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := startServer(t)
		far := writeFarRecord(t, srv, "/near/", 8, 13*time.Second)
		n := acquire(t, open(srv.endpoint), nodelease.Config{Prefix: "/near/"})
		start := time.Now()
		id, err := n.GenerateOrSleep()
		if err != nil || id <= far {
			t.Fatalf("GenerateOrSleep = %v, %v; want an ID above %v", id, err, far)
		}
		if d := time.Since(start); d < time.Second || d > 6*time.Second {
			t.Fatalf("GenerateOrSleep took %v, want about 3 s", d)
		}
	})
}

// TestRestoredBackupStopsTheNode: etcd is restored from a backup taken a
// few seconds earlier, while a node mints; its record goes back to an old
// value, below IDs the node issued since. The node must notice and stop
// minting with an error matching ErrDataLoss, after putting its record
// back above its IDs, so that the node ID's next holder mints above them.
func TestRestoredBackupStopsTheNode(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := startServer(t)
		var led ledger
		n := acquire(t, open(srv.endpoint), nodelease.Config{})
		h := led.HolderOf("first", n)
		done := minting(n, h)
		time.Sleep(500 * time.Millisecond)
		backup := srv.backup() // the node rides out the short stop
		time.Sleep(6 * time.Second)
		srv.restart(backup)
		select {
		case err := <-done:
			if !errors.Is(err, nodelease.ErrDataLoss) || !errors.Is(err, nodelease.ErrLeaseLost) {
				t.Fatalf("the node stopped with %v, want an error matching ErrDataLoss and ErrLeaseLost", err)
			}
			t.Logf("the node stopped: %v", err)
		case <-time.After(2 * steadyTTL):
			t.Fatal("the node still mints after etcd went back to an old backup")
		}
		key := recordKeyOf(nodelease.DefaultPrefix, n.NodeID())
		if record, _ := readRecord(t, newClient(t, srv.endpoint), key); record < h.Max() {
			t.Fatalf("the record %v was left below the node's IDs (up to %v)", record, h.Max())
		}
		closeSoon(n)
		next := acquireWhenFree(t, open(srv.endpoint), takeOver(n, nil), 2*steadyTTL)
		led.HolderOf("next", next).Add(mint(t, next, 1000)...)
		led.Check(t)
	})
}

// TestDuplicatedRecordWritesCannotMoveTheRecord: every write of the
// record reaches etcd a second time 6 s later (a retrying middlebox), after
// the node has written newer bounds and minted past the old ones. The
// record must never be below an ID issued, and after Close it must stay
// the exact last ID.
func TestDuplicatedRecordWritesCannotMoveTheRecord(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := startServer(t)
		px, viaProxy := startProxy(t, srv.endpoint)
		direct := newClient(t, srv.endpoint)
		var led ledger
		n := acquire(t, open(viaProxy), nodelease.Config{})
		key := recordKeyOf(nodelease.DefaultPrefix, n.NodeID())
		px.addRule(&rule{match: recordTxn(key), action: duplicate, after: 6 * time.Second})
		h := led.HolderOf("first", n)
		var issued atomic.Uint64
		stop := make(chan struct{})
		minted := make(chan error, 1)
		go func() {
			for {
				select {
				case <-stop:
					minted <- nil
					return
				default:
				}
				id, err := n.Generate()
				if err != nil {
					minted <- err
					return
				}
				h.Add(id)
				issued.Store(uint64(id))
				time.Sleep(100 * time.Microsecond)
			}
		}()
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			before := scru64.ID(issued.Load())
			if record, _ := readRecord(t, direct, key); record < before {
				t.Fatalf("the record %v is below the issued ID %v", record, before)
			}
		}
		close(stop)
		if err := <-minted; err != nil {
			t.Fatal(err)
		}
		if err := n.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		last := n.NodeSpec().NodePrev()
		time.Sleep(6500 * time.Millisecond) // every copy has been delivered
		if record, _ := readRecord(t, direct, key); record != last {
			t.Fatalf("the record after Close and the late copies: %v, want the last ID %v", record, last)
		}
		next := acquire(t, open(srv.endpoint), takeOver(n, nil))
		led.HolderOf("next", next).Add(mint(t, next, 100)...)
		led.Check(t)
	})
}

// TestEtcdRestartWithItsData restarts etcd on its data directory twice
// while two nodes mint, one of them through a proxy that delays every
// request by 50 ms and later drops its connections: the nodes ride out each short stop or fail closed, and
// after they close, the next holders of their node IDs mint above them.
func TestEtcdRestartWithItsData(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := startServer(t)
		px, viaProxy := startProxy(t, srv.endpoint)
		px.delay.Store(int64(50 * time.Millisecond))
		var led ledger
		nodes := []*nodelease.Node{
			acquire(t, open(srv.endpoint), nodelease.Config{}),
			acquire(t, open(viaProxy), nodelease.Config{}),
		}
		var done []<-chan error
		for i, n := range nodes {
			done = append(done, minting(n, led.HolderOf("node "+strconv.Itoa(i), n)))
		}
		for range 2 {
			time.Sleep(time.Second)
			srv.restart("")
		}
		time.Sleep(time.Second)
		px.dropConnections() // a load balancer restarting: clients reconnect
		time.Sleep(time.Second)
		for i, n := range nodes {
			closeSoon(n)
			if err := <-done[i]; !errors.Is(err, nodelease.ErrClosed) && !errors.Is(err, nodelease.ErrLeaseLost) {
				t.Errorf("node %d: %v", i, err)
			}
			next := acquireWhenFree(t, open(srv.endpoint), takeOver(n, nil), 2*steadyTTL)
			led.HolderOf("next "+strconv.Itoa(i), next).Add(mint(t, next, 1000)...)
		}
		led.Check(t)
	})
}

// TestWipedEtcdEndsTheOldHolder restarts etcd with an empty data directory
// while a node mints: the server forgets the lease, the holder key and the
// record. The node cannot know until its next request, and must stop at
// that request. (Between the wipe and that request a new node can take the
// same node ID fresh: that window is what data loss voids, as
// docs/fleet.md says.) A node that takes the node ID after the old one
// stopped and its last tick passed mints above it.
func TestWipedEtcdEndsTheOldHolder(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := startServer(t)
		var led ledger
		n := acquire(t, open(srv.endpoint), nodelease.Config{})
		old := led.HolderOf("old", n)
		done := minting(n, old)
		time.Sleep(time.Second)
		clusterBefore := clusterID(t, srv)
		srv.restart(t.TempDir())
		wiped := time.Now()
		if after := clusterID(t, srv); after != clusterBefore {
			t.Logf("the cluster ID changed with the wipe: %x, was %x", after, clusterBefore)
		} else {
			t.Logf("the cluster ID stayed %x through the wipe", after)
		}
		select {
		case err := <-done:
			if !errors.Is(err, nodelease.ErrLeaseLost) {
				t.Fatalf("the old holder stopped with %v, want an error matching ErrLeaseLost", err)
			}
			t.Logf("the old holder stopped %v after the wipe: %v", time.Since(wiped), err)
		case <-time.After(steadyTTL):
			t.Fatal("the old holder still mints a TTL after etcd lost its data")
		}
		time.Sleep(time.Until(old.Max().Time().Add(300 * time.Millisecond))) // past the old holder's last tick
		next := acquire(t, open(srv.endpoint), takeOver(n, nil))
		led.HolderOf("next", next).Add(mint(t, next, 1000)...)
		led.Check(t)
	})
}

// clusterID returns the cluster ID in the header of an answer of srv.
func clusterID(t *testing.T, srv *server) uint64 {
	t.Helper()
	c := newClient(t, srv.endpoint)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := c.Get(ctx, "any")
	if err != nil {
		t.Fatal(err)
	}
	return resp.Header.ClusterId
}

// TestStalledLinkFailsClosedThenHandsOver stalls the link between a node
// and etcd for longer than the TTL: the node stops minting before its lease
// can expire; then the link delivers everything it held (late keep-alives
// and writes among them), and a new holder, after the lease expired, mints
// above every ID of the old one.
func TestStalledLinkFailsClosedThenHandsOver(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := startServer(t)
		px, viaProxy := startProxy(t, srv.endpoint)
		var led ledger
		n := acquire(t, open(viaProxy), nodelease.Config{TTL: shortTTL})
		done := minting(n, led.HolderOf("stalled", n))
		time.Sleep(300 * time.Millisecond)
		px.pause()
		stalled := time.Now()
		// Just before the lease could expire, minting has stopped (the
		// check every mint makes, not a goroutine that must run in time).
		time.Sleep(time.Until(stalled.Add(shortTTL - 100*time.Millisecond)))
		if id, err := n.Generate(); !errors.Is(err, nodelease.ErrLeaseLost) {
			t.Fatalf("Generate %v into a stall (TTL %v) = %v, %v; want ErrLeaseLost", time.Since(stalled), shortTTL, id, err)
		}
		if err := <-done; !errors.Is(err, nodelease.ErrLeaseLost) {
			t.Fatalf("stalled node: %v, want ErrLeaseLost", err)
		}
		time.Sleep(shortTTL) // the lease expires unless a late keep-alive renewed it
		px.resume()
		next := acquireWhenFree(t, open(srv.endpoint), takeOver(n, shifted(-3*time.Second)), 3*shortTTL)
		led.HolderOf("next", next).Add(mint(t, next, 1000)...)
		led.Check(t)
	})
}

// TestLostAnswersOfBoundWritesAreAdopted: two writes of the record in a
// row are applied by etcd but their answers never come. The node must
// find at its next write that one of them applied, take it as its own and
// go on minting; Close then stores the exact last ID.
func TestLostAnswersOfBoundWritesAreAdopted(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := startServer(t)
		px, viaProxy := startProxy(t, srv.endpoint)
		direct := newClient(t, srv.endpoint)
		var led ledger
		n := acquire(t, open(viaProxy), nodelease.Config{})
		key := recordKeyOf(nodelease.DefaultPrefix, n.NodeID())
		lost := px.addRule(&rule{match: recordTxn(key), action: loseAnswer, count: 2})
		h := led.HolderOf("first", n)
		done := minting(n, h)
		lost.waitMatched(t, 2, 20*time.Second)
		time.Sleep(3 * time.Second) // the next write finds them
		select {
		case err := <-done:
			t.Fatalf("the node stopped: %v", err)
		default:
		}
		if err := n.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		<-done
		// The last ID may be one that Generate minted past the bound and
		// dropped while the writes hung: never returned, above all that were.
		if record, _ := readRecord(t, direct, key); record < h.Max() || record > n.NodeSpec().NodePrev() {
			t.Fatalf("record after Close = %v, want the last ID: at least %v, at most %v", record, h.Max(), n.NodeSpec().NodePrev())
		}
		next := acquire(t, open(srv.endpoint), takeOver(n, nil))
		led.HolderOf("next", next).Add(mint(t, next, 1000)...)
		led.Check(t)
	})
}

// TestCloseIsBoundedByItsContext: behind a partition, Close returns as soon
// as its context ends, before and after the lease is lost, so that a
// process told to stop (SIGINT) stops at once; the node ID is then free
// when the lease expires.
func TestCloseIsBoundedByItsContext(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := startServer(t)
		for _, lostFirst := range []bool{false, true} {
			px, viaProxy := startProxy(t, srv.endpoint)
			n := acquire(t, open(viaProxy), nodelease.Config{TTL: shortTTL})
			mint(t, n, 10)
			px.cut.Store(true)
			if lostFirst {
				waitDone(t, n, 2*shortTTL)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			start := time.Now()
			err := n.Close(ctx)
			cancel()
			if d := time.Since(start); d > time.Second {
				t.Fatalf("Close behind a partition (lease lost first: %v) took %v with a 300 ms context", lostFirst, d)
			}
			if err == nil {
				t.Fatalf("Close behind a partition (lease lost first: %v) reported no error", lostFirst)
			}
			if _, err := n.Generate(); !errors.Is(err, nodelease.ErrClosed) {
				t.Fatalf("Generate after Close: %v, want ErrClosed", err)
			}
		}
	})
}

// takeOver is the Config of a node that takes over n's node ID, with the
// wall clock wall (nil for the system clock).
func takeOver(n *nodelease.Node, wall func() time.Time) nodelease.Config {
	return nodelease.Config{HasRange: true, MinNodeID: n.NodeID(), MaxNodeID: n.NodeID(), Wall: wall}
}
