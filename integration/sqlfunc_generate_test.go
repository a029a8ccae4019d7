package integration

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fastid/scru128"
)

// minted is IDs from scru128_generate() and the server's clock read before
// and after the statement that minted them.
type minted struct {
	ids           []scru128.ID
	before, after time.Time
}

// generate mints n IDs in one statement on conn.
func generate(t *testing.T, conn *pgx.Conn, n int) minted {
	t.Helper()
	return generateQuery(t, conn, fmt.Sprintf("SELECT scru128_generate() FROM generate_series(1, %d)", n))
}

// generateQuery runs q, which returns one uuid column, and reads the clock
// around it.
func generateQuery(t *testing.T, conn *pgx.Conn, q string) minted {
	t.Helper()
	ctx := context.Background()
	var m minted
	if err := conn.QueryRow(ctx, "SELECT pg_catalog.clock_timestamp()").Scan(&m.before); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := pgx.CollectRows(rows, pgx.RowTo[[16]byte])
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	for _, b := range raw {
		m.ids = append(m.ids, scru128.FromUUID(b))
	}
	if err := conn.QueryRow(ctx, "SELECT pg_catalog.clock_timestamp()").Scan(&m.after); err != nil {
		t.Fatal(err)
	}
	return m
}

// checkMinted requires that the IDs increase strictly, parse back from
// their text in Go, and carry a timestamp between the clock readings
// around their statement.
func checkMinted(t *testing.T, m minted) {
	t.Helper()
	for i, id := range m.ids {
		if parsed, err := scru128.Parse(id.String()); err != nil || parsed != id {
			t.Fatalf("%s: Parse gives %v, %v", id, parsed, err)
		}
		if i > 0 && id.Compare(m.ids[i-1]) <= 0 {
			t.Fatalf("ID %d, %s, is not above the one before, %s", i, id, m.ids[i-1])
		}
		if ms := int64(id.Timestamp()); ms < m.before.UnixMilli() || ms > m.after.UnixMilli() {
			t.Fatalf("ID %d, %s, has timestamp %d, outside the clock's %d to %d", i, id, ms, m.before.UnixMilli(), m.after.UnixMilli())
		}
	}
}

// checkAbove requires every ID of later to be above every ID of earlier.
func checkAbove(t *testing.T, earlier []scru128.ID, later []scru128.ID) {
	t.Helper()
	top := slices.MaxFunc(earlier, scru128.ID.Compare)
	for _, id := range later {
		if id.Compare(top) <= 0 {
			t.Fatalf("%s is not above %s, minted before it", id, top)
		}
	}
}

// TestSQLGenerate mints 10,000 IDs in one statement and 200 in statements
// of their own, and checks them against the generator's layout: strictly
// increasing, the server's time, and within a millisecond the same 37
// random bits below counter_hi's microsecond field, counting on.
func TestSQLGenerate(t *testing.T) {
	conn := installSQLFunctions(t).connect(t)
	batch := generate(t, conn, 10_000)
	checkMinted(t, batch)
	all := batch.ids
	for range 200 {
		m := generate(t, conn, 1)
		checkMinted(t, m)
		checkAbove(t, all, m.ids)
		all = append(all, m.ids...)
	}
	sameMs := 0
	counters := func(id scru128.ID) uint64 { return uint64(id.CounterHi())<<24 | uint64(id.CounterLo()) }
	for i, id := range all {
		if us := counters(id) >> 38; us > 999 {
			t.Errorf("%s: microsecond field %d", id, us)
		}
		if i == 0 || id.Timestamp() != all[i-1].Timestamp() {
			continue
		}
		sameMs++
		prev := all[i-1]
		// The bits below the microsecond field count on by one; the field
		// moves up to the clock's microsecond.
		if counters(id)&(1<<38-1) != counters(prev)&(1<<38-1)+1 || counters(id)>>38 < counters(prev)>>38 {
			t.Errorf("%s follows %s in the same millisecond, but does not count on from it", id, prev)
		}
	}
	if sameMs < 1000 {
		t.Errorf("only %d IDs share a millisecond with the one before: the counters are barely tested", sameMs)
	}
}

