package integration

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fastid/scru128"
)

// rollbackAllowance is how far scru128_generate() may stamp an ID from the
// server's clock: the specification's rollback allowance.
const rollbackAllowance = 10 * time.Second

// steerTarget is a table whose id column defaults to scru128_generate(),
// and a role that may only insert its body column.
type steerTarget struct {
	config *pgx.ConnConfig // the test's user, in the table's database
	writer string          // the role, which may log in
	admin  *pgx.Conn
}

func newSteerTarget(t *testing.T) steerTarget {
	t.Helper()
	admin, config := superuserConn(t)
	writer := randomName("writer")
	mustExec(t, admin, "CREATE ROLE "+writer+" LOGIN")
	t.Cleanup(func() {
		if _, err := admin.Exec(context.Background(), "DROP ROLE "+writer); err != nil {
			t.Errorf("dropping role %s: %v", writer, err)
		}
	})
	c := testDatabase(t, admin, config, "")
	installAs(t, c, "ids")
	conn := connectConfig(t, c)
	mustExec(t, conn,
		"CREATE TABLE public.events (seq pg_catalog.int8 GENERATED ALWAYS AS IDENTITY, session pg_catalog.text, id pg_catalog.uuid NOT NULL DEFAULT ids.scru128_generate(), body pg_catalog.text)",
		"GRANT INSERT (session, body) ON public.events TO "+writer,
	)
	return steerTarget{config: c, writer: writer, admin: conn}
}

// session logs in as the writer.
func (s steerTarget) session(t *testing.T) *pgx.Conn {
	t.Helper()
	c := s.config.Copy()
	c.User = s.writer
	// No statement cache: DISCARD ALL drops the prepared statements.
	c.DefaultQueryExecMode = pgx.QueryExecModeDescribeExec
	return connectConfig(t, c)
}

// insertion is one row the writer inserted, with the server's clock read
// before and after the INSERT in the writer's session.
type insertion struct {
	session, what string
	before, after time.Time
	// forged: the role set the generator's state before the INSERT.
	forged bool
}

// insert has conn insert one row, labelled with session and what was done
// before it, and returns the clock readings around it.
func (s steerTarget) insert(t *testing.T, conn *pgx.Conn, session, what string) insertion {
	t.Helper()
	ctx := context.Background()
	in := insertion{session: session, what: what}
	if err := conn.QueryRow(ctx, "SELECT pg_catalog.clock_timestamp()").Scan(&in.before); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO public.events (session, body) VALUES ($1, $2)", session, what); err != nil {
		t.Fatalf("insert after %s: %v", what, err)
	}
	if err := conn.QueryRow(ctx, "SELECT pg_catalog.clock_timestamp()").Scan(&in.after); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return in
}

// check reads the table's IDs and requires, for each session, IDs above
// every earlier ID of the session that was not minted from a state the
// role forged, and for every ID a timestamp within the rollback allowance
// of the clock around its INSERT.
func (s steerTarget) check(t *testing.T, ins []insertion) {
	t.Helper()
	rows, err := s.admin.Query(context.Background(), "SELECT id FROM public.events ORDER BY seq")
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[[16]byte])
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != len(ins) {
		t.Fatalf("%d rows, %d insertions", len(ids), len(ins))
	}
	last := map[string]scru128.ID{}
	for i, b := range ids {
		id, in := scru128.FromUUID(b), ins[i]
		if prev, ok := last[in.session]; ok && id.Compare(prev) <= 0 {
			t.Errorf("after %s: %s (%v) is not above %s (%v), which the session minted before", in.what, id, id.Time().UTC(), prev, prev.Time().UTC())
		}
		if !in.forged && id.Compare(last[in.session]) > 0 {
			last[in.session] = id
		}
		if at := id.Time(); at.Before(in.before.Add(-rollbackAllowance)) || at.After(in.after.Add(rollbackAllowance)) {
			t.Errorf("after %s: %s is stamped %v, more than %v from the server's clock (%v to %v)",
				in.what, id, at.UTC(), rollbackAllowance, in.before.UTC(), in.after.UTC())
		}
	}
}

