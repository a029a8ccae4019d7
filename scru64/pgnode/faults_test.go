package pgnode_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fastid/scru128/scru64"
	"github.com/fastid/scru128/scru64/pgnode"
)

// The fault scenarios: each runs nodes against a real PostgreSQL, most
// through a proxy that injects one kind of fault, records every ID in a
// ledger and checks that no ID was issued twice and that each node ID's
// holders minted in order.

// writesRecord matches the statements that write a node ID's continuity
// record in the default realm.
func writesRecord(nodeID uint32) func([]byte) bool {
	return calls("write_record", recordKey(pgnode.DefaultRealm, nodeID))
}

// TestLateRecordWriteCannotLowerTheRecord: a write of the continuity
// record is held by the network while its client gives up and retries;
// the node goes on minting far past the held value; then the held write
// reaches the server, and the node crashes. The late write must not take
// the record back below the IDs the node issued, or the next holder (its
// clock behind) starts below them.
func TestLateRecordWriteCannotLowerTheRecord(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	r := newRealm(t, dsn)
	px, _ := startProxy(t, hostOf(t, dsn))
	var led ledger
	first := r.via(t, px, "first").acquire(t, pgnode.WithTTL(shortTTL))
	held := px.addRule(&rule{match: writesRecord(first.NodeID()), action: hold, count: 1})
	firstDone := minting(first, led.HolderOf("first", first))
	held.waitMatched(t, 1, 10*time.Second)
	time.Sleep(8 * time.Second) // minting goes on, under bounds written after the held one
	if err := px.deliverHeld(held); err != nil {
		t.Fatalf("delivering the held write: %v", err)
	}
	px.cut.Store(true) // the first holder crashes, as far as the server can tell
	if err := <-firstDone; !errors.Is(err, pgnode.ErrLeaseLost) {
		t.Fatalf("first holder: %v, want ErrLeaseLost", err)
	}
	next := r.acquireWhenFree(t, 10*time.Second, takeOver(first, shifted(-5*time.Second))...)
	led.HolderOf("next", next).Add(mint(t, next, 1000)...)
	led.Check(t)
}

// TestFailedAcquireLeavesTheRecord: Acquire's first write of the record is
// committed by the server but its answer never comes, and neither do the
// answers of the attempts that send it again (five in all), so Acquire
// fails; 12 times in a row. Each failed Acquire must leave the record as
// it found it, and a node that then acquires mints at once, without
// ErrClockRollback. (An Acquire whose first write alone loses its answer
// finds at its next attempt that the write applied, and succeeds.)
func TestFailedAcquireLeavesTheRecord(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	r := newRealm(t, dsn)
	px, _ := startProxy(t, hostOf(t, dsn))
	proxied := r.via(t, px, "proxied")
	only := []pgnode.Option{pgnode.WithRealm("lost-answers"), pgnode.WithNodeID(0)}
	for i := range 12 {
		before, had := r.recordOf(t, "lost-answers", 0)
		lost := px.addRule(&rule{match: calls("write_record", recordKey("lost-answers", 0)), action: loseAnswer, count: 5})
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		n, err := pgnode.Acquire(ctx, proxied.db, append(only, pgnode.WithSchema(r.schema), pgnode.WithTTL(steadyTTL))...)
		cancel()
		px.removeRule(lost)
		if err == nil {
			n.Close(context.Background())
			t.Fatalf("Acquire %d succeeded although no attempt of its first record write was answered", i)
		}
		after, has := r.recordOf(t, "lost-answers", 0)
		if has != had || after != before {
			t.Fatalf("after failed Acquire %d (%v): record %v (present %v), want it as it was: %v (present %v)",
				i, err, after, has, before, had)
		}
		if i == 0 {
			t.Logf("a failed Acquire: %v", err)
		}
	}
	n := r.acquire(t, only...)
	if id, err := n.Generate(); err != nil {
		t.Fatalf("after 12 failed Acquires: Generate = %v, %v", id, err)
	}
	if err := n.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	lost := px.addRule(&rule{match: calls("write_record", recordKey("lost-answers", 0)), action: loseAnswer, count: 1})
	n = proxied.acquire(t, only...)
	if lost.actedOn() != 1 {
		t.Fatalf("%d answers lost, want 1", lost.actedOn())
	}
	if id, err := n.Generate(); err != nil {
		t.Fatalf("after an Acquire whose first write lost its answer: Generate = %v, %v", id, err)
	}
}

