package integration

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// hostileMark starts the warning each of the hostile role's objects raises
// when it runs, so that a test can tell that one ran.
const hostileMark = "scru128-hostile:"

// superuserConn connects to the test server as the test's user, which
// must be a superuser to make databases and roles; without one the test
// is skipped, or fails where a server is required.
func superuserConn(t *testing.T) (*pgx.Conn, *pgx.ConnConfig) {
	t.Helper()
	config, err := pgx.ParseConfig(postgresDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	conn := connectConfig(t, config)
	var superuser bool
	if err := conn.QueryRow(context.Background(), "SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname OPERATOR(pg_catalog.=) current_user").Scan(&superuser); err != nil {
		t.Fatal(err)
	}
	if !superuser {
		if os.Getenv(postgresRequiredEnv) != "" {
			t.Fatal("the test user is not a superuser: it cannot make the databases and roles the test needs")
		}
		t.Skip("the test user is not a superuser")
	}
	return conn, config
}

// randomName returns prefix and a random suffix, for a database, role or
// schema of one test.
func randomName(prefix string) string {
	return prefix + "_" + strconv.FormatUint(mrand.Uint64(), 36)
}

// mustExec runs statements on conn, failing the test on the first error.
func mustExec(t *testing.T, conn *pgx.Conn, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := conn.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// testRole makes a role without login for the test, dropped when it ends
// (after the databases the test makes, which hold its objects).
func testRole(t *testing.T, admin *pgx.Conn, prefix string) string {
	t.Helper()
	name := randomName(prefix)
	mustExec(t, admin, "CREATE ROLE "+name)
	t.Cleanup(func() {
		if _, err := admin.Exec(context.Background(), "DROP ROLE "+name); err != nil {
			t.Errorf("dropping role %s: %v", name, err)
		}
	})
	return name
}

// testDatabase makes a database of its own for the test, so that what the
// test puts in its public schema reaches no other test, and returns a
// config that connects to it. The database is dropped when the test ends.
func testDatabase(t *testing.T, admin *pgx.Conn, config *pgx.ConnConfig, options string) *pgx.ConnConfig {
	t.Helper()
	name := randomName("scru128_test")
	mustExec(t, admin, "CREATE DATABASE "+name+" "+options)
	t.Cleanup(func() {
		if _, err := admin.Exec(context.Background(), "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("dropping database %s: %v", name, err)
		}
	})
	c := config.Copy()
	c.Database = name
	return c
}

// installAs runs the SQL file on a new session of config, as the test's
// user, with schema first on the search_path; unless the schema is public
// it makes the schema and lets everyone use it, as the guide says.
func installAs(t *testing.T, config *pgx.ConnConfig, schema string) {
	t.Helper()
	c := config.Copy()
	c.RuntimeParams["search_path"] = schema
	conn := connectConfig(t, c)
	if schema != "public" {
		mustExec(t, conn, "CREATE SCHEMA "+schema, "GRANT USAGE ON SCHEMA "+schema+" TO PUBLIC")
	}
	sqlFunctions{schema: schema, config: c}.run(t, conn)
	conn.Close(context.Background())
}

// hostileObjects has role mallory make, in each of schemas, an object for
// every name the SQL file uses: an operator of each name the file's bodies
// use for each pair of argument types the file's values can have, a
// function of each name the bodies call for each of pg_catalog's signatures
// of that name and for text arguments, a domain named after each type, a
// sequence or table named after each of the file's own, and functions named
// after the file's own with other arguments. Each raises a warning that
// starts with hostileMark and returns NULL or nothing. It returns how many
// objects it made.
func hostileObjects(t *testing.T, conn *pgx.Conn, mallory string, schemas []string, uses sqlUses, ownFunctions []string) int {
	t.Helper()
	// The types an operand in the file can have: those its bodies name,
	// and those of its literals and of what its functions return. (Record
	// and the reg* types name no operand.)
	types := []string{"int8", "int4", "int2", "numeric", "float8", "bool", "text", "bytea", "timestamptz", "interval", "\"char\""}
	for typ := range uses.types {
		if !slices.Contains(types, typ) && typ != "record" && !strings.HasPrefix(typ, "reg") {
			types = append(types, typ)
		}
	}
	slices.Sort(types)
	ops := slices.Sorted(mapKeys(uses.operators))
	fns := slices.Sorted(mapKeys(uses.functions))
	ctx := context.Background()
	for name, list := range map[string][]string{
		"schemas": schemas, "ops": ops, "types": types, "fns": fns, "own": ownFunctions,
		"relations": {"scru128_generate_calls", "scru128_generate_high", "scru128_generate_lock"},
	} {
		if _, err := conn.Exec(ctx, "SELECT pg_catalog.set_config($1, $2, false)", "hostile."+name, strings.Join(list, " ")); err != nil {
			t.Fatal(err)
		}
	}
	mustExec(t, conn, "SET ROLE "+mallory)
	defer mustExec(t, conn, "RESET ROLE")
	// The block itself names pg_catalog's objects bare: it runs with
	// pg_catalog alone on the search_path, so that what it makes early does
	// not replace what it calls later.
	mustExec(t, conn, "SET search_path = pg_catalog, pg_temp", "CREATE TEMPORARY TABLE hostile_made (n int)")
	_, err := conn.Exec(ctx, `
		DO $hostile$
		DECLARE
		  s text; op text; l text; r text; ret text; fn text; own text; rel text; body text;
		  p record; made int := 0;
		BEGIN
		  FOREACH s IN ARRAY string_to_array(current_setting('hostile.schemas'), ' ') LOOP
		    -- a function to call from CHECK constraints, and the operators
		    EXECUTE format($f$CREATE FUNCTION %I.hostile_check(anyelement) RETURNS boolean LANGUAGE plpgsql AS
		      'BEGIN RAISE WARNING ''%s %%'', ''a domain''; RETURN true; END'$f$, s, current_setting('hostile.mark'));
		    FOREACH op IN ARRAY string_to_array(current_setting('hostile.ops'), ' ') LOOP
		      FOREACH l IN ARRAY string_to_array(current_setting('hostile.types'), ' ') LOOP
		        FOREACH r IN ARRAY string_to_array(current_setting('hostile.types'), ' ') LOOP
		          SELECT o.oprresult::regtype::text INTO ret FROM pg_operator o
		            WHERE o.oprname = op AND o.oprleft = l::regtype AND o.oprright = r::regtype
		              AND o.oprnamespace = 'pg_catalog'::regnamespace;
		          IF ret IS NULL THEN
		            ret := CASE WHEN op IN ('=', '<>', '<', '>', '<=', '>=', '!~', '~') THEN 'boolean' ELSE l END;
		          END IF;
		          -- one function for each signature, shared by the operators
		          fn := format('hostile_op_%s_%s_%s', l, r, replace(ret, ' ', '_'));
		          IF to_regprocedure(format('%I.%I(%s, %s)', s, fn, l, r)) IS NULL THEN
		            body := format('BEGIN RAISE WARNING %L, %L; RETURN NULL; END', current_setting('hostile.mark') || ' %',
		              format('an operator of %s on (%s, %s)', s, l, r));
		            EXECUTE format('CREATE FUNCTION %I.%I(%s, %s) RETURNS %s LANGUAGE plpgsql AS %L', s, fn, l, r, ret, body);
		          END IF;
		          BEGIN
		            EXECUTE format('CREATE OPERATOR %I.%s (LEFTARG = %s, RIGHTARG = %s, FUNCTION = %I.%I)', s, op, l, r, s, fn);
		            made := made + 1;
		          EXCEPTION WHEN others THEN NULL;
		          END;
		        END LOOP;
		      END LOOP;
		    END LOOP;
		    -- functions of pg_catalog's names and signatures, and of text arguments
		    FOR p IN
		      SELECT DISTINCT f.proname::text AS name, pg_get_function_identity_arguments(f.oid) AS args,
		             f.prorettype::regtype::text AS ret, f.proretset AS retset
		      FROM pg_proc f
		      WHERE f.pronamespace = 'pg_catalog'::regnamespace AND f.prokind = 'f'
		        AND f.proname = ANY (string_to_array(current_setting('hostile.fns'), ' '))
		      UNION
		      SELECT DISTINCT f.proname::text, array_to_string(array_fill('text'::text, ARRAY[f.pronargs::int]), ', '), 'text', false
		      FROM pg_proc f
		      WHERE f.pronamespace = 'pg_catalog'::regnamespace AND f.prokind = 'f'
		        AND f.proname = ANY (string_to_array(current_setting('hostile.fns'), ' '))
		    LOOP
		      body := format('BEGIN RAISE WARNING %L, %L; RETURN%s; END', current_setting('hostile.mark') || ' %',
		        format('function %s.%s(%s)', s, p.name, p.args), CASE WHEN p.retset OR p.ret = 'void' THEN '' ELSE ' NULL' END);
		      BEGIN
		        EXECUTE format('CREATE FUNCTION %I.%I(%s) RETURNS %s%s LANGUAGE plpgsql AS %L',
		          s, p.name, p.args, CASE WHEN p.retset THEN 'SETOF ' ELSE '' END, p.ret, body);
		        made := made + 1;
		      EXCEPTION WHEN others THEN NULL;
		      END;
		    END LOOP;
		    -- domains named after the types
		    FOREACH l IN ARRAY string_to_array(current_setting('hostile.types'), ' ') LOOP
		      BEGIN
		        EXECUTE format('CREATE DOMAIN %I.%I AS pg_catalog.%I CHECK (%I.hostile_check(VALUE))', s, l, l, s);
		        made := made + 1;
		      EXCEPTION WHEN others THEN NULL;
		      END;
		    END LOOP;
		    -- relations named after the file's
		    FOREACH rel IN ARRAY string_to_array(current_setting('hostile.relations'), ' ') LOOP
		      BEGIN
		        IF rel LIKE '%lock' THEN
		          EXECUTE format('CREATE TABLE %I.%I ()', s, rel);
		        ELSE
		          EXECUTE format('CREATE SEQUENCE %I.%I', s, rel);
		        END IF;
		        EXECUTE format('GRANT ALL ON %I.%I TO PUBLIC', s, rel);
		        made := made + 1;
		      EXCEPTION WHEN others THEN NULL;
		      END;
		    END LOOP;
		    -- functions named after the file's, with other arguments
		    FOREACH own IN ARRAY string_to_array(current_setting('hostile.own'), ' ') LOOP
		      FOREACH l IN ARRAY ARRAY['', 'text', 'anyelement', 'text, text'] LOOP
		        body := format('BEGIN RAISE WARNING %L, %L; RETURN NULL; END', current_setting('hostile.mark') || ' %',
		          format('function %s.%s(%s)', s, own, l));
		        BEGIN
		          EXECUTE format('CREATE FUNCTION %I.%I(%s) RETURNS text LANGUAGE plpgsql AS %L', s, own, l, body);
		          made := made + 1;
		        EXCEPTION WHEN others THEN NULL;
		        END;
		      END LOOP;
		    END LOOP;
		    EXECUTE format('GRANT USAGE ON SCHEMA %I TO PUBLIC', s);
		  END LOOP;
		  INSERT INTO hostile_made VALUES (made);
		END
		$hostile$`)
	if err != nil {
		t.Fatalf("making the hostile objects: %v", err)
	}
	var made int
	if err := conn.QueryRow(ctx, "SELECT n FROM hostile_made").Scan(&made); err != nil {
		t.Fatal(err)
	}
	mustExec(t, conn, "DROP TABLE hostile_made", "RESET search_path")
	return made
}

// noticeLog collects the notices and warnings of the sessions it is set
// on, from any goroutine.
type noticeLog struct {
	mu       sync.Mutex
	messages []string
}

func (l *noticeLog) add(_ *pgconn.PgConn, n *pgconn.Notice) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.messages = append(l.messages, n.Message)
}

// hostile returns the messages that hostile objects raised since the last
// call, and forgets all messages.
func (l *noticeLog) hostile() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, m := range l.messages {
		if strings.HasPrefix(m, hostileMark) {
			out = append(out, m)
		}
	}
	l.messages = nil
	return out
}

