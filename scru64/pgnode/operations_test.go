package pgnode_test

// Operations that people run beside a fleet on purpose: a rolling deploy's
// Setups, a DBA's locks, another role's schema, a session's search path,
// isolation defaults. Each scenario checks every ID the fleet minted.

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fastid/scru128/scru64/pgnode"
)

// TestSetupRefusesAnotherRolesSchema: a role with CREATE on the database
// creates the schema before the superuser runs Setup, or owns a function
// in it; Setup refuses, naming the object and its owner, and creates
// nothing. Before, Setup adopted the schema, and its owner could replace
// random_id(), which grant_lease, SECURITY DEFINER, then ran as the
// superuser.
func TestSetupRefusesAnotherRolesSchema(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	mallory, malloryDSN := newRole(t, dsn, "mallory")
	execOn(t, dsn, "GRANT CREATE ON DATABASE "+pgx.Identifier{databaseOf(t, dsn)}.Sanitize()+" TO "+mallory)
	setup := newPool(t, dsn, "setup")

	// The schema created first by the other role.
	first := schemaName(t)
	s := pgx.Identifier{first}.Sanitize()
	t.Cleanup(func() { execOn(t, dsn, "DROP SCHEMA IF EXISTS "+s+" CASCADE") })
	execOn(t, malloryDSN, "CREATE SCHEMA "+s)
	execOn(t, malloryDSN, "CREATE FUNCTION "+s+".random_id() RETURNS bigint LANGUAGE sql AS 'SELECT 42::bigint'")
	err := pgnode.Setup(context.Background(), setup, pgnode.WithSchema(first))
	for _, want := range []string{"is not all", "the schema itself (owned by " + mallory + ")", "function random_id() (owned by " + mallory + ")"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Setup on a schema %s created: %v; want an error saying %q", mallory, err, want)
		}
	}
	if got := objects(t, dsn, first); len(got) != 1 {
		t.Errorf("Setup left objects behind in the refused schema: %q", got)
	}

	// The schema is the superuser's, but holds a table of the other role,
	// who was granted CREATE on it.
	second := schemaName(t)
	s2 := pgx.Identifier{second}.Sanitize()
	t.Cleanup(func() { execOn(t, dsn, "DROP SCHEMA IF EXISTS "+s2+" CASCADE") })
	execOn(t, dsn, "CREATE SCHEMA "+s2)
	execOn(t, dsn, "GRANT CREATE, USAGE ON SCHEMA "+s2+" TO "+mallory)
	execOn(t, malloryDSN, "CREATE TABLE "+s2+".store (singleton boolean PRIMARY KEY DEFAULT true, revision bigint, identity bigint)")
	err = pgnode.Setup(context.Background(), setup, pgnode.WithSchema(second))
	if want := "relation store (owned by " + mallory + ")"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Setup on a schema holding %s's table: %v; want an error saying %q", mallory, err, want)
	}
	t.Logf("refused: %v", err)
}

// databaseOf returns the database a DSN names.
func databaseOf(t testing.TB, dsn string) string {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Database
}

