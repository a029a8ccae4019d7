package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fastid/scru128"
)

// Environment variables that point the clock tests at a PostgreSQL server
// whose clock they can step: one started with libfaketime preloaded
// (LD_PRELOAD), reading its offset from real time from a file on every
// call (FAKETIME_TIMESTAMP_FILE, FAKETIME_NO_CACHE=1). .ci/run starts one.
const (
	faketimeDSNEnv  = "SCRU128_TEST_FAKETIME_DSN"
	faketimeFileEnv = "SCRU128_TEST_FAKETIME_FILE"
)

// steppedClock is a server whose clock the test moves.
type steppedClock struct {
	dsn, file string
}

// faketimeServer returns the server with a clock to step, skipping the
// test if there is none, or failing it where the PostgreSQL tests are
// required.
func faketimeServer(t *testing.T) steppedClock {
	t.Helper()
	c := steppedClock{os.Getenv(faketimeDSNEnv), os.Getenv(faketimeFileEnv)}
	if c.dsn == "" || c.file == "" {
		if os.Getenv(postgresRequiredEnv) != "" {
			t.Fatalf("%s is set but %s or %s is empty: no server whose clock the test can step", postgresRequiredEnv, faketimeDSNEnv, faketimeFileEnv)
		}
		t.Skipf("set %s and %s to test clock steps against a server under libfaketime", faketimeDSNEnv, faketimeFileEnv)
	}
	t.Cleanup(func() { c.set(t, 0) })
	return c
}

// set puts the server's clock offset seconds from real time, replacing the
// file at once so that the server never reads half of it.
func (c steppedClock) set(t *testing.T, offset float64) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(c.file), ".offset.tmp")
	// libfaketime reads a relative offset only with its sign, and ends the
	// process on anything it cannot read.
	text := fmt.Sprintf("%+.3f\n", offset)
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, c.file); err != nil {
		t.Fatal(err)
	}
}