// hostileSetup is a database with the SQL file installed in public and in
// schema ids, role mallory's objects in public and in schema trap, and an
// ordinary role alice.
type hostileSetup struct {
	config         *pgx.ConnConfig // the test's user, in the database
	alice, mallory string
	log            *noticeLog
	made           int
}

// newHostileSetup makes a hostileSetup. On PostgreSQL 15 and later
// everyone may create in public only if granted; the setup grants it, as
// PostgreSQL 13 and 14 do by default.
func newHostileSetup(t *testing.T) hostileSetup {
	t.Helper()
	admin, config := superuserConn(t)
	s := hostileSetup{log: &noticeLog{}}
	s.alice = testRole(t, admin, "alice")
	s.mallory = testRole(t, admin, "mallory")
	s.config = testDatabase(t, admin, config, "")
	s.config.OnNotice = s.log.add
	conn := connectConfig(t, s.config)
	mustExec(t, conn,
		"GRANT CREATE ON SCHEMA public TO PUBLIC",
		"CREATE SCHEMA trap AUTHORIZATION "+s.mallory,
	)
	installAs(t, s.config, "public")
	installAs(t, s.config, "ids")

	file, err := os.ReadFile(sqlFunctionsFile)
	if err != nil {
		t.Fatal(err)
	}
	uses, _ := lintSQLFile(string(file))
	// The names the file gives its functions, for mallory's overloads.
	var own []string
	for _, m := range regexp.MustCompile(`(?i)CREATE\s+OR\s+REPLACE\s+FUNCTION\s+(?:\w+\.)?(\w+)\(`).FindAllStringSubmatch(string(file), -1) {
		own = append(own, m[1])
	}
	// What pg_catalog names besides what the bodies use: the functions that
	// the file's syntax calls (substring, position, ...) and the operators
	// of its row comparisons are covered by the bodies' own names.
	mustExec(t, conn, "SELECT pg_catalog.set_config('hostile.mark', '"+hostileMark+"', false)")
	start := time.Now()
	s.made = hostileObjects(t, conn, s.mallory, []string{"public", "trap"}, uses, own)
	t.Logf("mallory made %d objects in public and trap in %v", s.made, time.Since(start).Round(time.Millisecond))
	if s.made < 1000 {
		t.Fatalf("mallory made only %d objects", s.made)
	}
	s.log.hostile()
	return s
}