// TestFailedAcquireSaysWhenTheRecordStaysAhead: Acquire's first record
// write is committed but not answered, and then the server becomes
// unreachable, so the record cannot be put back. Acquire gives up on that
// within its cleanup bound (2 s past its context) and says so in its
// error.
func TestFailedAcquireSaysWhenTheRecordStaysAhead(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	r := newRealm(t, dsn)
	px, _ := startProxy(t, hostOf(t, dsn))
	proxied := r.via(t, px, "proxied")
	px.addRule(&rule{match: calls("write_record", recordKey("stays-ahead", 0)), action: loseAnswer, count: 1, thenCut: true})
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	start := time.Now()
	n, err := pgnode.Acquire(ctx, proxied.db, pgnode.WithSchema(r.schema), pgnode.WithRealm("stays-ahead"))
	if err == nil {
		closeSoon(n)
		t.Fatal("Acquire succeeded although its first record write was not answered")
	}
	if d := time.Since(start); d > 1500*time.Millisecond+2*time.Second+500*time.Millisecond {
		t.Errorf("Acquire took %v to fail, more than its context and the 2 s cleanup bound", d)
	}
	if !strings.Contains(err.Error(), "could not be put back") || !strings.HasPrefix(err.Error(), "pgnode: ") {
		t.Fatalf("Acquire: %v; want it to say that the record could not be put back", err)
	}
	t.Log(err)
}

// TestClockGlitchWithNothingMintedKeepsTheRecordNear: the node's wall
// clock jumps a day ahead for 1.5 s while nothing is minted. The record
// must stay within about the lead of the true time, so that after a crash
// the next holder of the node ID mints at once.
func TestClockGlitchWithNothingMintedKeepsTheRecordNear(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	r := newRealm(t, dsn)
	px, _ := startProxy(t, hostOf(t, dsn))
	var wall steppedClock
	var led ledger
	n := r.via(t, px, "glitched").acquire(t, pgnode.WithClock(wall.now), pgnode.WithTTL(shortTTL))
	h := led.HolderOf("glitched", n)
	h.Add(mint(t, n, 10)...)
	wall.offset.Store(int64(24 * time.Hour))
	time.Sleep(1500 * time.Millisecond)
	wall.offset.Store(0)
	time.Sleep(1500 * time.Millisecond) // the clock re-anchors within 1 s
	record, _ := r.record(t, n.NodeID())
	if ahead := time.Until(record.Time()); ahead > 6*time.Second {
		t.Fatalf("after a clock glitch with nothing minted the record is %v ahead of the clock", ahead)
	}
	h.Add(mint(t, n, 10)...)
	px.cut.Store(true) // a crash: the lease expires
	waitDone(t, n, 2*shortTTL)
	next := r.acquireWhenFree(t, 10*time.Second, takeOver(n, nil)...)
	id, err := next.Generate()
	if err != nil {
		t.Fatalf("the next holder after the glitch: Generate = %v, %v", id, err)
	}
	led.HolderOf("next", next).Add(id)
	led.Check(t)
}

// writeFarRecord makes node ID 0 of a realm of size 8 look as if its last
// holder had minted ahead of the clock, writing the tables as their owner.
func writeFarRecord(t testing.TB, r realm, realmName string, ahead time.Duration) scru64.ID {
	t.Helper()
	far, err := scru64.FromParts(uint64(time.Now().Add(ahead).UnixMilli())>>8, 1<<16-1)
	if err != nil {
		t.Fatal(err)
	}
	s := pgx.Identifier{r.schema}.Sanitize()
	ctx := context.Background()
	_, err = r.db.Exec(ctx, "WITH rev AS (UPDATE "+s+".store SET revision = revision + 1 RETURNING revision) "+
		"INSERT INTO "+s+".keys (key, value, create_revision, mod_revision) "+
		"SELECT k, v, rev.revision, rev.revision FROM rev, (VALUES ($1::text, '8'), ($2, $3)) AS kv (k, v)",
		realmName+"/size", recordKey(realmName, 0), far.String())
	if err != nil {
		t.Fatal(err)
	}
	return far
}