// TestSQLGenerateRenewal checks that the random bits below the microsecond
// field stay within a millisecond and are drawn again in the next: IDs
// 300 ms apart differ in them (unless a new draw equals the old, one
// chance in 2^37).
func TestSQLGenerateRenewal(t *testing.T) {
	conn := installSQLFunctions(t).connect(t)
	var ids []scru128.ID
	for _, pause := range []time.Duration{0, 300 * time.Millisecond} {
		time.Sleep(pause)
		ids = append(ids, generate(t, conn, 1).ids[0])
	}
	low := func(id scru128.ID) uint64 { return (uint64(id.CounterHi())<<24 | uint64(id.CounterLo())) & (1<<37 - 1) }
	if low(ids[1]) == low(ids[0]) {
		t.Errorf("the random counter bits were not drawn again in a new millisecond: %s, %s", ids[0], ids[1])
	}
}

// TestSQLGenerateDefault uses scru128_generate() as a column DEFAULT: rows
// inserted one at a time and by the thousand get increasing IDs in the
// order they were inserted.
func TestSQLGenerateDefault(t *testing.T) {
	conn := installSQLFunctions(t).connect(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE generated (seq bigserial PRIMARY KEY, id uuid NOT NULL DEFAULT scru128_generate())",
		"INSERT INTO generated DEFAULT VALUES",
		"INSERT INTO generated (seq) SELECT nextval('generated_seq_seq') FROM generate_series(1, 1000)",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for range 100 {
		if _, err := conn.Exec(ctx, "INSERT INTO generated DEFAULT VALUES"); err != nil {
			t.Fatal(err)
		}
	}
	m := generateQuery(t, conn, "SELECT id FROM generated ORDER BY seq")
	if len(m.ids) != 1101 {
		t.Fatalf("%d rows, want 1101", len(m.ids))
	}
	for i := 1; i < len(m.ids); i++ {
		if m.ids[i].Compare(m.ids[i-1]) <= 0 {
			t.Fatalf("row %d: %s is not above %s", i, m.ids[i], m.ids[i-1])
		}
	}
}

// TestSQLGenerateSessions mints in four sessions at once: each session's
// IDs increase, and no ID repeats.
func TestSQLGenerateSessions(t *testing.T) {
	f := installSQLFunctions(t)
	const sessions, statements, perStatement = 4, 50, 100
	conns := make([]*pgx.Conn, sessions)
	for i := range conns {
		conns[i] = f.connect(t)
	}
	results := make([][]scru128.ID, sessions)
	errs := make([]error, sessions)
	var wg sync.WaitGroup
	for i, conn := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q := fmt.Sprintf("SELECT scru128_generate() FROM generate_series(1, %d)", perStatement)
			for range statements {
				rows, err := conn.Query(context.Background(), q)
				if err != nil {
					errs[i] = err
					return
				}
				raw, err := pgx.CollectRows(rows, pgx.RowTo[[16]byte])
				if err != nil {
					errs[i] = err
					return
				}
				for _, b := range raw {
					results[i] = append(results[i], scru128.FromUUID(b))
				}
			}
		}()
	}
	wg.Wait()
	seen := map[scru128.ID]int{}
	for i, ids := range results {
		if errs[i] != nil {
			t.Fatalf("session %d: %v", i, errs[i])
		}
		if len(ids) != statements*perStatement {
			t.Fatalf("session %d: %d IDs", i, len(ids))
		}
		for j, id := range ids {
			if j > 0 && id.Compare(ids[j-1]) <= 0 {
				t.Fatalf("session %d: %s is not above %s", i, id, ids[j-1])
			}
			if other, dup := seen[id]; dup {
				t.Fatalf("%s minted by sessions %d and %d", id, other, i)
			}
			seen[id] = i
		}
	}
}