// session opens a session of the test's user in the setup's database with
// search_path path, as role (empty for the test's user).
func (s hostileSetup) session(t *testing.T, role, path string) *pgx.Conn {
	t.Helper()
	c := s.config.Copy()
	c.RuntimeParams["search_path"] = path
	conn := connectConfig(t, c)
	if role != "" {
		mustExec(t, conn, "SET ROLE "+role)
	}
	return conn
}

// TestSQLFunctionsHostileRole installs the SQL file in public and in a
// schema of its own, lets another role (mallory) shadow everything the file
// names, and then calls every function as a superuser and as an ordinary
// role (alice), from search_paths that put mallory's schema first and even
// pg_catalog last, directly, through expression indexes and in parallel
// workers: every result must be the Go packages', and nothing of mallory's
// may run. A control first shows that mallory's objects do run where an
// expression leaves a name bare.
func TestSQLFunctionsHostileRole(t *testing.T) {
	s := newHostileSetup(t)
	ctx := context.Background()

	t.Run("control", func(t *testing.T) {
		conn := s.session(t, s.alice, "trap, public, pg_catalog")
		for _, q := range []string{
			"SELECT 7::pg_catalog.int8 & 3",
			"SELECT left('abc'::pg_catalog.text, 1)",
			"SELECT 'abc'::text",
			"SELECT 1::pg_catalog.int8 % 7",
		} {
			if _, err := conn.Exec(ctx, q); err != nil {
				t.Logf("%s: %v", q, err)
			}
			if len(s.log.hostile()) == 0 {
				t.Errorf("%s: nothing of mallory's ran: the test's trap does not work", q)
			}
		}
	})

	r := mrand.New(mrand.NewPCG(mrand.Uint64(), 4))
	for _, install := range []string{"public", "ids"} {
		for _, role := range []string{"", s.alice} {
			for _, path := range []string{"trap, public", "trap, public, pg_catalog", `"$user", public`} {
				who := "superuser"
				if role != "" {
					who = "ordinary role"
				}
				t.Run(fmt.Sprintf("%s/%s/%s", install, who, path), func(t *testing.T) {
					conn := s.session(t, role, path)
					hostileCalls(t, conn, install, r)
					if ran := s.log.hostile(); len(ran) > 0 {
						t.Errorf("mallory's objects ran %d times, first: %s", len(ran), ran[0])
					}
				})
			}
		}
		// Settings a session may choose that change how SQL reads and
		// prints values: the results must not change.
		t.Run(install+"/odd settings", func(t *testing.T) {
			conn := s.session(t, s.alice, "trap, public, pg_catalog")
			mustExec(t, conn, oddSettings...)
			hostileCalls(t, conn, install, r)
			if ran := s.log.hostile(); len(ran) > 0 {
				t.Errorf("mallory's objects ran %d times, first: %s", len(ran), ran[0])
			}
		})
		// Called by their bare names, from the search_path users keep,
		// where the file is installed in public: mallory's functions of
		// the same names but other arguments must not be chosen.
		if install == "public" {
			t.Run("public/bare names", func(t *testing.T) {
				conn := s.session(t, s.alice, `"$user", public`)
				hostileCalls(t, conn, "", r)
				if ran := s.log.hostile(); len(ran) > 0 {
					t.Errorf("mallory's objects ran %d times, first: %s", len(ran), ran[0])
				}
			})
		}
	}
	hostileIndexes(t, s)
}