// TestGenerateOrSleepDoesNotWaitADaySilently: the record of the node ID
// taken is a day ahead of the clock. GenerateOrSleep must not sleep for a
// day: it returns at once a *RollbackError (matching ErrClockRollback) that
// says how long the wait is, as Generate does and ClockWait tells.
func TestGenerateOrSleepDoesNotWaitADaySilently(t *testing.T) {
	t.Parallel()
	r := newRealm(t, sharedServer(t))
	far := writeFarRecord(t, r, "far", 24*time.Hour)
	n := r.acquire(t, pgnode.WithRealm("far"))
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
	case res := <-got:
		var behind *pgnode.RollbackError
		if !errors.Is(res.err, scru64.ErrClockRollback) || !errors.As(res.err, &behind) {
			t.Fatalf("GenerateOrSleep = %v, %v; want a *RollbackError", res.id, res.err)
		}
		if behind.Last < far || behind.Wait < want-5*time.Second || behind.Wait > want+tick || behind.NodeID != 0 {
			t.Fatalf("GenerateOrSleep: %+v; want the wait for the record %v, about %v", behind, far, want)
		}
		t.Logf("GenerateOrSleep: %v", res.err)
	case <-time.After(2 * time.Second):
		closeSoon(n)
		t.Fatal("GenerateOrSleep still waits, silently, 2 s into a wait of a day")
	}
	if _, err := n.Generate(); !errors.As(err, new(*pgnode.RollbackError)) {
		t.Fatalf("Generate: %v, want a *RollbackError", err)
	}
	if err := n.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if wait := n.ClockWait(); wait != 0 {
		t.Fatalf("ClockWait after Close = %v, want 0", wait)
	}
}

// TestGenerateOrSleepWaitsAFewSeconds: a record 13 s ahead of the clock is
// a wait of about 3 s, within MaxSleep: GenerateOrSleep sleeps through it
// and returns an ID above the record.
func TestGenerateOrSleepWaitsAFewSeconds(t *testing.T) {
	t.Parallel()
	r := newRealm(t, sharedServer(t))
	far := writeFarRecord(t, r, "near", 13*time.Second)
	n := r.acquire(t, pgnode.WithRealm("near"))
	start := time.Now()
	id, err := n.GenerateOrSleep()
	if err != nil || id <= far {
		t.Fatalf("GenerateOrSleep = %v, %v; want an ID above %v", id, err, far)
	}
	if d := time.Since(start); d < time.Second || d > 6*time.Second {
		t.Fatalf("GenerateOrSleep took %v, want about 3 s", d)
	}
}

// TestRestoredBackupStopsTheNode: the server is stopped, its data directory
// copied, and started again while a node mints; 6 s later it is stopped and
// restored from that copy. The node's record goes back to an old value,
// below IDs the node issued since. The node must notice and stop minting
// with an error matching ErrDataLoss, after putting its record back above
// its IDs, so that the node ID's next holder mints above them.
func TestRestoredBackupStopsTheNode(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	r := newRealm(t, c.dsn())
	var led ledger
	n := r.acquire(t, pgnode.WithTTL(longTTL))
	h := led.HolderOf("first", n)
	done := minting(n, h)
	time.Sleep(500 * time.Millisecond)
	backup := c.backup() // the node rides out the short stop
	time.Sleep(6 * time.Second)
	c.restore(backup)
	select {
	case err := <-done:
		if !errors.Is(err, pgnode.ErrDataLoss) || !errors.Is(err, pgnode.ErrLeaseLost) {
			t.Fatalf("the node stopped with %v, want an error matching ErrDataLoss and ErrLeaseLost", err)
		}
		t.Logf("the node stopped: %v", err)
	case <-time.After(2 * longTTL):
		t.Fatal("the node still mints after the server went back to an old backup")
	}
	if record, _ := r.record(t, n.NodeID()); record < h.Max() {
		t.Fatalf("the record %v was left below the node's IDs (up to %v)", record, h.Max())
	}
	closeSoon(n)
	next := r.acquireWhenFree(t, 2*longTTL, takeOver(n, nil)...)
	led.HolderOf("next", next).Add(mint(t, next, 1000)...)
	led.Check(t)
}

// longTTL is the TTL of the nodes that must ride out a server's downtime
// (a restore, which copies a data directory back; a failover) or repeated
// failures of their renewals: on a loaded machine that can take longer than
// steadyTTL lets a node go without a renewal.
const longTTL = 10 * time.Second

