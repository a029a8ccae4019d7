package pgnode_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fastid/scru128/scru64"
	"github.com/fastid/scru128/scru64/pgnode"
)

// The scenarios of a node whose writes of its continuity record fail while
// its lease holds (a DBA's lock on the keys table past the role's
// lock_timeout, a pooler or proxy that refuses them): the node must say so
// while it lives, stop minting at the bound it last wrote without blocking
// a caller, and mint again once writes succeed.

// maxGenerateCall bounds one Generate call in these scenarios: a node
// that reports a stall returns it at once, and one whose IDs outrun the
// bound before it knows waits at most three request timeouts (2.25 s with
// steadyTTL); with room for a loaded machine.
const maxGenerateCall = 3 * time.Second

// mintUntilStalled mints from n, pausing briefly every 64 IDs, until
// Generate returns an error or for up to within, and returns the IDs and
// the error. No call may take longer than maxGenerateCall.
func mintUntilStalled(t *testing.T, n *pgnode.Node, within time.Duration) ([]scru64.ID, error) {
	t.Helper()
	type result struct {
		ids     []scru64.ID
		err     error
		slowest time.Duration
	}
	got := make(chan result, 1)
	go func() {
		var r result
		for end := time.Now().Add(within); time.Now().Before(end); {
			start := time.Now()
			id, err := n.Generate()
			r.slowest = max(r.slowest, time.Since(start))
			if err != nil {
				r.err = err
				break
			}
			if r.ids = append(r.ids, id); len(r.ids)%64 == 0 {
				time.Sleep(time.Millisecond)
			}
		}
		got <- r
	}()
	select {
	case r := <-got:
		if r.slowest > maxGenerateCall {
			t.Errorf("a Generate call took %v", r.slowest)
		}
		return r.ids, r.err
	case <-time.After(within + maxGenerateCall):
		t.Fatalf("a Generate call has blocked for %v", maxGenerateCall)
		return nil, nil
	}
}

// waitStalled waits until n reports a stall, for up to within.
func waitStalled(t *testing.T, n *pgnode.Node, within time.Duration) error {
	t.Helper()
	for deadline := time.Now().Add(within); ; time.Sleep(20 * time.Millisecond) {
		if err := n.Stalled(); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			t.Fatalf("the node did not report its failing writes within %v (Err: %v)", within, n.Err())
		}
	}
}

// waitUnstalled waits until n reports no stall, for up to within.
func waitUnstalled(t *testing.T, n *pgnode.Node, within time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(within); n.Stalled() != nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("still stalled %v after writes were let through: %v", within, n.Stalled())
		}
	}
}

// checkStall checks what a node reports while its writes fail: a
// *StallError matching ErrStalled, read "pgnode: " once and printable,
// that names the server's answer (with its SQLSTATE, code, where errors.As
// finds a *pgconn.PgError), with the node still alive.
func checkStall(t *testing.T, what string, err error, n *pgnode.Node, cause, code string) {
	t.Helper()
	checkPrefixed(t, what, err, pgnode.ErrStalled)
	var stall *pgnode.StallError
	if !errors.As(err, &stall) || stall.NodeID != n.NodeID() || stall.Attempts < 1 || time.Since(stall.Since) > time.Minute {
		t.Fatalf("%s: %v, want a *StallError of node ID %d", what, err, n.NodeID())
	}
	if !strings.Contains(err.Error(), cause) {
		t.Fatalf("%s: %q does not name the server's answer %q", what, err, cause)
	}
	if code != "" {
		if state := sqlState(err); state != code {
			t.Fatalf("%s: errors.As finds SQLSTATE %q in %v, want %s", what, state, err, code)
		}
	}
	if strings.ContainsFunc(err.Error(), func(r rune) bool { return r < ' ' || r == 0x7f }) {
		t.Fatalf("%s: %q carries control characters", what, err)
	}
	if errors.Is(err, pgnode.ErrLeaseLost) || n.Err() != nil {
		t.Fatalf("%s: the node is done (%v) although its lease holds", what, n.Err())
	}
}