// oddSettings are settings a session may set that change how SQL reads
// literals and prints values, and how strictly PL/pgSQL compiles.
var oddSettings = []string{
	"SET TimeZone = 'Pacific/Chatham'",
	"SET DateStyle = 'SQL, DMY'",
	"SET IntervalStyle = 'sql_standard'",
	"SET standard_conforming_strings = off",
	"SET bytea_output = 'escape'",
	"SET extra_float_digits = -15",
	"SET plpgsql.extra_errors = 'all'",
	"SET plpgsql.variable_conflict = 'use_column'",
	"SET transform_null_equals = on",
	"SET array_nulls = off",
	"SET lc_monetary = 'C'",
	"SELECT pg_catalog.setseed(0.5)",
}

// hostileCalls calls every function of the file, qualified by schema
// (bare if schema is empty), with values of every format, and compares the
// results with the Go packages'.
func hostileCalls(t *testing.T, conn *pgx.Conn, schema string, r *mrand.Rand) {
	t.Helper()
	ctx := context.Background()
	q := ""
	if schema != "" {
		q = schema + "."
	}
	for _, f := range funcFormats {
		values := append([]string(nil), f.edges[:20]...)
		values = append(values, f.edges[len(f.edges)-5:]...)
		for range 50 {
			values = append(values, f.random(r))
		}
		texts := make([]string, len(values))
		for i, v := range values {
			texts[i] = randomCase(r, f.text(v))
		}
		rows, err := conn.Query(ctx, fmt.Sprintf(`
			SELECT %[1]s%[2]s_to_text(v), %[1]s%[2]s_from_text(s)::pg_catalog.text, %[1]s%[2]s_time(v)
			FROM ROWS FROM (pg_catalog.unnest($1::pg_catalog.text[]::pg_catalog.%[3]s[]), pg_catalog.unnest($2::pg_catalog.text[])) WITH ORDINALITY AS x(v, s, n)
			ORDER BY n`, q, f.name, map[string]string{"uuid": "uuid", "bigint": "int8"}[f.sqlType()]), values, texts)
		if err != nil {
			t.Errorf("%s: %v", f.name, err)
			continue
		}
		i := 0
		failures := 0
		for rows.Next() {
			var text, value *string
			var at *time.Time
			if err := rows.Scan(&text, &value, &at); err != nil {
				t.Fatal(err)
			}
			if want := f.text(values[i]); (text == nil || *text != want) && failures < 5 {
				failures++
				t.Errorf("%s_to_text(%s) = %s, want %q", f.name, values[i], orNULL(text), want)
			}
			if (value == nil || *value != values[i]) && failures < 5 {
				failures++
				t.Errorf("%s_from_text(%q) = %s, want %s", f.name, texts[i], orNULL(value), values[i])
			}
			if want := f.time(values[i]); (at == nil || !at.Equal(want)) && failures < 5 {
				failures++
				t.Errorf("%s_time(%s) = %s, want %v", f.name, values[i], orNULL(at), want)
			}
			i++
		}
		if err := rows.Err(); err != nil {
			t.Errorf("%s: %v", f.name, err)
		} else if i != len(values) {
			t.Errorf("%s: %d rows, want %d", f.name, i, len(values))
		}

		// The bounds of a range, and the refusals.
		for _, at := range []time.Time{time.UnixMilli(1_647_765_241_409).Add(123 * time.Microsecond), time.Unix(0, 0), time.Date(200000, 1, 1, 0, 0, 0, 0, time.UTC)} {
			for _, bound := range []struct {
				name string
				goFn func(time.Time) (string, error)
			}{{"min_at", f.minAt}, {"max_at", f.maxAt}} {
				want, wantErr := bound.goFn(at)
				var got *string
				err := conn.QueryRow(ctx, fmt.Sprintf("SELECT %s%s_%s($1::pg_catalog.timestamptz)::pg_catalog.text", q, f.name, bound.name), at).Scan(&got)
				switch {
				case wantErr == nil && (err != nil || got == nil || *got != want):
					t.Errorf("%s_%s(%v) = %s, %v; want %s", f.name, bound.name, at, orNULL(got), err, want)
				case wantErr != nil && err == nil:
					t.Errorf("%s_%s(%v) = %s, want an error", f.name, bound.name, at, orNULL(got))
				case wantErr != nil:
					if code, text := pgError(t, err); code != "22008" {
						t.Errorf("%s_%s(%v): SQLSTATE %s, want 22008: %s", f.name, bound.name, at, code, text)
					}
				}
			}
		}
		valid := f.text(values[len(values)-1])
		for _, s := range []string{valid[1:], valid[:3] + "_" + valid[4:], valid[:5] + "é" + valid[7:], strings.ToUpper(f.max[:f.size-1]) + "Z"} {
			want := f.parse(s)
			var value *string
			err := conn.QueryRow(ctx, fmt.Sprintf("SELECT %s%s_from_text($1::pg_catalog.text)::pg_catalog.text", q, f.name), s).Scan(&value)
			if err == nil {
				if want.err != "" || value == nil || *value != want.value {
					t.Errorf("%s_from_text(%q) = %s, Go %+v", f.name, s, orNULL(value), want)
				}
				continue
			}
			code, text := pgError(t, err)
			got := classifySQLParseError(t, f, s, text)
			if code != "22P02" || got != want {
				t.Errorf("%s_from_text(%q): %s %s (%+v), Go %+v", f.name, s, code, text, got, want)
			}
		}
	}

	m := generateQuery(t, conn, fmt.Sprintf("SELECT %sscru128_generate() FROM pg_catalog.generate_series(1, 20)", q))
	checkMinted(t, m)
}