// TestSQLGenerateRollback undoes the generator's state in every way a
// session can, after IDs were minted and seen, and requires the next ID to
// be above all of them and still to carry the server's time. The undoing
// statements and the next call go to the server in one batch, so that the
// lost IDs and the next one mostly share a millisecond, where a generator
// that forgot them would repeat their counters.
func TestSQLGenerateRollback(t *testing.T) {
	f := installSQLFunctions(t)
	const gen = "SELECT scru128_generate() FROM generate_series(1, 5)"
	for _, tc := range []struct {
		name string
		// undo mints five IDs and makes the session's state lose them;
		// then the test mints one more, and runs after.
		undo, after []string
		// fresh runs each round in a new session.
		fresh bool
	}{
		{"rollback", []string{"BEGIN", gen, "ROLLBACK"}, nil, false},
		{"rollback of a session's first transaction", []string{"BEGIN", gen, "ROLLBACK"}, nil, true},
		{"rollback to savepoint", []string{"BEGIN", "SAVEPOINT s", gen, "ROLLBACK TO SAVEPOINT s"}, []string{"COMMIT"}, false},
		{"exception caught in PL/pgSQL", []string{`DO $$
			BEGIN
				BEGIN
					FOR i IN 1..5 LOOP
						RAISE NOTICE '%', scru128_generate(); -- the IDs leave the block only as notices
					END LOOP;
					RAISE EXCEPTION 'undo';
				EXCEPTION WHEN raise_exception THEN
					NULL;
				END;
			END $$`}, nil, false},
		{"RESET ALL", []string{gen, "RESET ALL"}, nil, false},
		{"DISCARD SEQUENCES", []string{gen, "DISCARD SEQUENCES"}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var notices []string
			config := f.config.Copy()
			config.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notices = append(notices, n.Message) }
			var conn *pgx.Conn
			var all []scru128.ID
			for round := range 20 {
				if tc.fresh || round == 0 {
					conn = connectConfig(t, config)
				}
				if !tc.fresh && round == 0 {
					all = generate(t, conn, 10).ids
				}
				notices = nil
				stmts := append(append([]string{"SELECT clock_timestamp()"}, tc.undo...),
					"SELECT scru128_generate()", "SELECT clock_timestamp()")
				results := runBatch(t, conn, append(stmts, tc.after...))
				var lost []scru128.ID
				for i, q := range tc.undo {
					if q == gen {
						lost = append(lost, idsOf(t, results[1+i])...)
					}
				}
				for _, n := range notices {
					lost = append(lost, scru128.FromUUID(uuidBytes(n)))
				}
				if len(lost) != 5 {
					t.Fatalf("%d IDs lost, want 5", len(lost))
				}
				next := minted{
					ids:    idsOf(t, results[1+len(tc.undo)]),
					before: results[0][0].(time.Time),
					after:  results[2+len(tc.undo)][0].(time.Time),
				}
				checkMinted(t, next)
				checkAbove(t, append(all, lost...), next.ids)
				all = append(append(all, lost...), next.ids...)
			}
		})
	}
}

// TestSQLGenerateDiscardAll mints, ends the session's state with DISCARD
// ALL, as a connection pool does between clients, and mints again, twenty
// times: each ID is above all before it. DISCARD ALL cannot share a batch
// with other statements, so this runs apart from TestSQLGenerateRollback.
func TestSQLGenerateDiscardAll(t *testing.T) {
	f := installSQLFunctions(t)
	config := f.config.Copy()
	config.DefaultQueryExecMode = pgx.QueryExecModeDescribeExec // DISCARD ALL drops prepared statements
	conn := connectConfig(t, config)
	all := generate(t, conn, 5).ids
	for range 20 {
		if _, err := conn.Exec(context.Background(), "DISCARD ALL"); err != nil {
			t.Fatal(err)
		}
		// DISCARD ALL resets the search_path too.
		m := generateQuery(t, conn, fmt.Sprintf("SELECT %s.scru128_generate() FROM pg_catalog.generate_series(1, 3)", f.schema))
		checkMinted(t, m)
		checkAbove(t, all, m.ids)
		all = append(all, m.ids...)
	}
}