// TestLockedKeysTableStallsLoudly: a DBA takes the lock that ALTER TABLE
// or VACUUM FULL takes on the keys table and holds it, and the fleet's
// role has a lock_timeout, so the server refuses every write of the record
// (55P03, "canceling statement due to lock timeout"); renewals touch
// another table and go on. The node says so within a bound with the
// server's answer, mints up to the bound it last wrote and then returns
// the *StallError from Generate instead of blocking, never above the
// record. Once the lock is released, minting resumes by itself, and the
// node ID's next holder continues after every ID.
func TestLockedKeysTableStallsLoudly(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	owner := newRealm(t, dsn)
	role, roleDSN := newRole(t, dsn, "fleet", "lock_timeout = '200ms'")
	grantLeasing(t, dsn, owner.schema, role)
	fleet := realm{db: newPool(t, roleDSN, "fleet"), schema: owner.schema}
	var led ledger
	n := fleet.acquire(t)
	if err := n.Stalled(); err != nil {
		t.Fatalf("Stalled before any failure: %v", err)
	}
	h := led.HolderOf("first", n)
	ids, err := mintUntilStalled(t, n, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	h.Add(ids...)

	ctx := context.Background()
	dba, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer dba.Close(ctx)
	tx, err := dba.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	keys := pgx.Identifier{owner.schema, "keys"}.Sanitize()
	if _, err := tx.Exec(ctx, "LOCK TABLE "+keys+" IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	locked := time.Now()

	// The node says so at its next write, due within half the lead.
	stall := waitStalled(t, n, 3*time.Second+maxGenerateCall)
	checkStall(t, "Stalled", stall, n, "canceling statement due to lock timeout", "55P03")
	t.Logf("Stalled after %v: %v", time.Since(locked).Round(time.Millisecond), stall)

	// Minting goes on up to the bound, then stops with the error.
	ids, err = mintUntilStalled(t, n, 10*time.Second)
	h.Add(ids...)
	checkStall(t, "Generate", err, n, "canceling statement due to lock timeout", "55P03")
	t.Logf("Generate failed %v after the lock", time.Since(locked).Round(time.Millisecond))
	var value string
	if err := tx.QueryRow(ctx, "SELECT value FROM "+keys+" WHERE key = $1", recordKey(pgnode.DefaultRealm, n.NodeID())).Scan(&value); err != nil {
		t.Fatal(err)
	}
	if record := scru64.MustParse(value); len(ids) > 0 && ids[len(ids)-1] > record {
		t.Fatalf("minted %v above the record %v", ids[len(ids)-1], record)
	}
	for range 3 { // at once, every time
		if _, err := mintUntilStalled(t, n, time.Second); err == nil {
			t.Fatal("Generate minted past the bound with every write refused")
		}
	}
	select {
	case <-n.Done():
		t.Fatalf("Done closed while the lease holds: %v", n.Err())
	default:
	}

	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	released := time.Now()
	waitUnstalled(t, n, 5*time.Second)
	t.Logf("minting resumed %v after the lock was released", time.Since(released).Round(time.Millisecond))
	ids, err = mintUntilStalled(t, n, time.Second)
	h.Add(ids...)
	if err != nil {
		t.Fatalf("after the lock was released: %v", err)
	}
	if err := n.Close(ctx); err != nil {
		t.Fatal(err)
	}
	next := fleet.acquire(t, takeOver(n, nil)...)
	led.HolderOf("next", next).Add(mint(t, next, 1000)...)
	led.Check(t)
}

// TestRefusedRecordWritesStallLoudly puts a proxy between a node and the
// server that answers every call writing the node's record with an error
// of its own, a full disk's, in words that hold terminal escapes, as a
// broken pooler would. The node says so, in words a terminal shows as
// they are, stops at its bound without blocking a caller, retries no
// faster than its backoff allows, and mints again once the proxy lets the
// writes through.
func TestRefusedRecordWritesStallLoudly(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	r := newRealm(t, dsn)
	px, _ := startProxy(t, hostOf(t, dsn))
	var led ledger
	n := r.via(t, px, "refused").acquire(t)
	h := led.HolderOf("first", n)
	refuse := px.addRule(&rule{match: writesRecord(n.NodeID()), action: answerError,
		code: "53100", message: "could not extend file \"base/5/16384\": No space left on device\x1b[31m\r\n"})
	refused := time.Now()
	stall := waitStalled(t, n, 3*time.Second+maxGenerateCall)
	checkStall(t, "Stalled", stall, n, "No space left on device", "53100")
	t.Logf("Stalled after %v: %v", time.Since(refused).Round(time.Millisecond), stall)
	ids, err := mintUntilStalled(t, n, 10*time.Second)
	h.Add(ids...)
	checkStall(t, "Generate", err, n, "No space left on device", "53100")
	// Failed writes are retried, but not faster than the backoff allows:
	// three in a row, a few times a second at first, then every 2 s.
	before := refuse.actedOn()
	time.Sleep(4 * time.Second)
	if sent := refuse.actedOn() - before; sent > 9 {
		t.Fatalf("%d writes refused in 4 s, a stall's steady state: want at most 3 every 2 s", sent)
	}
	px.removeRule(refuse)
	waitUnstalled(t, n, 5*time.Second)
	ids, err = mintUntilStalled(t, n, time.Second)
	h.Add(ids...)
	if err != nil {
		t.Fatalf("after the proxy let writes through: %v", err)
	}
	if err := n.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	next := r.acquire(t, takeOver(n, nil)...)
	led.HolderOf("next", next).Add(mint(t, next, 1000)...)
	led.Check(t)
}

// TestFleetStallsThroughPgBouncer: a fleet of six nodes through PgBouncer
// in transaction mode with two server connections, a role without
// timeouts, and a DBA who holds the store's row, which every write waits
// for. The writes hang until the node gives up on them, and each takes a
// server connection meanwhile: the renewals, which wait for no lock, must
// still get through, so that every node reports a stall (no answer in
// time) and none loses its lease. A write the node gave up on is
// cancelled on the server, so no more wait there than the nodes have in
// flight. Once the row is released, every node mints again, and the next
// holders continue after them.
func TestFleetStallsThroughPgBouncer(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	owner := newRealm(t, dsn)
	through := startPgBouncer(t, dsn)
	fleet := realm{db: newPool(t, through, "pgbouncer"), schema: owner.schema}
	var led ledger
	const nodes = 6
	var fleetNodes []*pgnode.Node
	var done []<-chan error
	for i := range nodes {
		n := fleet.acquire(t)
		fleetNodes = append(fleetNodes, n)
		done = append(done, mintingEvery(n, led.HolderOf("node "+strconv.Itoa(i), n), 1))
	}
	ctx := context.Background()
	dba, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer dba.Close(ctx)
	tx, err := dba.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT FROM "+pgx.Identifier{owner.schema, "store"}.Sanitize()+" FOR UPDATE"); err != nil {
		t.Fatal(err)
	}
	held := time.Now()
	// A write is noticed within half the lead, and a round of three
	// attempts (0.75 s, 1.5 s, 3 s with steadyTTL) then fails.
	for i, n := range fleetNodes {
		stall := waitStalled(t, n, time.Until(held.Add(3*time.Second+5250*time.Millisecond+maxGenerateCall)))
		checkStall(t, "node "+strconv.Itoa(i), stall, n, "writing the continuity record", "")
		if i == 0 {
			t.Logf("Stalled after %v: %v", time.Since(held).Round(time.Millisecond), stall)
		}
	}
	time.Sleep(2 * time.Second) // a few renewals more
	for i, n := range fleetNodes {
		if err := n.Err(); err != nil {
			t.Fatalf("node %d lost its lease while writes hung: %v", i, err)
		}
	}
	var waiting int
	if err := dba.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND strpos(query, $1) > 0",
		pgx.Identifier{owner.schema}.Sanitize()+".write_record(").Scan(&waiting); err != nil {
		t.Fatal(err)
	}
	if waiting > nodes {
		t.Fatalf("%d writes wait on the server for the row, more than the %d nodes send at a time", waiting, nodes)
	}
	t.Logf("%d writes wait on the server for the row", waiting)
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	for _, n := range fleetNodes {
		waitUnstalled(t, n, 5*time.Second)
	}
	for i, n := range fleetNodes {
		if err := n.Close(ctx); err != nil {
			t.Errorf("node %d: Close: %v", i, err)
		}
		if err := <-done[i]; !errors.Is(err, pgnode.ErrClosed) {
			t.Errorf("node %d: %v", i, err)
		}
		next := fleet.acquire(t, takeOver(n, nil)...)
		led.HolderOf("next "+strconv.Itoa(i), next).Add(mint(t, next, 100)...)
	}
	led.Check(t)
}