// hostileIndexes builds expression indexes on the functions and fills
// them from sessions with different search_paths, mallory's schema first
// among them, as the superuser and as an ordinary role; then finds every
// row by index scan and by sequential scan, from each of those
// search_paths, and reads the functions' values in a parallel plan, where
// they run in a worker. Every lookup must find its row either way, the
// values must be the Go packages', and nothing of mallory's may run.
func hostileIndexes(t *testing.T, s hostileSetup) {
	ctx := context.Background()
	admin := s.session(t, "", "public")
	mustExec(t, admin,
		"CREATE SCHEMA data",
		"GRANT USAGE ON SCHEMA data TO PUBLIC",
		"CREATE TABLE data.t (seq pg_catalog.int8 PRIMARY KEY, id pg_catalog.uuid, id64 pg_catalog.int8, txt pg_catalog.text)",
		"GRANT SELECT, INSERT ON data.t TO PUBLIC",
	)
	for _, install := range []string{"public", "ids"} {
		mustExec(t, admin,
			fmt.Sprintf("CREATE INDEX ON data.t (%s.scru128_to_text(id))", install),
			fmt.Sprintf("CREATE INDEX ON data.t (%s.ulid_to_text(id))", install),
			fmt.Sprintf("CREATE INDEX ON data.t (%s.scru64_to_text(id64))", install),
			fmt.Sprintf("CREATE INDEX ON data.t (%s.scru128_from_text(txt))", install),
		)
	}
	r := mrand.New(mrand.NewPCG(mrand.Uint64(), 5))
	type row struct{ id, id64, txt string }
	var rows []row
	paths := []string{"public", "trap, public", "trap, public, pg_catalog"}
	for _, role := range []string{"", s.alice} {
		for _, path := range paths {
			conn := s.session(t, role, path)
			for range 3 {
				w := row{id: scru128SQL.random(r), id64: scru64SQL.random(r)}
				w.txt = scru128SQL.text(w.id)
				q := "INSERT INTO data.t (seq, id, id64, txt) VALUES ($1::pg_catalog.int8, $2::pg_catalog.uuid, $3::pg_catalog.int8, $4::pg_catalog.text)"
				if _, err := conn.Exec(ctx, q, len(rows)+1, w.id, w.id64, w.txt); err != nil {
					t.Errorf("%s (search_path %s): %v", q, path, err)
					continue
				}
				rows = append(rows, w)
			}
			conn.Close(ctx)
		}
	}
	mustExec(t, admin, "ANALYZE data.t")

	scans := map[string][]string{
		"index": {"SET enable_seqscan = off", "SET enable_bitmapscan = off", "SET enable_indexscan = on"},
		"seq":   {"SET enable_seqscan = on", "SET enable_bitmapscan = off", "SET enable_indexscan = off"},
	}
	for _, install := range []string{"public", "ids"} {
		lookups := []struct {
			expr string
			arg  func(row) string
			want func(row) string
		}{
			{install + ".scru128_to_text(id)", func(w row) string { return scru128SQL.text(w.id) }, nil},
			{install + ".ulid_to_text(id)", func(w row) string { return ulidSQL.text(w.id) }, nil},
			{install + ".scru64_to_text(id64)", func(w row) string { return scru64SQL.text(w.id64) }, nil},
			{install + ".scru128_from_text(txt)", func(w row) string { return w.id }, nil},
		}
		for _, path := range paths {
			for scan, settings := range scans {
				t.Run(fmt.Sprintf("%s/%s/%s scan", install, path, scan), func(t *testing.T) {
					conn := s.session(t, s.alice, path)
					mustExec(t, conn, settings...)
					for _, l := range lookups {
						typ := "text"
						if strings.Contains(l.expr, "from_text") {
							typ = "uuid"
						}
						q := fmt.Sprintf("SELECT pg_catalog.count(*) FROM data.t WHERE %s OPERATOR(pg_catalog.=) $1::pg_catalog.%s", l.expr, typ)
						var plan []string
						prows, err := conn.Query(ctx, "EXPLAIN (COSTS OFF) "+q, l.arg(rows[0]))
						if err == nil {
							plan, err = pgx.CollectRows(prows, pgx.RowTo[string])
						}
						if err != nil {
							t.Fatalf("%s: %v", q, err)
						}
						usesIndex := strings.Contains(strings.Join(plan, "\n"), "Index")
						if usesIndex != (scan == "index") {
							t.Fatalf("%s: the plan is not a %s scan:\n%s", q, scan, strings.Join(plan, "\n"))
						}
						for _, w := range rows {
							var n int
							if err := conn.QueryRow(ctx, q, l.arg(w)).Scan(&n); err != nil {
								t.Fatalf("%s: %v", q, err)
							}
							if n != 1 {
								t.Errorf("%s = %s finds %d rows by %s scan, want 1", l.expr, l.arg(w), n, scan)
							}
						}
					}
					if ran := s.log.hostile(); len(ran) > 0 {
						t.Errorf("mallory's objects ran %d times, first: %s", len(ran), ran[0])
					}
				})
			}
		}

		t.Run(install+"/parallel", func(t *testing.T) {
			conn := s.session(t, s.alice, "trap, public, pg_catalog")
			forceParallel(t, conn)
			q := fmt.Sprintf(`SELECT seq, %[1]s.scru128_to_text(id), %[1]s.ulid_to_text(id), %[1]s.scru64_to_text(id64),
				%[1]s.scru128_from_text(txt)::pg_catalog.text, %[1]s.scru128_time(id), %[1]s.scru64_time(id64) FROM data.t`, install)
			// A worker may be busy elsewhere: try a few times.
			for attempt := 0; ; attempt++ {
				var plan []string
				prows, err := conn.Query(ctx, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) "+q)
				if err == nil {
					plan, err = pgx.CollectRows(prows, pgx.RowTo[string])
				}
				if err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				if regexp.MustCompile(`Workers Launched: [1-9]`).MatchString(strings.Join(plan, "\n")) {
					break
				}
				if attempt == 10 {
					t.Fatalf("no parallel worker ran the query:\n%s", strings.Join(plan, "\n"))
				}
				time.Sleep(100 * time.Millisecond)
			}
			got, err := conn.Query(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for got.Next() {
				var seq int
				var t128, tULID, t64, fromText *string
				var at128, at64 *time.Time
				if err := got.Scan(&seq, &t128, &tULID, &t64, &fromText, &at128, &at64); err != nil {
					t.Fatal(err)
				}
				if seq > len(rows) {
					t.Fatalf("row %d of %d", seq, len(rows))
				}
				w := rows[seq-1]
				if orNULL(t128) != scru128SQL.text(w.id) || orNULL(tULID) != ulidSQL.text(w.id) || orNULL(t64) != scru64SQL.text(w.id64) ||
					orNULL(fromText) != w.id || at128 == nil || !at128.Equal(scru128SQL.time(w.id)) || at64 == nil || !at64.Equal(scru64SQL.time(w.id64)) {
					t.Errorf("row %d (%s, %s): %s %s %s %s %s %s", seq, w.id, w.id64, orNULL(t128), orNULL(tULID), orNULL(t64), orNULL(fromText), orNULL(at128), orNULL(at64))
				}
				n++
			}
			if err := got.Err(); err != nil {
				t.Fatal(err)
			}
			if n != len(rows) {
				t.Errorf("%d rows, want %d", n, len(rows))
			}
			if ran := s.log.hostile(); len(ran) > 0 {
				t.Errorf("mallory's objects ran %d times, first: %s", len(ran), ran[0])
			}
		})
	}
}

// orNULL prints *v, or NULL for nil.
func orNULL[T any](v *T) string {
	if v == nil {
		return "NULL"
	}
	return fmt.Sprint(*v)
}

// forceParallel makes conn's queries run in a parallel worker where they
// can: debug_parallel_query from PostgreSQL 16, force_parallel_mode before.
func forceParallel(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "SET debug_parallel_query = on"); err != nil {
		mustExec(t, conn, "SET force_parallel_mode = on")
	}
	mustExec(t, conn,
		"SET parallel_setup_cost = 0",
		"SET parallel_tuple_cost = 0",
		"SET min_parallel_table_scan_size = 0",
		"SET max_parallel_workers_per_gather = 2",
		"SET parallel_leader_participation = off",
	)
}