// TestSetupPinsItsSearchPathFirst: a session whose search path lists
// another role's schema before pg_catalog, holding look-alikes of what
// Setup calls, runs none of them. Before, Setup called
// pg_advisory_xact_lock before it set its search path, and ran the
// look-alike as its caller.
func TestSetupPinsItsSearchPathFirst(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	mallory, malloryDSN := newRole(t, dsn, "mallory")
	execOn(t, dsn, "GRANT CREATE ON DATABASE "+pgx.Identifier{databaseOf(t, dsn)}.Sanitize()+" TO "+mallory)
	evil := pgx.Identifier{schemaName(t)}.Sanitize()
	t.Cleanup(func() { execOn(t, dsn, "DROP SCHEMA IF EXISTS "+evil+" CASCADE") })
	execOn(t, malloryDSN, "CREATE SCHEMA "+evil)
	execOn(t, malloryDSN, "CREATE TABLE "+evil+".calls (who text, what text)")
	execOn(t, malloryDSN, "GRANT USAGE ON SCHEMA "+evil+" TO PUBLIC")
	execOn(t, malloryDSN, "GRANT INSERT ON "+evil+".calls TO PUBLIC")
	for _, sig := range []string{"pg_advisory_xact_lock(bigint)", "pg_advisory_xact_lock(integer, integer)", "current_schema()",
		"pg_get_userbyid(oid)", "to_regclass(text)"} {
		name, _, _ := strings.Cut(sig, "(")
		ret := map[string]string{"pg_advisory_xact_lock": "void", "current_schema": "name", "pg_get_userbyid": "name", "to_regclass": "regclass"}[name]
		args := strings.TrimSuffix(strings.TrimPrefix(sig, name+"("), ")")
		var params []string
		for i, a := range strings.Split(args, ", ") {
			if a != "" {
				params = append(params, "a"+string(rune('0'+i))+" "+a)
			}
		}
		execOn(t, malloryDSN, "CREATE FUNCTION "+evil+"."+name+"("+strings.Join(params, ", ")+") RETURNS "+ret+
			" LANGUAGE plpgsql AS $$BEGIN INSERT INTO "+evil+".calls VALUES (current_user, '"+name+"'); RETURN"+
			map[bool]string{true: "", false: " NULL"}[ret == "void"]+"; END$$")
		execOn(t, malloryDSN, "GRANT EXECUTE ON FUNCTION "+evil+"."+name+"("+args+") TO PUBLIC")
	}
	db := newPoolWithConfig(t, dsn, "setup", func(c *pgx.ConnConfig) {
		c.RuntimeParams["search_path"] = strings.Trim(evil, `"`) + ", pg_catalog"
	})
	schema := schemaName(t)
	t.Cleanup(func() { execOn(t, dsn, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE") })
	if err := pgnode.Setup(context.Background(), db, pgnode.WithSchema(schema)); err != nil {
		t.Fatal(err)
	}
	var calls []string
	rows, err := db.Query(context.Background(), "SELECT who || ' ran ' || what FROM "+evil+".calls")
	if err != nil {
		t.Fatal(err)
	}
	if calls, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 0 {
		t.Errorf("Setup ran another role's look-alikes: %q", calls)
	}
	// The look-alikes are live: the session calls them when it names
	// them bare.
	if _, err := db.Exec(context.Background(), "SELECT pg_advisory_xact_lock(1::bigint)"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow(context.Background(), "SELECT count(*) FROM "+evil+".calls").Scan(&n); err != nil || n != 1 {
		t.Fatalf("the look-alike was not called by a bare name (%d calls, %v): the test proves nothing", n, err)
	}
}

// newPoolWithConfig is newPool with the connection config changed by
// configure.
func newPoolWithConfig(t testing.TB, dsn, name string, configure func(*pgx.ConnConfig)) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["application_name"] = name
	configure(cfg.ConnConfig)
	cfg.MaxConns = 4
	db, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	return db
}

// TestSetupLocksItsSchemaOnly: a session that holds Setup's advisory lock
// of one schema (any role may take any advisory lock) holds up a Setup
// that must change that schema, and no other: not one of another schema,
// nor one that finds its schema current. Before, one key served the whole
// database.
func TestSetupLocksItsSchemaOnly(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	current := newSchema(t, dsn)
	ctx := context.Background()
	holder, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(ctx)
	if _, err := holder.Exec(ctx, "SELECT pg_advisory_lock($1), pg_advisory_lock($2)",
		pgnode.SetupLockKey(current), int64(0x5c12_8640_0000_0001)); err != nil {
		t.Fatal(err)
	}
	db := newPool(t, dsn, "setup")
	other := schemaName(t)
	t.Cleanup(func() { execOn(t, dsn, "DROP SCHEMA IF EXISTS "+pgx.Identifier{other}.Sanitize()+" CASCADE") })
	for _, schema := range []string{current, other} {
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		began := time.Now()
		err := pgnode.Setup(sctx, db, pgnode.WithSchema(schema))
		cancel()
		if err != nil {
			t.Errorf("Setup of %s while another session holds %s's lock: %v after %v", schema, current, err, time.Since(began))
		}
	}
	// A Setup that must change the locked schema waits for the lock.
	execOn(t, dsn, "CREATE OR REPLACE FUNCTION "+pgx.Identifier{current, "schema_version"}.Sanitize()+"() RETURNS text LANGUAGE sql AS $$SELECT 'older'$$")
	sctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if err := pgnode.Setup(sctx, db, pgnode.WithSchema(current)); err == nil {
		t.Error("a Setup that must change the schema did not wait for the schema's lock")
	}
}

// lockTable takes lock mode on table of schema in a transaction of its
// own, held until the returned function is called.
func lockTable(t testing.TB, dsn, schema, table, mode string) (release func()) {
	t.Helper()
	ctx := context.Background()
	dba, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := dba.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "LOCK TABLE "+pgx.Identifier{schema, table}.Sanitize()+" IN "+mode+" MODE"); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			tx.Rollback(ctx)
			dba.Close(ctx)
		})
	}
	t.Cleanup(release)
	return release
}

