package pgnode_test

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fastid/scru128/internal/nodelease"
	"github.com/fastid/scru128/scru64"
	"github.com/fastid/scru128/scru64/pgnode"
)

// The scenarios of answers a node must not trust to have the shape it
// wrote: rows in the tables that no node wrote (a DBA's edit, a script
// that wrote the wrong realm, a restore of another schema's rows), and a
// statement whose answer is lost after it applied. Nothing may panic,
// exhaust memory or make a node mint under a node ID it was not given;
// data no node wrote is ErrBadData, named safely.

// keysOf returns the keys attached to lease, in order.
func (r realm) keysOf(t testing.TB, lease int64) []string {
	t.Helper()
	rows, err := r.db.Query(context.Background(), "SELECT key FROM "+pgx.Identifier{r.schema, "keys"}.Sanitize()+
		" WHERE lease = $1 ORDER BY key", lease)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// put writes a row of the keys table as someone with the table's
// privileges would, attached to no lease.
func (r realm) put(t testing.TB, key, valueSQL string) {
	t.Helper()
	if _, err := r.db.Exec(context.Background(), "INSERT INTO "+pgx.Identifier{r.schema, "keys"}.Sanitize()+
		" (key, value, create_revision, mod_revision) VALUES ($1, "+valueSQL+", 1, 1)", key); err != nil {
		t.Fatal(err)
	}
}

// TestLostAcquireAnswerLeavesNoStrayHolder: the acquire statement for
// node ID 0 is committed by the server but its answer never comes (the
// connection is cut after the commit), and Acquire sends it again. The
// second try must find the holder row on its own lease and take node ID 0,
// with the record as it is: not skip to node ID 1, leaving node ID 0 held
// by its lease, unused, until Close.
func TestLostAcquireAnswerLeavesNoStrayHolder(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	r := newRealm(t, dsn)
	px, _ := startProxy(t, hostOf(t, dsn))
	var led ledger
	// An earlier holder's record, which the node must continue after.
	first := r.acquire(t)
	led.HolderOf("first", first).Add(mint(t, first, 100)...)
	if err := first.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	lost := px.addRule(&rule{match: calls("acquire", holderKey(pgnode.DefaultRealm, 0)), action: loseAnswer, count: 1})
	n := r.via(t, px, "lost-acquire").acquire(t)
	lost.waitMatched(t, 1, time.Second)
	if held := r.keysOf(t, n.LeaseID()); n.NodeID() != 0 || !slices.Equal(held, []string{holderKey(pgnode.DefaultRealm, 0)}) {
		t.Fatalf("after a lost answer, the node took node ID %d and its lease holds %q; want node ID 0 alone", n.NodeID(), held)
	}
	led.HolderOf("after a lost answer", n).Add(mint(t, n, 100)...)
	if err := n.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	led.Check(t)
}

// TestGarbageInTheTablesIsBadData writes rows that no node wrote where a
// node reads: a realm row that holds no node ID size (empty, a word, a
// terminal escape), a record that is no ID or another node ID's, a holder
// key of another form, and a record of 64 MiB. Acquire returns an error
// matching ErrBadData alone (not ErrRealmMismatch, which another node ID
// size is), that names the row, speaks of PostgreSQL, shows no control
// character, and neither panics nor reads the 64 MiB.
func TestGarbageInTheTablesIsBadData(t *testing.T) {
	dsn := sharedServer(t)
	r := newRealm(t, dsn)
	for _, tc := range []struct {
		realm string
		rows  [][2]string // key and value (SQL)
		named string      // what the error must quote
	}{
		{"word", [][2]string{{"word/size", "'eight'"}}, `"word/size" = "eight"`},
		{"empty", [][2]string{{"empty/size", "''"}}, `"empty/size" = ""`},
		{"escape", [][2]string{{"escape/size", "E'\\x1b[31m8'"}}, `"escape/size" = "\x1b[31m8"`},
		{"record", [][2]string{{"record/size", "'8'"}, {"record/last/0000000", "'garbage'"}}, `"record/last/0000000" = "garbage"`},
		{"other", [][2]string{{"other/size", "'8'"}, {"other/last/0000000", "'" + scru64.MustParse("0u375nxqh5ry").String() + "'"}}, "is not an ID of node ID 0/8"},
		{"form", [][2]string{{"form/size", "'8'"}, {"form/node/000000x", "'1'"}}, `"form/node/000000x"`},
		{"digits", [][2]string{{"digits/size", "'8'"}, {"digits/node/00000001", "'1'"}}, `"digits/node/00000001"`},
		{"huge", [][2]string{{"huge/size", "'8'"}, {"huge/last/0000000", "repeat('x', 64 << 20)"}}, `"huge/last/0000000" = "xxxx`},
	} {
		for _, row := range tc.rows {
			r.put(t, row[0], row[1])
		}
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		n, err := r.tryAcquire(pgnode.WithRealm(tc.realm))
		runtime.ReadMemStats(&after)
		if err == nil {
			closeSoon(n)
			t.Errorf("realm %q: Acquire took node ID %d over rows no node wrote", tc.realm, n.NodeID())
			continue
		}
		checkPrefixed(t, "realm "+tc.realm, err, pgnode.ErrBadData, nodelease.ErrBadData)
		if errors.Is(err, pgnode.ErrRealmMismatch) || !strings.Contains(err.Error(), tc.named) ||
			!strings.Contains(err.Error(), "PostgreSQL") || strings.ContainsFunc(err.Error(), func(r rune) bool { return r < ' ' || r == 0x7f }) {
			t.Errorf("realm %q: %q; want ErrBadData alone, naming %s and PostgreSQL, without control characters", tc.realm, err, tc.named)
		}
		if read := after.TotalAlloc - before.TotalAlloc; read > 8<<20 {
			t.Errorf("realm %q: Acquire allocated %d MiB", tc.realm, read>>20)
		}
		t.Logf("realm %q: %v", tc.realm, err)
	}
}

// TestLeaseTTLEditedPastTheLargestEndsTheNode: someone sets the node's
// lease row to a TTL no grant gives (past 9e9 seconds). The renewals'
// answers are refused as data no node wrote, so the node cannot renew and
// fails closed within its TTL, saying why; it does not spin on renewals.
func TestLeaseTTLEditedPastTheLargestEndsTheNode(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	r := newRealm(t, dsn)
	px, _ := startProxy(t, hostOf(t, dsn))
	n := r.via(t, px, "edited").acquire(t, pgnode.WithTTL(shortTTL))
	renewals := px.addRule(&rule{match: calls("keep_alive"), action: slow})
	execOn(t, dsn, "UPDATE "+pgx.Identifier{r.schema, "leases"}.Sanitize()+" SET ttl = 9000000001 WHERE id = $1", n.LeaseID())
	edited := time.Now()
	err := waitDone(t, n, 2*shortTTL)
	checkPrefixed(t, "the node", err, pgnode.ErrLeaseLost)
	if !strings.Contains(err.Error(), "9000000001") || time.Since(edited) > shortTTL+time.Second {
		t.Fatalf("the node stopped %v after the edit with %v; want it within the TTL, naming the TTL", time.Since(edited), err)
	}
	sent := renewals.actedOn()
	if sent > 40 {
		t.Fatalf("%d renewals in %v", sent, time.Since(edited))
	}
	t.Logf("%d renewals, then: %v", sent, err)
}

// TestForgedRenewalsCannotRepeatIDs: a man in the middle answers every
// renewal of a node in the server's name (with its identity, which is no
// secret), while the server sees none, so that the lease expires and
// another node takes the node ID. The first node mints on, but only up to
// the record it last wrote: its next write, fenced on its lease, fails
// and ends it, at most the record's lead (5.12 s) past its lease's end;
// no ID is issued twice.
func TestForgedRenewalsCannotRepeatIDs(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	r := newRealm(t, dsn)
	px, _ := startProxy(t, hostOf(t, dsn))
	var led ledger
	first := r.via(t, px, "forged").acquire(t, pgnode.WithTTL(shortTTL))
	_, h, err := pgnode.StoreOf(r.db, r.schema).PutIfAbsent(context.Background(), "forged/size", "8")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var lastMint time.Time
	hf := led.HolderOf("first", first)
	firstDone := make(chan error, 1)
	go func() {
		for {
			id, err := first.Generate()
			if err != nil {
				firstDone <- err
				return
			}
			hf.Add(id)
			mu.Lock()
			lastMint = time.Now()
			mu.Unlock()
			time.Sleep(100 * time.Microsecond)
		}
	}()
	time.Sleep(500 * time.Millisecond)
	forging := time.Now()
	px.addRule(&rule{match: calls("keep_alive"), action: forgeAnswer, forge: func([]byte) []byte {
		return rowsAnswer([]string{"ttl", "cluster_id", "timeline", "revision"},
			[]int64{int64(shortTTL / time.Second), int64(h.ClusterID), int64(h.Timeline), h.Revision})
	}})
	// The lease expires at most a TTL after the last renewal the server
	// saw, sent before forging began. Meanwhile the first node mints on;
	// the second takes the node ID as soon as it is free.
	expired := forging.Add(shortTTL)
	second := r.acquireWhenFree(t, 3*shortTTL, takeOver(first, nil)...)
	took := time.Now()
	led.HolderOf("second", second).Add(mint(t, second, 1000)...)
	select {
	case err = <-firstDone:
	case <-time.After(10 * time.Second):
		t.Fatal("the first node still mints 10 s after forging began")
	}
	checkPrefixed(t, "the first node", err, pgnode.ErrLeaseLost)
	mu.Lock()
	past := lastMint.Sub(expired)
	mu.Unlock()
	const lead = 20 * 256 * time.Millisecond
	t.Logf("the first node minted until %v past its lease's end (the second took its node ID %v after it): %v",
		past.Round(time.Millisecond), took.Sub(expired).Round(time.Millisecond), err)
	if past > lead+500*time.Millisecond {
		t.Fatalf("the first node minted %v past its lease's end, more than the record's lead %v", past, lead)
	}
	led.Check(t)
}
