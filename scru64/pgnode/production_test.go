package pgnode_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fastid/scru128/scru64/pgnode"
)

// How PostgreSQL runs in production: behind PgBouncer in transaction mode,
// a fleet role that may lease and nothing more, timeouts set by the DBA.

// pgbouncerBin returns the PgBouncer program: SCRU128_TEST_PGBOUNCER, or
// pgbouncer on the PATH or in /usr/sbin.
func pgbouncerBin(t testing.TB) string {
	t.Helper()
	if path := os.Getenv("SCRU128_TEST_PGBOUNCER"); path != "" {
		return path
	}
	if path, err := exec.LookPath("pgbouncer"); err == nil {
		return path
	}
	if _, err := os.Stat("/usr/sbin/pgbouncer"); err == nil {
		return "/usr/sbin/pgbouncer"
	}
	skipOrFail(t, "PgBouncer was not found; set SCRU128_TEST_PGBOUNCER")
	return ""
}

// startPgBouncer starts a PgBouncer on a loopback port in transaction
// mode, pooling at most two server connections to the server at dsn for
// the users named, trusted (as the test servers trust loopback). It
// returns the DSN through it, for dsn's user; it is stopped when the test
// ends.
func startPgBouncer(t testing.TB, dsn string, users ...string) string {
	t.Helper()
	bin := pgbouncerBin(t)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	dir := tempDir(t, "pgnode-pgbouncer-")
	port := freePort(t)
	var auth strings.Builder
	for _, u := range append(users, cfg.User) {
		fmt.Fprintf(&auth, "%q \"\"\n", u)
	}
	ini := fmt.Sprintf(`[databases]
%s = host=%s port=%d dbname=%s

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = trust
auth_file = %s
pool_mode = transaction
default_pool_size = 2
max_client_conn = 500
logfile = %s
ignore_startup_parameters = extra_float_digits
`, cfg.Database, cfg.Host, cfg.Port, cfg.Database, port,
		filepath.Join(dir, "users.txt"), filepath.Join(dir, "pgbouncer.log"))
	for name, text := range map[string]string{"users.txt": auth.String(), "pgbouncer.ini": ini} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := command(t, syscall.SIGKILL, bin, filepath.Join(dir, "pgbouncer.ini"))
	if err := spawn(cmd); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	through := withHost(t, dsn, "127.0.0.1:"+strconv.Itoa(port))
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn, err := pgx.Connect(ctx, through)
		cancel()
		if err == nil {
			conn.Close(context.Background())
			return through
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "pgbouncer.log"))
			t.Fatalf("PgBouncer exited: %v\n%s", err, log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("PgBouncer took no connection in 20 s: %v", err)
		}
	}
}