// TestLocksOnOtherTablesSpareTheLeases: a DBA holds ACCESS EXCLUSIVE (what
// ALTER TABLE, VACUUM FULL, LOCK TABLE take) on the store's table, or on
// the keys table, for twice the TTL while three nodes mint. The nodes stall
// (writes wait), keep their leases, and mint again once the lock is
// released; every ID is unique. Before, a lock on the store's table ended
// every lease: renewals read it.
func TestLocksOnOtherTablesSpareTheLeases(t *testing.T) {
	t.Parallel()
	const ttl = 3 * time.Second
	for _, table := range []string{"store", "keys"} {
		t.Run(table, func(t *testing.T) {
			t.Parallel()
			dsn := sharedServer(t)
			owner := newRealm(t, dsn)
			role, roleDSN := newRole(t, dsn, "fleet", "lock_timeout = '200ms'")
			grantLeasing(t, dsn, owner.schema, role)
			fleet := realm{db: newPool(t, roleDSN, "fleet"), schema: owner.schema}
			var led ledger
			f := startFleet(t, &led, func() *pgnode.Node { return fleet.acquire(t, pgnode.WithTTL(ttl)) })
			release := lockTable(t, dsn, owner.schema, table, "ACCESS EXCLUSIVE")
			time.Sleep(2 * ttl)
			release()
			time.Sleep(ttl) // writes resume, bounds rise
			for i, n := range f.nodes {
				if n.Err() != nil {
					t.Fatalf("node %d: %v", i, n.Err())
				}
			}
			f.closeLive(t, " while "+table+" was locked")
			led.Check(t)
		})
	}
}