// TestSQLGenerateClockSteps steps the server's clock back while sessions
// mint, and undoes the generator's state around the steps in every way a
// session can: rollbacks, savepoints, RESET ALL, DISCARD ALL. Each ID must
// be above every ID its session minted before where the guide promises it
// (the clock went back by no more than the rollback allowance, and the
// session kept its state while the clock was behind, or minted at the
// clock's time since), and every ID must be stamped within the allowance of
// the server's clock, however far it went back.
func TestSQLGenerateClockSteps(t *testing.T) {
	clock := faketimeServer(t)
	config, err := pgx.ParseConfig(clock.dsn)
	if err != nil {
		t.Fatal(err)
	}
	admin := connectConfig(t, config)
	// Each scenario is a list of steps: "mint" mints three IDs in one
	// statement, "back N" puts the clock N seconds behind real time,
	// "session" opens a new session for the steps after it, and anything
	// else is a statement.
	for _, sc := range []struct {
		name  string
		steps []string
		// unordered: the IDs after the step need not be above the ones
		// before, because the clock went back past the allowance, or
		// because the session lost its state (a rollback, RESET ALL,
		// DISCARD ALL) while the clock was behind its IDs: the state is
		// what lets the generator count on ahead of the clock, and
		// PostgreSQL has no per-session store that a rollback leaves alone
		// and no other role can touch (the guide's "What it promises").
		unordered bool
	}{
		{"count on through the step", []string{"mint", "back 5", "mint", "mint"}, false},
		{"a new session after the step", []string{"mint", "back 5", "session", "mint", "RESET ALL", "mint"}, false},
		{"state lost after the step, at the clock's time", []string{"back 5", "session", "mint", "BEGIN", "mint", "ROLLBACK", "mint", "RESET ALL", "mint", "DISCARD ALL", "mint"}, false},
		{"forward again, then RESET ALL", []string{"mint", "back 5", "mint", "back 0", "RESET ALL", "mint", "DISCARD ALL", "mint"}, false},
		{"near the allowance, state kept", []string{"mint", "back 9.5", "mint", "mint"}, false},
		{"RESET ALL after the step", []string{"mint", "back 5", "RESET ALL", "mint"}, true},
		{"rollback before the step", []string{"mint", "BEGIN", "mint", "ROLLBACK", "back 5", "mint"}, true},
		{"rollback after the step", []string{"mint", "back 5", "BEGIN", "mint", "ROLLBACK", "mint"}, true},
		{"savepoint before the step", []string{"BEGIN", "mint", "SAVEPOINT s", "mint", "ROLLBACK TO SAVEPOINT s", "back 5", "mint", "COMMIT", "mint"}, true},
		{"DISCARD ALL after the step", []string{"mint", "back 5", "DISCARD ALL", "mint"}, true},
		{"DISCARD ALL before the step", []string{"mint", "DISCARD ALL", "back 5", "mint"}, true},
		{"caught exception after the step", []string{"mint", "back 5", `DO $$ BEGIN PERFORM ids.scru128_generate(); RAISE EXCEPTION 'undo'; EXCEPTION WHEN raise_exception THEN NULL; END $$`, "mint"}, true},
		{"two steps", []string{"mint", "back 3", "mint", "RESET ALL", "back 6", "RESET ALL", "mint", "mint"}, true},
		{"past the allowance", []string{"mint", "back 15", "mint", "RESET ALL", "mint"}, true},
	} {
		t.Run(sc.name, func(t *testing.T) {
			clock.set(t, 0)
			schema := randomName("clock")
			installAt(t, config, schema)
			mustExec(t, admin, "GRANT USAGE ON SCHEMA "+schema+" TO PUBLIC")
			c := config.Copy()
			c.RuntimeParams["search_path"] = "public"
			c.DefaultQueryExecMode = pgx.QueryExecModeDescribeExec // DISCARD ALL drops prepared statements
			conn := connectConfig(t, c)
			ctx := context.Background()
			var earlier []scru128.ID
			for i, step := range sc.steps {
				step = strings.ReplaceAll(step, "ids.", schema+".")
				switch {
				case step == "mint":
					var before, after time.Time
					if err := conn.QueryRow(ctx, "SELECT pg_catalog.clock_timestamp()").Scan(&before); err != nil {
						t.Fatal(err)
					}
					rows, err := conn.Query(ctx, fmt.Sprintf("SELECT %s.scru128_generate() FROM pg_catalog.generate_series(1, 3)", schema))
					if err != nil {
						t.Fatal(err)
					}
					raw, err := pgx.CollectRows(rows, pgx.RowTo[[16]byte])
					if err != nil {
						t.Fatalf("step %d: %v", i, err)
					}
					if err := conn.QueryRow(ctx, "SELECT pg_catalog.clock_timestamp()").Scan(&after); err != nil {
						t.Fatal(err)
					}
					for _, b := range raw {
						id := scru128.FromUUID(b)
						if at := id.Time(); at.Before(before.Add(-rollbackAllowance)) || at.After(after.Add(rollbackAllowance)) {
							t.Errorf("step %d (%s): %s is stamped %v, more than %v from the server's clock (%v to %v)",
								i, strings.Join(sc.steps[:i], ", "), id, at.UTC(), rollbackAllowance, before.UTC(), after.UTC())
						}
						if !sc.unordered {
							for _, e := range earlier {
								if id.Compare(e) <= 0 {
									t.Errorf("step %d (after %s): %s (%v) is not above %s (%v), which the session minted before",
										i, strings.Join(sc.steps[:i], ", "), id, id.Time().UTC(), e, e.Time().UTC())
									break
								}
							}
						}
						earlier = append(earlier, id)
					}
				case strings.HasPrefix(step, "back "):
					seconds, err := strconv.ParseFloat(strings.TrimPrefix(step, "back "), 64)
					if err != nil {
						t.Fatal(err)
					}
					clock.set(t, -seconds)
				case step == "session":
					// Order across sessions is not promised: a new session
					// starts a list of its own.
					conn = connectConfig(t, c)
					earlier = nil
				default:
					if _, err := conn.Exec(ctx, step); err != nil {
						t.Fatalf("step %d: %s: %v", i, step, err)
					}
				}
			}
		})
	}
}

// installAt runs the SQL file in a new schema on the server of config,
// dropped when the test ends.
func installAt(t *testing.T, config *pgx.ConnConfig, schema string) {
	t.Helper()
	c := config.Copy()
	c.RuntimeParams["search_path"] = schema
	conn := connectConfig(t, c)
	mustExec(t, conn, "CREATE SCHEMA "+schema)
	t.Cleanup(func() {
		ctx := context.Background()
		admin, err := pgx.ConnectConfig(ctx, config)
		if err == nil {
			_, err = admin.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE")
			admin.Close(ctx)
		}
		if err != nil {
			t.Errorf("dropping schema %s: %v", schema, err)
		}
	})
	sqlFunctions{schema: schema, config: c}.run(t, conn)
}