// generatorSettings returns the custom settings that hold state of
// scru128_generate() in conn's session, which a role can find as the test
// does: the function's source, which anyone may read, names them after
// relations of its schema.
func generatorSettings(t *testing.T, conn *pgx.Conn) map[string]string {
	t.Helper()
	ctx := context.Background()
	var src string
	if err := conn.QueryRow(ctx, "SELECT prosrc FROM pg_catalog.pg_proc WHERE proname OPERATOR(pg_catalog.=) 'scru128_generate'").Scan(&src); err != nil {
		t.Fatal(err)
	}
	prefixes := regexp.MustCompile(`'(scru128\.[a-z_]+)'`).FindAllStringSubmatch(src, -1)
	if len(prefixes) == 0 {
		t.Fatalf("no setting named in the source of scru128_generate():\n%s", src)
	}
	out := map[string]string{}
	for _, p := range prefixes {
		rows, err := conn.Query(ctx, `
			SELECT $1 OPERATOR(pg_catalog.||) c.oid::pg_catalog.text FROM pg_catalog.pg_class c
			WHERE c.relnamespace OPERATOR(pg_catalog.=) 'ids'::pg_catalog.regnamespace`, p[1])
		if err != nil {
			t.Fatal(err)
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range append(names, p[1]) {
			var v *string
			if err := conn.QueryRow(ctx, "SELECT pg_catalog.current_setting($1, true)", name).Scan(&v); err != nil {
				t.Fatal(err)
			}
			if v != nil && *v != "" {
				out[name] = *v
			}
		}
	}
	return out
}

// forgeries returns values a role might write over a state value: its
// timestamp and counters each set to zero, to the largest value, and moved
// a little and ten seconds (or 2^37 counts) either way, in the
// generator's form; the value emptied, cut short, made longer, in capitals
// and in the previous release's "ts:counters" form; and garbage.
func forgeries(value string) []string {
	out := []string{"", "garbage", "0:281474976710000:0:0", "ffffffffffffffffffffffff", strings.ToUpper(value)}
	if len(value) > 1 {
		out = append(out, value[1:], value+"0")
	}
	ts, counters, ok := parseState(value)
	if !ok {
		return out
	}
	out = append(out, fmt.Sprintf("%d:%d", ts, counters))
	const max = 1<<48 - 1
	for _, v := range []int64{0, max, ts + 5000, ts - 1000, ts + 1, ts - 1, ts + 20_000, ts - 10_000} {
		if v >= 0 && v <= max {
			out = append(out, stateValue(v, counters))
		}
	}
	for _, v := range []int64{0, max, counters + 1, counters - 1, counters + 1<<37, counters - 1<<37} {
		if v >= 0 && v <= max {
			out = append(out, stateValue(ts, v))
		}
	}
	return out
}

// TestSQLGenerateSteered has a role that may only insert a table's body
// column, whose id defaults to scru128_generate(), try everything a role
// can do to the generator's state between its INSERTs: write over every
// setting the function's source names (with set_config, session-wide and
// in a transaction, and with ALTER ROLE ... SET and ALTER DATABASE ... SET
// for its next session), replay earlier values,
// RESET ALL, DISCARD ALL, and take numbers from or set any sequence of the
// functions' schema. Every ID must be above the IDs its session minted
// before at the clock's time (a role that sets the state may put its next
// IDs below those it minted from a state it set, and no lower), and
// stamped within the rollback allowance of the server's clock.
func TestSQLGenerateSteered(t *testing.T) {
	s := newSteerTarget(t)
	ctx := context.Background()
	conn := s.session(t)
	var ins []insertion
	ins = append(ins, s.insert(t, conn, "1", "the first INSERT"))
	seen := map[string][]string{}
	for round := range 2 {
		for name, value := range generatorSettings(t, conn) {
			seen[name] = append(seen[name], value)
			for _, forged := range append(forgeries(value), seen[name]...) {
				for _, how := range []string{"session", "transaction"} {
					what := fmt.Sprintf("round %d: set_config(%q, %q) for the %s", round, name, forged, how)
					if how == "session" {
						if _, err := conn.Exec(ctx, "SELECT pg_catalog.set_config($1, $2, false)", name, forged); err != nil {
							t.Fatalf("%s: %v", what, err)
						}
						in := s.insert(t, conn, "1", what)
						in.forged = true
						ins = append(ins, in)
						continue
					}
					if _, err := conn.Exec(ctx, "BEGIN"); err != nil {
						t.Fatal(err)
					}
					if _, err := conn.Exec(ctx, "SELECT pg_catalog.set_config($1, $2, true)", name, forged); err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					in := s.insert(t, conn, "1", what)
					in.forged = true
					ins = append(ins, in)
					if _, err := conn.Exec(ctx, "COMMIT"); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	if len(seen) == 0 {
		t.Fatal("found no setting of the generator's to write over")
	}
	for _, q := range []string{"RESET ALL", "DISCARD ALL", "DISCARD SEQUENCES", "DISCARD TEMP"} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		ins = append(ins, s.insert(t, conn, "1", q))
	}
	// The sequences of the functions' schema: whatever the role may do to
	// them, it does.
	rows, err := conn.Query(ctx, `SELECT c.oid::pg_catalog.regclass::pg_catalog.text FROM pg_catalog.pg_class c
		WHERE c.relnamespace OPERATOR(pg_catalog.=) 'ids'::pg_catalog.regnamespace AND c.relkind OPERATOR(pg_catalog.=) 'S'`)
	if err != nil {
		t.Fatal(err)
	}
	sequences, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	for _, seq := range sequences {
		for _, q := range []string{
			"SELECT pg_catalog.nextval($1::pg_catalog.regclass) FROM pg_catalog.generate_series(1, 3)",
			"SELECT pg_catalog.setval($1::pg_catalog.regclass, 1)",
			"SELECT pg_catalog.setval($1::pg_catalog.regclass, 281474976710000)",
		} {
			if _, err := conn.Exec(ctx, q, seq); err != nil {
				t.Logf("%s on %s: %v", q, seq, err)
				continue
			}
			ins = append(ins, s.insert(t, conn, "1", strings.Replace(q, "$1", seq, 1)))
		}
	}

	// Defaults for the role's and the database's next sessions.
	for name, values := range seen {
		for _, forged := range forgeries(values[0])[:6] {
			for _, scope := range []string{"ROLE " + s.writer, "DATABASE " + s.config.Database} {
				stmt := fmt.Sprintf("ALTER %s SET %s = %s", scope, name, quoteLiteral(forged))
				// A role may set its own defaults on PostgreSQL 13 and 14
				// (from 15, for a setting no module defines, only a
				// superuser may), and the database's owner the
				// database's: the test's user does both.
				setter := s.admin
				if _, err := setter.Exec(ctx, stmt); err != nil {
					t.Fatalf("%s: %v", stmt, err)
				}
				next := s.session(t)
				session := fmt.Sprintf("after %s", stmt)
				for _, what := range []string{stmt, stmt + ", again"} {
					in := s.insert(t, next, session, what)
					in.forged = true
					ins = append(ins, in)
				}
				next.Close(ctx)
				reset := fmt.Sprintf("ALTER %s RESET %s", scope, name)
				if _, err := setter.Exec(ctx, reset); err != nil {
					t.Fatalf("%s: %v", reset, err)
				}
			}
		}
	}
	s.check(t, ins)
}

// quoteLiteral quotes s as an SQL string literal.
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