// TestSetupsBesideAMintingFleet: a rolling deploy: while three nodes mint
// and a DBA holds a lock on the keys table (the nodes stall and keep their
// leases), four sessions run twenty Setups, first finding the schema
// current, then with the schema one version behind (so each must change
// it). None fails (no deadlock, 40P01), none waits on the DBA, and no node
// loses its lease. Before, Setup's CREATE INDEX IF NOT EXISTS took a lock
// on the leases table and held it while it waited for the keys table:
// renewals queued behind it, leases were lost, and Setups deadlocked.
func TestSetupsBesideAMintingFleet(t *testing.T) {
	t.Parallel()
	const ttl = 3 * time.Second
	dsn := sharedServer(t)
	owner := newRealm(t, dsn)
	var led ledger
	f := startFleet(t, &led, func() *pgnode.Node { return owner.on(t, dsn, "node").acquire(t, pgnode.WithTTL(ttl)) })
	release := lockTable(t, dsn, owner.schema, "keys", "ACCESS EXCLUSIVE")
	version := pgx.Identifier{owner.schema, "schema_version"}.Sanitize()
	for _, behind := range []bool{false, true} {
		if behind {
			execOn(t, dsn, "CREATE OR REPLACE FUNCTION "+version+"() RETURNS text LANGUAGE sql AS $$SELECT 'older'$$")
		}
		var wg sync.WaitGroup
		errs := make(chan error, 20)
		for range 4 {
			db := newPool(t, dsn, "deploy")
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 5 {
					ctx, cancel := context.WithTimeout(context.Background(), ttl)
					began := time.Now()
					err := pgnode.Setup(ctx, db, pgnode.WithSchema(owner.schema))
					cancel()
					if err != nil {
						errs <- fmt.Errorf("Setup (schema behind: %v) after %v: %w", behind, time.Since(began).Round(time.Millisecond), err)
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	}
	time.Sleep(ttl) // past a TTL with the lock still held
	release()
	time.Sleep(ttl)
	f.closeLive(t, "")
	led.Check(t)
}

// TestAnyIsolationDefault: with the database's default_transaction_isolation
// at repeatable read or serializable, five workers acquire, mint and close
// twenty times each, and every call succeeds. Before, most Acquires failed
// with 40001 (could not serialize access) after all their tries.
func TestAnyIsolationDefault(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	for _, level := range []string{"repeatable read", "serializable"} {
		t.Run(strings.ReplaceAll(level, " ", "_"), func(t *testing.T) {
			t.Parallel()
			name := "iso_" + schemaName(t)
			execOn(t, dsn, "CREATE DATABASE "+name)
			t.Cleanup(func() { execOn(t, dsn, "DROP DATABASE "+name+" WITH (FORCE)") })
			execOn(t, dsn, "ALTER DATABASE "+name+" SET default_transaction_isolation = '"+level+"'")
			u, err := url.Parse(dsn)
			if err != nil {
				t.Fatal(err)
			}
			u.Path = "/" + name
			db := newPool(t, u.String(), "churn")
			var isolation string
			if err := db.QueryRow(context.Background(), "SHOW default_transaction_isolation").Scan(&isolation); err != nil || isolation != level {
				t.Fatalf("the database's default isolation is %q (%v), want %q", isolation, err, level)
			}
			if err := pgnode.Setup(context.Background(), db); err != nil {
				t.Fatal(err)
			}
			r := realm{db: db, schema: pgnode.DefaultSchema}
			var led ledger
			var mu sync.Mutex
			var wg sync.WaitGroup
			for w := range 5 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range 20 {
						n, err := r.tryAcquire(pgnode.WithNodeIDSize(4))
						if err != nil {
							t.Errorf("worker %d, round %d: Acquire: %v", w, i, err)
							return
						}
						mu.Lock()
						h := led.HolderOf("worker", n)
						mu.Unlock()
						h.Add(mint(t, n, 100)...)
						if err := n.Close(context.Background()); err != nil && !errors.Is(err, pgnode.ErrLeaseLost) {
							t.Errorf("worker %d, round %d: Close: %v", w, i, err)
						}
					}
				}()
			}
			wg.Wait()
			led.Check(t)
		})
	}
}

// TestTruncatedKeysAreDataLoss: a DBA truncates the tables (TRUNCATE
// leases CASCADE, which empties the keys too), or deletes a realm's row,
// while three nodes mint: the records that kept the node IDs' IDs apart are
// gone, and every node stops with an error matching ErrDataLoss, not a
// mere lost lease. Before, TRUNCATE read as three lost leases.
func TestTruncatedKeysAreDataLoss(t *testing.T) {
	t.Parallel()
	for name, sql := range map[string]string{
		"TRUNCATE leases CASCADE": "TRUNCATE %s.leases CASCADE",
		"TRUNCATE keys":           "TRUNCATE %s.keys",
		"DELETE the realm's row":  "DELETE FROM %s.keys WHERE key = '" + pgnode.DefaultRealm + "/size'",
	} {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			dsn := sharedServer(t)
			r := newRealm(t, dsn)
			var led ledger
			f := startFleet(t, &led, func() *pgnode.Node { return r.acquire(t) })
			time.Sleep(500 * time.Millisecond)
			execOn(t, dsn, fmt.Sprintf(sql, pgx.Identifier{r.schema}.Sanitize()))
			for i := range f.nodes {
				select {
				case err := <-f.dones[i]:
					if !errors.Is(err, pgnode.ErrDataLoss) {
						t.Errorf("node %d stopped with %v, want an error matching ErrDataLoss", i, err)
					} else {
						t.Logf("node %d: %v", i, err)
					}
				case <-time.After(2 * steadyTTL):
					t.Fatalf("node %d still mints %v after %s", i, 2*steadyTTL, name)
				}
			}
			led.Check(t)
		})
	}
}