// TestThroughPgBouncerInTransactionMode runs Setup and a fleet of ten
// nodes through PgBouncer in transaction mode with two server connections,
// so that consecutive transactions of one client run on different server
// sessions and those of different clients on the same one. The nodes'
// pool is left in pgx's default mode, which prepares statements by name:
// the node's own statements do not depend on it. Every node acquires,
// mints for a while (renewals and writes interleaved on the two server
// connections), closes, and its node ID's next holder mints above it.
func TestThroughPgBouncerInTransactionMode(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	through := startPgBouncer(t, dsn)
	schema := schemaName(t)
	db := newPool(t, through, "pgbouncer")
	if db.Config().ConnConfig.DefaultQueryExecMode != pgx.QueryExecModeCacheStatement {
		t.Fatalf("the pool's mode is %v, want pgx's default", db.Config().ConnConfig.DefaultQueryExecMode)
	}
	for range 2 { // the second time, over what the first made
		if err := pgnode.Setup(context.Background(), db, pgnode.WithSchema(schema)); err != nil {
			t.Fatalf("Setup through PgBouncer: %v", err)
		}
	}
	t.Cleanup(func() { execOn(t, dsn, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE") })
	r := realm{db: db, schema: schema}
	var led ledger
	const nodes = 10
	var wg sync.WaitGroup
	fleet := make([]*pgnode.Node, nodes)
	for i := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := r.tryAcquire()
			if err != nil {
				t.Errorf("Acquire through PgBouncer: %v", err)
				return
			}
			fleet[i] = n
			t.Cleanup(func() { closeSoon(n) })
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	var done []<-chan error
	for i, n := range fleet {
		done = append(done, minting(n, led.HolderOf("node "+strconv.Itoa(i), n)))
	}
	time.Sleep(3 * time.Second)
	for i, n := range fleet {
		if err := n.Close(context.Background()); err != nil {
			t.Errorf("node %d: Close through PgBouncer: %v", i, err)
		}
		if err := <-done[i]; !errors.Is(err, pgnode.ErrClosed) {
			t.Errorf("node %d: %v", i, err)
		}
		next := r.acquire(t, takeOver(n, nil)...)
		led.HolderOf("next "+strconv.Itoa(i), next).Add(mint(t, next, 100)...)
	}
	led.Check(t)
}

// newRole creates a login role (trusted: the test servers trust loopback)
// with settings, dropped with what it owns when the test ends; it returns
// the role's name and the DSN of dsn as that role.
func newRole(t testing.TB, dsn, prefix string, settings ...string) (string, string) {
	t.Helper()
	role := prefix + "_" + strconv.FormatUint(rand.Uint64()%1e12, 36)
	execOn(t, dsn, "CREATE ROLE "+role+" LOGIN")
	for _, s := range settings {
		execOn(t, dsn, "ALTER ROLE "+role+" SET "+s)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			return // the server is gone
		}
		defer conn.Close(context.Background())
		conn.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1", role)
		if _, err := conn.Exec(ctx, "DROP OWNED BY "+role); err != nil {
			t.Errorf("dropping what role %s owns: %v", role, err)
		}
		if _, err := conn.Exec(ctx, "DROP ROLE "+role); err != nil {
			t.Errorf("dropping role %s: %v", role, err)
		}
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(role)
	return role, u.String()
}

// grantLeasing grants role what docs/fleet.md and schema.sql say the
// fleet's role needs.
func grantLeasing(t testing.TB, dsn, schema, role string) {
	t.Helper()
	s := pgx.Identifier{schema}.Sanitize()
	execOn(t, dsn, "GRANT USAGE ON SCHEMA "+s+" TO "+role)
	execOn(t, dsn, "GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA "+s+" TO "+role)
}

// sqlState returns the SQLSTATE of a server's error, or "".
func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// TestFleetRoleLeasesAndNothingMore: a role granted USAGE on the schema
// and EXECUTE on its functions, as documented, leases, mints and closes,
// with the settings a DBA gives such a role (statement_timeout,
// lock_timeout, idle_in_transaction_session_timeout, and even
// synchronous_commit off, which the functions turn back on for their own
// commits); it cannot read, change, alter or drop the tables, call the
// helpers that write, or put objects in the schema. A role without the
// grants can do nothing, and Acquire says what is missing.
func TestFleetRoleLeasesAndNothingMore(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	owner := newRealm(t, dsn)
	role, roleDSN := newRole(t, dsn, "fleet", "statement_timeout = '2s'", "lock_timeout = '1s'",
		"idle_in_transaction_session_timeout = '1s'", "synchronous_commit = off")
	grantLeasing(t, dsn, owner.schema, role)
	fleet := realm{db: newPool(t, roleDSN, "fleet"), schema: owner.schema}
	var led ledger
	n := fleet.acquire(t)
	led.HolderOf("fleet", n).Add(mint(t, n, 1000)...)
	if err := n.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	next := fleet.acquire(t, takeOver(n, nil)...)
	led.HolderOf("next", next).Add(mint(t, next, 1000)...)
	led.Check(t)

	ctx := context.Background()
	s := pgx.Identifier{owner.schema}.Sanitize()
	for _, sql := range []string{
		"SELECT * FROM " + s + ".keys",
		"SELECT * FROM " + s + ".leases",
		"SELECT * FROM " + s + ".store",
		"INSERT INTO " + s + ".keys VALUES ('default/last/0000009', 'x', 1, 1, NULL)",
		"UPDATE " + s + ".keys SET value = 'x'",
		"DELETE FROM " + s + ".keys",
		"DELETE FROM " + s + ".leases",
		"UPDATE " + s + ".store SET revision = 1",
		"TRUNCATE " + s + ".keys",
		"ALTER TABLE " + s + ".keys ADD COLUMN x int",
		"DROP TABLE " + s + ".keys",
		"CREATE TABLE " + s + ".mine (x int)",
		"CREATE FUNCTION " + s + ".clock_timestamp() RETURNS timestamptz LANGUAGE sql AS 'SELECT now()'",
		"SELECT " + s + ".begin_write()",
		"SELECT * FROM " + s + ".server_identity()",
		"CREATE OR REPLACE FUNCTION " + s + ".random_id() RETURNS bigint LANGUAGE sql AS 'SELECT 1::bigint'",
	} {
		_, err := fleet.db.Exec(ctx, sql)
		if state := sqlState(err); state != "42501" {
			t.Errorf("as the fleet's role, %s: %v (SQLSTATE %s), want insufficient_privilege (42501)", sql, err, state)
		}
	}
	// The functions commit durably, whatever the role's synchronous_commit.
	tx, err := fleet.db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	var before, after string
	if err := tx.QueryRow(ctx, "SHOW synchronous_commit").Scan(&before); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "SELECT * FROM "+s+".put_if_absent('sync/size', '8')"); err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRow(ctx, "SHOW synchronous_commit").Scan(&after); err != nil {
		t.Fatal(err)
	}
	if before != "off" || after != "on" {
		t.Errorf("synchronous_commit %q before a write, %q at its commit; want off, then on", before, after)
	}

	// Nor may it set up a schema of its own: it may not create one.
	if err := pgnode.Setup(ctx, fleet.db, pgnode.WithSchema(schemaName(t))); sqlState(err) != "42501" ||
		!strings.HasPrefix(err.Error(), "pgnode: setting up schema ") {
		t.Errorf("Setup as the fleet's role: %v, want insufficient_privilege", err)
	}

	_, outsiderDSN := newRole(t, dsn, "outsider")
	outsider := newPool(t, outsiderDSN, "outsider")
	for _, sql := range []string{
		"SELECT * FROM " + s + ".keys",
		"SELECT * FROM " + s + ".list_keys('', true, 'z', true, 10)",
	} {
		if _, err := outsider.Exec(ctx, sql); sqlState(err) != "42501" {
			t.Errorf("as a role without grants, %s: %v, want insufficient_privilege", sql, err)
		}
	}
	_, err = pgnode.Acquire(ctx, outsider, pgnode.WithSchema(owner.schema))
	if sqlState(err) != "42501" || !strings.Contains(err.Error(), "grant this role USAGE on schema") {
		t.Errorf("Acquire as a role without grants: %v; want insufficient_privilege and what to grant", err)
	}
	t.Logf("Acquire as a role without grants: %v", err)
}

// TestSearchPathCannotRedirectTheFunctions: a fleet role's session that
// sets its own search_path and makes temporary tables named as the
// schema's (the functions run as their owner) changes nothing: the
// functions use the schema's tables. The node leases, mints and closes
// with one connection, so that every call runs in that session.
func TestSearchPathCannotRedirectTheFunctions(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	owner := newRealm(t, dsn)
	role, roleDSN := newRole(t, dsn, "fleet")
	grantLeasing(t, dsn, owner.schema, role)
	cfg, err := pgxpool.ParseConfig(roleDSN)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 1
	cfg.ConnConfig.RuntimeParams["search_path"] = "pg_temp, public"
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		// Every column any function names, in each of the three.
		for _, table := range []string{"keys", "leases", "store"} {
			if _, err := conn.Exec(ctx, "CREATE TEMP TABLE "+table+" (key text, value text, create_revision bigint, "+
				"mod_revision bigint, lease bigint, id bigint, ttl bigint, expires_at timestamptz, singleton boolean, "+
				"revision bigint, identity bigint)"); err != nil {
				return err
			}
		}
		return nil
	}
	db, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	fleet := realm{db: db, schema: owner.schema}
	n := fleet.acquire(t)
	last := mint(t, n, 100)[99]
	if err := n.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if record, ok := owner.record(t, n.NodeID()); !ok || record != last {
		t.Fatalf("the schema's record = %v (present %v), want the last ID %v", record, ok, last)
	}
	var temp int
	if err := db.QueryRow(context.Background(), "SELECT (SELECT count(*) FROM pg_temp.keys) + (SELECT count(*) FROM pg_temp.leases) + (SELECT count(*) FROM pg_temp.store)").Scan(&temp); err != nil {
		t.Fatal(err)
	}
	if temp != 0 {
		t.Fatalf("%d rows went to the session's temporary tables", temp)
	}
}

// TestTimeoutsSetByTheDBA: the DBA holds the store's row in a transaction
// of their own and leaves it idle, which the server ends after the
// session's idle_in_transaction_session_timeout; meanwhile the fleet
// role's writes are cancelled by its statement_timeout and come back as
// errors, its renewals (which take no lock on that row) go through, and a
// node rides it out on the high-water mark it wrote ahead.
func TestTimeoutsSetByTheDBA(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	owner := newRealm(t, dsn)
	role, roleDSN := newRole(t, dsn, "fleet", "statement_timeout = '500ms'")
	grantLeasing(t, dsn, owner.schema, role)
	fleet := realm{db: newPool(t, roleDSN, "fleet"), schema: owner.schema}
	var led ledger
	n := fleet.acquire(t)
	h := led.HolderOf("fleet", n)
	done := minting(n, h)

	ctx := context.Background()
	dba, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer dba.Close(ctx)
	if _, err := dba.Exec(ctx, "SET idle_in_transaction_session_timeout = '2s'"); err != nil {
		t.Fatal(err)
	}
	tx, err := dba.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "SELECT * FROM "+pgx.Identifier{owner.schema, "store"}.Sanitize()+" FOR UPDATE"); err != nil {
		t.Fatal(err)
	}
	held := time.Now()
	store := pgnode.StoreOf(fleet.db, owner.schema)
	start := time.Now()
	_, _, err = store.PutIfAbsent(ctx, "blocked/size", "8")
	if state := sqlState(err); state != "57014" || time.Since(start) > 1500*time.Millisecond {
		t.Errorf("a write while the row is held: %v (SQLSTATE %s) after %v; want query_canceled after about 500 ms",
			err, state, time.Since(start))
	}
	if ttl, _, err := store.KeepAliveOnce(ctx, n.LeaseID()); err != nil || ttl != int64(steadyTTL/time.Second) {
		t.Errorf("a renewal while the row is held: %d, %v", ttl, err)
	}
	// The server ends the idle transaction; its session's next statement
	// finds it gone.
	time.Sleep(time.Until(held.Add(3 * time.Second)))
	if err := tx.Commit(ctx); err == nil {
		t.Error("the DBA's idle transaction outlived idle_in_transaction_session_timeout")
	}
	if _, _, err := store.PutIfAbsent(ctx, "blocked/size", "8"); err != nil {
		t.Errorf("a write after the server ended the idle transaction: %v", err)
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
	next := fleet.acquire(t, takeOver(n, nil)...)
	led.HolderOf("next", next).Add(mint(t, next, 100)...)
	led.Check(t)
}

// TestIdentityWhereTheServerHidesIt: where the functions' owner may not
// read the system identifier or the WAL position (a managed service that
// revokes them), every answer carries the identity recorded at Setup (a
// random one, since Setup could not read it either) and no timeline, and
// the fleet leases as usual.
func TestIdentityWhereTheServerHidesIt(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	for _, fn := range []string{"pg_control_system()", "pg_current_wal_lsn()", "pg_walfile_name(pg_lsn)"} {
		c.exec("REVOKE EXECUTE ON FUNCTION " + fn + " FROM PUBLIC")
	}
	role, ownerDSN := newRole(t, c.dsn(), "owner")
	c.exec("GRANT CREATE ON DATABASE postgres TO " + role)
	r := newRealm(t, ownerDSN)
	ctx := context.Background()
	var recorded int64
	if err := newPool(t, c.dsn(), "superuser").QueryRow(ctx, "SELECT identity FROM "+pgx.Identifier{r.schema, "store"}.Sanitize()).Scan(&recorded); err != nil {
		t.Fatal(err)
	}
	var system int64
	if err := newPool(t, c.dsn(), "superuser").QueryRow(ctx, "SELECT system_identifier FROM pg_control_system()").Scan(&system); err != nil {
		t.Fatal(err)
	}
	if recorded == system || recorded == 0 {
		t.Fatalf("Setup recorded identity %x where it could not read the system identifier %x", recorded, system)
	}
	_, h, err := pgnode.StoreOf(r.db, r.schema).PutIfAbsent(ctx, "hidden/size", "8")
	if err != nil || h.ClusterID != uint64(recorded) || h.Timeline != 0 {
		t.Fatalf("an answer's header: %+v, %v; want the recorded identity %x and no timeline", h, err, recorded)
	}
	var led ledger
	n := r.acquire(t)
	led.HolderOf("first", n).Add(mint(t, n, 100)...)
	if err := n.Close(ctx); err != nil {
		t.Fatal(err)
	}
	next := r.acquire(t, takeOver(n, nil)...)
	led.HolderOf("next", next).Add(mint(t, next, 100)...)
	led.Check(t)
}