// TestRestoredBackupOlderThanTheNodeStopsIt: the server is restored from a
// backup taken before the node took its node ID, so that the node's lease,
// holder row and records are gone, and the store's revision went back.
// The node's renewals are held up (they would find the lease gone, which
// says nothing of why), so that its next write finds out: it must stop
// with an error matching ErrDataLoss, not only ErrLeaseLost.
func TestRestoredBackupOlderThanTheNodeStopsIt(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	r := newRealm(t, c.dsn())
	backup := c.backup()
	px, _ := startProxy(t, c.addr())
	n := r.via(t, px, "restored").acquire(t, pgnode.WithTTL(longTTL))
	done := minting(n, new(ledger).HolderOf("restored", n))
	time.Sleep(3 * time.Second) // a few writes of the record
	px.addRule(&rule{match: calls("keep_alive"), action: hold})
	c.restore(backup)
	select {
	case err := <-done:
		if !errors.Is(err, pgnode.ErrDataLoss) {
			t.Fatalf("the node stopped with %v, want an error matching ErrDataLoss", err)
		}
		t.Logf("the node stopped: %v", err)
	case <-time.After(2 * longTTL):
		t.Fatal("the node still mints after the server went back to a backup older than it")
	}
}

// TestDuplicatedRecordWritesCannotMoveTheRecord: every write of the record
// reaches the server a second time 6 s later, on a connection of its own
// (a retrying middlebox), after the node has written newer bounds and
// minted past the old ones. The record must never be below an ID issued,
// and after Close it must stay the exact last ID.
func TestDuplicatedRecordWritesCannotMoveTheRecord(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	r := newRealm(t, dsn)
	px, _ := startProxy(t, hostOf(t, dsn))
	var led ledger
	n := r.via(t, px, "duplicated").acquire(t)
	dup := px.addRule(&rule{match: writesRecord(n.NodeID()), action: duplicate, after: 6 * time.Second})
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
		if record, _ := r.record(t, n.NodeID()); record < before {
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
	dup.mu.Lock()
	copies := dup.acted
	dup.mu.Unlock()
	if record, _ := r.record(t, n.NodeID()); record != last {
		t.Fatalf("the record after Close and %d late copies: %v, want the last ID %v", copies, record, last)
	}
	t.Logf("%d writes of the record, each delivered again 6 s later", copies)
	next := r.acquire(t, takeOver(n, nil)...)
	led.HolderOf("next", next).Add(mint(t, next, 100)...)
	led.Check(t)
}

// TestServerRestartWithItsData restarts the server on its data twice while
// two nodes mint, once shut down and once crashed (an immediate shutdown:
// the server recovers from its WAL), one node through a proxy that delays
// every request by 50 ms and later drops its connections: the nodes ride
// out each short stop or fail closed, and after they close, the next
// holders of their node IDs mint above them.
func TestServerRestartWithItsData(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	r := newRealm(t, c.dsn())
	px, _ := startProxy(t, c.addr())
	px.delay.Store(int64(50 * time.Millisecond))
	var led ledger
	nodes := []*pgnode.Node{r.acquire(t), r.via(t, px, "delayed").acquire(t)}
	var done []<-chan error
	for i, n := range nodes {
		done = append(done, minting(n, led.HolderOf("node "+strconv.Itoa(i), n)))
	}
	time.Sleep(time.Second)
	c.restart()
	time.Sleep(time.Second)
	c.crash()
	c.mustStart()
	time.Sleep(time.Second)
	px.dropConnections() // a load balancer restarting: clients reconnect
	time.Sleep(time.Second)
	for i, n := range nodes {
		if err := n.Err(); err != nil {
			t.Logf("node %d stopped: %v", i, err)
		}
		closeSoon(n)
		if err := <-done[i]; !errors.Is(err, pgnode.ErrClosed) && !errors.Is(err, pgnode.ErrLeaseLost) {
			t.Errorf("node %d: %v", i, err)
		}
		next := r.acquireWhenFree(t, 2*steadyTTL, takeOver(n, nil)...)
		led.HolderOf("next "+strconv.Itoa(i), next).Add(mint(t, next, 1000)...)
	}
	led.Check(t)
}

// TestWipedSchemaEndsTheOldHolder drops the schema and sets it up anew
// while a node mints: the database forgets the lease, the holder row and
// the record. The node cannot know until its next statement, and must
// stop at that statement. (Between the wipe and that statement a new node
// can take the same node ID fresh: that window is what data loss voids, as
// docs/fleet.md says.) A node that takes the node ID after the old one
// stopped and its last tick passed mints above it.
func TestWipedSchemaEndsTheOldHolder(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	r := newRealm(t, dsn)
	var led ledger
	n := r.acquire(t)
	old := led.HolderOf("old", n)
	done := minting(n, old)
	time.Sleep(time.Second)
	execOn(t, dsn, "DROP SCHEMA "+pgx.Identifier{r.schema}.Sanitize()+" CASCADE")
	if err := pgnode.Setup(context.Background(), r.db, pgnode.WithSchema(r.schema)); err != nil {
		t.Fatal(err)
	}
	wiped := time.Now()
	select {
	case err := <-done:
		if !errors.Is(err, pgnode.ErrLeaseLost) {
			t.Fatalf("the old holder stopped with %v, want an error matching ErrLeaseLost", err)
		}
		t.Logf("the old holder stopped %v after the wipe: %v", time.Since(wiped), err)
	case <-time.After(steadyTTL):
		t.Fatal("the old holder still mints a TTL after the database lost its rows")
	}
	time.Sleep(time.Until(old.Max().Time().Add(300 * time.Millisecond))) // past the old holder's last tick
	next := r.acquire(t, takeOver(n, nil)...)
	led.HolderOf("next", next).Add(mint(t, next, 1000)...)
	led.Check(t)
}

// TestStalledLinkFailsClosedThenHandsOver stalls the link between a node
// and the server for longer than the TTL: the node stops minting before
// its lease can expire; then the link delivers everything it held (late
// keep-alives and writes among them), and a new holder, after the lease
// expired, mints above every ID of the old one.
func TestStalledLinkFailsClosedThenHandsOver(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	r := newRealm(t, dsn)
	px, _ := startProxy(t, hostOf(t, dsn))
	var led ledger
	n := r.via(t, px, "stalled").acquire(t, pgnode.WithTTL(shortTTL))
	done := minting(n, led.HolderOf("stalled", n))
	time.Sleep(300 * time.Millisecond)
	px.pause()
	stalled := time.Now()
	// Just before the lease could expire, minting has stopped (the check
	// every mint makes, not a goroutine that must run in time).
	time.Sleep(time.Until(stalled.Add(shortTTL - 100*time.Millisecond)))
	if id, err := n.Generate(); !errors.Is(err, pgnode.ErrLeaseLost) {
		t.Fatalf("Generate %v into a stall (TTL %v) = %v, %v; want ErrLeaseLost", time.Since(stalled), shortTTL, id, err)
	}
	if err := <-done; !errors.Is(err, pgnode.ErrLeaseLost) {
		t.Fatalf("stalled node: %v, want ErrLeaseLost", err)
	}
	time.Sleep(shortTTL) // the lease expires unless a late keep-alive renewed it
	px.resume()
	next := r.acquireWhenFree(t, 3*shortTTL, takeOver(n, shifted(-3*time.Second))...)
	led.HolderOf("next", next).Add(mint(t, next, 1000)...)
	led.Check(t)
}

// TestLostAnswersOfBoundWritesAreAdopted: two writes of the record in a
// row are committed by the server but their answers never come (the
// connection is cut after the commit's ReadyForQuery). The node must find
// at its next write that one of them applied, take it as its own and go on
// minting; Close then stores the exact last ID.
func TestLostAnswersOfBoundWritesAreAdopted(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	r := newRealm(t, dsn)
	px, _ := startProxy(t, hostOf(t, dsn))
	var led ledger
	n := r.via(t, px, "lost-answers").acquire(t)
	lost := px.addRule(&rule{match: writesRecord(n.NodeID()), action: loseAnswer, count: 2})
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
	if record, _ := r.record(t, n.NodeID()); record < h.Max() || record > n.NodeSpec().NodePrev() {
		t.Fatalf("record after Close = %v, want the last ID: at least %v, at most %v", record, h.Max(), n.NodeSpec().NodePrev())
	}
	next := r.acquire(t, takeOver(n, nil)...)
	led.HolderOf("next", next).Add(mint(t, next, 1000)...)
	led.Check(t)
}

// TestCloseIsBoundedByItsContext: behind a partition, Close returns as soon
// as its context ends, before and after the lease is lost, so that a
// process told to stop (SIGINT) stops at once; the node ID is then free
// when the lease expires.
func TestCloseIsBoundedByItsContext(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	r := newRealm(t, dsn)
	for _, lostFirst := range []bool{false, true} {
		px, _ := startProxy(t, hostOf(t, dsn))
		n := r.via(t, px, "partitioned").acquire(t, pgnode.WithTTL(shortTTL))
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
		if _, err := n.Generate(); !errors.Is(err, pgnode.ErrClosed) {
			t.Fatalf("Generate after Close: %v, want ErrClosed", err)
		}
	}
}
