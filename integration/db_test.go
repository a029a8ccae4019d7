package integration

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"
)

// Environment variables that point the tests at a PostgreSQL server.
const (
	postgresDSNEnv      = "SCRU128_TEST_POSTGRES_DSN"
	postgresRequiredEnv = "SCRU128_TEST_POSTGRES_REQUIRED"
)

// database is one database under test, with what differs between them.
type database struct {
	name string
	db   *sql.DB
	// placeholder returns the n-th (1-based) parameter marker.
	placeholder func(n int) string
	// Column types; uuid is empty where the database has none.
	text, binary, bigint, uuid string
}

// postgresDSN returns the DSN of the PostgreSQL server to test against,
// skipping the test if there is none, or failing it if one is required.
func postgresDSN(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv(postgresDSNEnv)
	if dsn == "" {
		if os.Getenv(postgresRequiredEnv) != "" {
			t.Fatalf("%s is set but %s is empty: no PostgreSQL server to test against", postgresRequiredEnv, postgresDSNEnv)
		}
		t.Skipf("set %s to test against PostgreSQL", postgresDSNEnv)
	}
	return dsn
}

// openPostgres connects through pgx's database/sql driver.
func openPostgres(t *testing.T) database {
	t.Helper()
	db, err := sql.Open("pgx", postgresDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Ping(); err != nil {
		t.Fatalf("PostgreSQL at %s: %v", os.Getenv(postgresDSNEnv), err)
	}
	return database{
		name:        "postgres",
		db:          db,
		placeholder: func(n int) string { return fmt.Sprintf("$%d", n) },
		text:        "TEXT", binary: "BYTEA", bigint: "BIGINT", uuid: "UUID",
	}
}

// openSQLite opens a database in a temporary file.
func openSQLite(t *testing.T) database {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1) // one writer; the tests are sequential anyway
	return database{
		name:        "sqlite",
		db:          db,
		placeholder: func(int) string { return "?" },
		text:        "TEXT", binary: "BLOB", bigint: "INTEGER",
	}
}

// databases returns every database to test, each as a subtest opener.
func databases() []struct {
	name string
	open func(t *testing.T) database
} {
	return []struct {
		name string
		open func(t *testing.T) database
	}{{"postgres", openPostgres}, {"sqlite", openSQLite}}
}

// query rewrites "?" markers into the database's own.
func (d database) query(q string) string {
	var b strings.Builder
	n := 0
	for _, c := range q {
		if c == '?' {
			n++
			b.WriteString(d.placeholder(n))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// exec runs a statement, failing the test on error.
func (d database) exec(t *testing.T, q string, args ...any) {
	t.Helper()
	if _, err := d.db.Exec(d.query(q), args...); err != nil {
		t.Fatalf("%s: %s: %v", d.name, q, err)
	}
}

// table creates a table with a sequence number, an ID column and a
// nullable ID column of the given type, and drops it when the test ends.
func (d database) table(t *testing.T, name, columnType string) {
	t.Helper()
	d.exec(t, "DROP TABLE IF EXISTS "+name)
	d.exec(t, fmt.Sprintf("CREATE TABLE %s (seq INTEGER NOT NULL, id %s NOT NULL, nid %s)", name, columnType, columnType))
	t.Cleanup(func() { d.db.Exec("DROP TABLE IF EXISTS " + name) })
}