// TestLostStoreRowAdviceWorks: the store's row deleted while a node mints:
// its writes fail with a message that says to run Setup again; Setup makes
// the row anew past every revision the keys carry, so that a new node
// leases and mints, and the node that ran before stops with ErrDataLoss.
// Before, Setup restarted the revision at 1, and Acquire then failed a
// check constraint (23514) for node IDs whose records were newer.
func TestLostStoreRowAdviceWorks(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	r := newRealm(t, dsn)
	var led ledger
	// Records with revisions well past those a new row would start at.
	for range 20 {
		n := r.acquire(t, pgnode.WithNodeIDSize(2))
		led.HolderOf("earlier", n).Add(mint(t, n, 10)...)
		if err := n.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	old := r.acquire(t, pgnode.WithNodeIDSize(2))
	done := minting(old, led.HolderOf("old", old))
	execOn(t, dsn, "DELETE FROM "+pgx.Identifier{r.schema, "store"}.Sanitize())
	stall := waitStalled(t, old, 3*time.Second+maxGenerateCall)
	if !strings.Contains(stall.Error(), "run pgnode.Setup") {
		t.Errorf("the stall says %q, not to run Setup", stall)
	}
	if err := pgnode.Setup(context.Background(), r.db, pgnode.WithSchema(r.schema)); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, pgnode.ErrDataLoss) {
			t.Errorf("the node that ran before stopped with %v, want an error matching ErrDataLoss", err)
		}
	case <-time.After(2 * steadyTTL):
		t.Fatal("the node that ran before still mints after the store's row was made anew")
	}
	for id := range uint32(4) {
		n := r.acquireWhenFree(t, 2*steadyTTL, pgnode.WithNodeIDSize(2), pgnode.WithNodeID(id))
		led.HolderOf("after Setup", n).Add(mint(t, n, 10)...)
		if err := n.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	led.Check(t)
}

// TestServerClockSteppedBack: a node stops renewing (it crashed, or its
// network is cut) and the server's clock steps back an hour (libfaketime):
// its node ID is free again within about its TTL, not an hour. Before,
// its lease's end stayed an hour ahead of the server's clock.
func TestServerClockSteppedBack(t *testing.T) {
	t.Parallel()
	c, offset := fakeClockCluster(t)
	r := newRealm(t, c.dsn())
	serverClock := func() time.Time { return clockOf(t, r.db) }
	p, _ := startProxy(t, c.addr())
	crashed := r.via(t, p, "crashed")
	var led ledger
	first := crashed.acquire(t)
	done := minting(first, led.HolderOf("first", first))
	time.Sleep(time.Second)
	p.cut.Store(true) // it renews no more
	if err := os.WriteFile(offset, []byte("-1h\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); time.Until(serverClock()) > -59*time.Minute; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the server's clock did not step within 5 s")
		}
	}
	stepped := time.Now()
	<-done // its lease is lost by its own clock
	next := r.acquireWhenFree(t, 3*steadyTTL, takeOver(first, nil)...)
	t.Logf("the node ID was free %v after the step (TTL %v)", time.Since(stepped).Round(time.Millisecond), steadyTTL)
	led.HolderOf("next", next).Add(mint(t, next, 1000)...)
	led.Check(t)
}