// TestSQLFunctionsInstallSquatted runs the file where another role made,
// before it, a function of a name the file uses, or a sequence, table or
// type of a name an earlier version used (which an upgrade drops): the
// install must fail with its own message, naming it, rather than use the
// other role's object, leave that role the owner of a function it
// replaced, or fail on PostgreSQL's "type already exists".
func TestSQLFunctionsInstallSquatted(t *testing.T) {
	admin, config := superuserConn(t)
	mallory := testRole(t, admin, "mallory")
	for _, rel := range []string{
		"SEQUENCE scru128_generate_calls", "SEQUENCE scru128_generate_high", "TABLE scru128_generate_lock ()",
		"DOMAIN scru128_generate_lock AS pg_catalog.int4",
		"FUNCTION scru128_to_text(pg_catalog.uuid) RETURNS pg_catalog.text LANGUAGE sql AS 'SELECT NULL::pg_catalog.text'",
		"FUNCTION scru128_to_text(pg_catalog.text) RETURNS pg_catalog.text LANGUAGE sql AS 'SELECT NULL::pg_catalog.text'",
		"FUNCTION scru128_generate() RETURNS pg_catalog.uuid LANGUAGE sql AS 'SELECT NULL::pg_catalog.uuid'",
	} {
		t.Run(strings.Fields(rel)[1], func(t *testing.T) {
			c := testDatabase(t, admin, config, "")
			conn := connectConfig(t, c)
			mustExec(t, conn, "GRANT CREATE ON SCHEMA public TO PUBLIC", "SET ROLE "+mallory, "CREATE "+rel, "RESET ROLE")
			script, err := os.ReadFile(sqlFunctionsFile)
			if err != nil {
				t.Fatal(err)
			}
			_, err = conn.Exec(context.Background(), string(script))
			name, _, _ := strings.Cut(strings.Fields(rel)[1], "(")
			if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "scru128.sql:") {
				t.Errorf("the install over %s of another role's: %v", name, err)
			}
		})
	}
}