// runBatch sends stmts to the server in one batch and returns the first
// column of the rows of each.
func runBatch(t *testing.T, conn *pgx.Conn, stmts []string) [][]any {
	t.Helper()
	batch := &pgx.Batch{}
	for _, q := range stmts {
		batch.Queue(q)
	}
	br := conn.SendBatch(context.Background(), batch)
	defer br.Close()
	out := make([][]any, len(stmts))
	for i, q := range stmts {
		rows, err := br.Query()
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for rows.Next() {
			v, err := rows.Values()
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			out[i] = append(out[i], v[0])
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return out
}

// idsOf converts uuid values read by runBatch to IDs.
func idsOf(t *testing.T, values []any) []scru128.ID {
	t.Helper()
	ids := make([]scru128.ID, len(values))
	for i, v := range values {
		b, ok := v.([16]byte)
		if !ok {
			t.Fatalf("%T is not a uuid", v)
		}
		ids[i] = scru128.FromUUID(b)
	}
	return ids
}

// generatorState reads and writes the session's generator state, the
// setting scru128.generator (the last ID's first 24 hex digits: its
// timestamp and counters), to put the generator where a test cannot bring
// the server's clock: ahead of it, or at a counter overflow. Any role may:
// the state is no secret, and the generator takes it only within the
// rollback allowance of the clock.
type generatorState struct {
	conn *pgx.Conn
}

func newGeneratorState(t *testing.T, conn *pgx.Conn) generatorState {
	t.Helper()
	return generatorState{conn}
}

// stateValue is the generator's state for an ID of timestamp ts (Unix
// milliseconds) and counters (counter_hi * 2^24 + counter_lo).
func stateValue(ts, counters int64) string { return fmt.Sprintf("%012x%012x", ts, counters) }

// parseState returns the fields of a state value, ok false if it is not
// one the generator writes.
func parseState(state string) (ts, counters int64, ok bool) {
	if len(state) != 24 || strings.Trim(state, "0123456789abcdef") != "" {
		return 0, 0, false
	}
	a, err1 := strconv.ParseInt(state[:12], 16, 64)
	b, err2 := strconv.ParseInt(state[12:], 16, 64)
	return a, b, err1 == nil && err2 == nil
}

// get returns the state's fields, which the last call of the session
// wrote.
func (g generatorState) get(t *testing.T) (ts, counters int64) {
	t.Helper()
	var state string
	if err := g.conn.QueryRow(context.Background(), "SELECT current_setting('scru128.generator')").Scan(&state); err != nil {
		t.Fatal(err)
	}
	ts, counters, ok := parseState(state)
	if !ok {
		t.Fatalf("state %q: not 24 hex digits", state)
	}
	return ts, counters
}

// set writes a state for the session's next call.
func (g generatorState) set(t *testing.T, ts, counters int64) {
	t.Helper()
	if _, err := g.conn.Exec(context.Background(), "SELECT set_config('scru128.generator', $1, false)", stateValue(ts, counters)); err != nil {
		t.Fatal(err)
	}
}

// TestSQLGenerateClockBehind puts the last ID ahead of the server's clock:
// by 5 s the generator counts on from it, as the specification's rollback
// allowance of 10 s says; by 20 s it starts over at the clock. A counter
// overflow moves to the next millisecond with counter_hi at zero.
func TestSQLGenerateClockBehind(t *testing.T) {
	conn := installSQLFunctions(t).connect(t)
	g := newGeneratorState(t, conn)
	generate(t, conn, 1)

	ts, counters := g.get(t)
	g.set(t, ts+5000, counters)
	id := generate(t, conn, 1).ids[0]
	if int64(id.Timestamp()) != ts+5000 || int64(id.CounterHi())<<24|int64(id.CounterLo()) != counters+1 {
		t.Errorf("5 s behind: %s (timestamp %d), want timestamp %d and counters %d", id, id.Timestamp(), ts+5000, counters+1)
	}

	ts, counters = g.get(t)
	g.set(t, ts+20_000, counters)
	m := generate(t, conn, 1)
	checkMinted(t, m) // the clock's time again, below the last ID: a reset

	ts, _ = g.get(t)
	g.set(t, ts+1000, 1<<48-1)
	id = generate(t, conn, 1).ids[0]
	if int64(id.Timestamp()) != ts+1001 || id.CounterHi() != 0 {
		t.Errorf("after an overflow: %s (timestamp %d, counter_hi %d), want timestamp %d and counter_hi 0", id, id.Timestamp(), id.CounterHi(), ts+1001)
	}

	// IDs lost to a rollback while the generator is ahead of the clock: the
	// rollback puts back the state from before them, and nothing else
	// remembers them, so the next ID need not be above them (the guide's
	// limit: state lost while the clock is behind). It is above every ID
	// the session minted at the clock's time, and stamped within the
	// allowance.
	if _, err := conn.Exec(context.Background(), "RESET ALL"); err != nil { // back to the clock
		t.Fatal(err)
	}
	clockIDs := generate(t, conn, 3).ids
	ts, counters = g.get(t)
	g.set(t, ts+5000, counters)
	results := runBatch(t, conn, []string{
		"BEGIN", "SELECT scru128_generate() FROM generate_series(1, 5)", "ROLLBACK", "SELECT scru128_generate()",
	})
	lost, next := idsOf(t, results[1]), idsOf(t, results[3])
	checkAbove(t, clockIDs, next)
	if int64(lost[0].Timestamp()) != ts+5000 || int64(next[0].Timestamp()) != ts+5000 {
		t.Errorf("the IDs are not counted on ahead of the clock: %s, %s", lost[0], next[0])
	}
}

// TestSQLGenerateReadOnly mints in a read-only transaction: the generator
// writes nothing but a setting, which a read-only transaction (and a hot
// standby) allows. (The previous design took numbers from a sequence, and
// such a transaction refused it.)
func TestSQLGenerateReadOnly(t *testing.T) {
	conn := installSQLFunctions(t).connect(t)
	ctx := context.Background()
	before := generate(t, conn, 3)
	if _, err := conn.Exec(ctx, "BEGIN READ ONLY"); err != nil {
		t.Fatal(err)
	}
	m := generate(t, conn, 3)
	checkMinted(t, m)
	checkAbove(t, before.ids, m.ids)
	if _, err := conn.Exec(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
}

// TestSQLGenerateOtherRole mints as a role that owns nothing and has only
// USAGE on the functions' schema: the generator needs no privilege at all.
func TestSQLGenerateOtherRole(t *testing.T) {
	f := installSQLFunctions(t)
	conn := f.connect(t)
	ctx := context.Background()
	var superuser bool
	if err := conn.QueryRow(ctx, "SELECT rolsuper FROM pg_roles WHERE rolname = current_user").Scan(&superuser); err != nil {
		t.Fatal(err)
	}
	if !superuser {
		t.Skip("the test user cannot create a role")
	}
	role := f.schema + "_user"
	for _, q := range []string{
		"CREATE ROLE " + role,
		"GRANT USAGE ON SCHEMA " + f.schema + " TO " + role,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		for _, q := range []string{"RESET ROLE", "REVOKE USAGE ON SCHEMA " + f.schema + " FROM " + role, "DROP ROLE " + role} {
			if _, err := conn.Exec(context.Background(), q); err != nil {
				t.Errorf("%s: %v", q, err)
			}
		}
	})
	if _, err := conn.Exec(ctx, "SET ROLE "+role); err != nil {
		t.Fatal(err)
	}
	checkMinted(t, generate(t, conn, 10))
}