// TestConfigReloadIsRiddenOut: a DBA reloads the server's configuration
// (SIGHUP to the postmaster, pg_reload_conf()) while three nodes mint: none
// stops, and every ID is unique.
func TestConfigReloadIsRiddenOut(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	r := newRealm(t, dsn)
	var led ledger
	f := startFleet(t, &led, func() *pgnode.Node { return r.acquire(t) })
	for range 5 {
		time.Sleep(300 * time.Millisecond)
		execOn(t, dsn, "SELECT pg_reload_conf()")
	}
	time.Sleep(time.Second)
	f.closeLive(t, "")
	led.Check(t)
}

// TestLockOnLeasesEndsTheLeases: a DBA's lock on the leases table itself
// holds up every renewal, and held past the TTL it ends every lease of the
// schema, as docs/fleet.md says: the nodes stop with ErrLeaseLost (never
// ErrDataLoss), mint nothing past their leases, and once the lock is
// released new nodes lease and mint above them.
func TestLockOnLeasesEndsTheLeases(t *testing.T) {
	t.Parallel()
	const ttl = 3 * time.Second
	dsn := sharedServer(t)
	r := newRealm(t, dsn)
	var led ledger
	f := startFleet(t, &led, func() *pgnode.Node { return r.acquire(t, pgnode.WithTTL(ttl)) })
	release := lockTable(t, dsn, r.schema, "leases", "ACCESS EXCLUSIVE")
	for i := range f.nodes {
		select {
		case err := <-f.dones[i]:
			if !errors.Is(err, pgnode.ErrLeaseLost) || errors.Is(err, pgnode.ErrDataLoss) {
				t.Errorf("node %d stopped with %v, want ErrLeaseLost and not ErrDataLoss", i, err)
			}
		case <-time.After(3 * ttl):
			t.Fatalf("node %d still mints %v into a lock on the leases", i, 3*ttl)
		}
	}
	release()
	for i, n := range f.nodes {
		next := r.acquireWhenFree(t, 3*ttl, append(takeOver(n, nil), pgnode.WithTTL(ttl))...)
		led.HolderOf("next "+string(rune('A'+i)), next).Add(mint(t, next, 1000)...)
	}
	led.Check(t)
}

// mintingFleet is three nodes, each minting in a goroutine of its own into
// a ledger (see minting).
type mintingFleet struct {
	nodes []*pgnode.Node
	dones []<-chan error
}

// startFleet acquires three nodes with acquire and starts each minting, its
// IDs recorded in led under "node A" to "node C".
func startFleet(t testing.TB, led *ledger, acquire func() *pgnode.Node) *mintingFleet {
	t.Helper()
	f := &mintingFleet{}
	for i := range 3 {
		n := acquire()
		f.nodes = append(f.nodes, n)
		f.dones = append(f.dones, minting(n, led.HolderOf("node "+string(rune('A'+i)), n)))
	}
	return f
}

// closeLive fails the test if a node has stopped (when says when, for the
// message), and otherwise closes each node and waits for its minting to
// end.
func (f *mintingFleet) closeLive(t testing.TB, when string) {
	t.Helper()
	for i, n := range f.nodes {
		select {
		case err := <-f.dones[i]:
			t.Fatalf("node %d stopped%s: %v", i, when, err)
		default:
		}
		if err := n.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		<-f.dones[i]
	}
}
