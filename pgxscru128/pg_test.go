package pgxscru128_test

import (
	"context"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/fastid/scru128/pgxscru128"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// Environment variables that point the tests at a PostgreSQL server, the
// same as the integration module's.
const (
	postgresDSNEnv      = "SCRU128_TEST_POSTGRES_DSN"
	postgresRequiredEnv = "SCRU128_TEST_POSTGRES_REQUIRED"
)

// testedFormat is what the tests do with one format; format[T, N]
// implements it.
type testedFormat interface {
	formatName() string
	testMap(t *testing.T)
	checkTextDecoders(t *testing.T, m *pgtype.Map, data []byte)
	testAllocations(t *testing.T)
	testRoundTrip(t *testing.T, conn *pgx.Conn, mode pgx.QueryExecMode)
	testRanges(t *testing.T, conn *pgx.Conn, mode pgx.QueryExecMode)
	testDomains(t *testing.T, conn *pgx.Conn, mode pgx.QueryExecMode)
	testPaddedChar(t *testing.T, conn *pgx.Conn)
	testOneFormPerColumn(t *testing.T, conns map[pgx.QueryExecMode]*pgx.Conn, r *rand.Rand)
	testBatch(t *testing.T, conn *pgx.Conn, mode pgx.QueryExecMode)
	testCopyFrom(t *testing.T, conn *pgx.Conn)
	testCollectRows(t *testing.T, conn *pgx.Conn)
	testBadData(t *testing.T, conn *pgx.Conn, mode pgx.QueryExecMode)
}

// postgresDSN returns the DSN of the PostgreSQL server to test against,
// skipping the test if there is none, or failing it if one is required.
func postgresDSN(t testing.TB) string {
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

// connect opens a connection to the test server, closed at the end of the
// test, with the ID types registered if register is true.
func connect(t testing.TB, register bool) *pgx.Conn {
	t.Helper()
	return connectInMode(t, register, pgx.QueryExecModeCacheStatement)
}

// connectInMode is connect with mode as the connection's default query
// mode, which is also the mode of its batches.
func connectInMode(t testing.TB, register bool, mode pgx.QueryExecMode) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	config, err := pgx.ParseConfig(postgresDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	config.DefaultQueryExecMode = mode
	conn, err := pgx.ConnectConfig(ctx, config)
	if err != nil {
		t.Fatalf("PostgreSQL at %s: %v", os.Getenv(postgresDSNEnv), err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	if register {
		pgxscru128.Register(conn.TypeMap())
	}
	return conn
}

// modes are the query modes the tests run in: the default, the other two
// that prepare or describe statements and so learn the parameters' types,
// and the two that do not.
var modes = []pgx.QueryExecMode{
	pgx.QueryExecModeCacheStatement,
	pgx.QueryExecModeCacheDescribe,
	pgx.QueryExecModeDescribeExec,
	pgx.QueryExecModeExec,
	pgx.QueryExecModeSimpleProtocol,
}

// knowsTypes reports whether pgx learns the parameters' types in mode.
func knowsTypes(mode pgx.QueryExecMode) bool {
	return mode != pgx.QueryExecModeExec && mode != pgx.QueryExecModeSimpleProtocol
}

// forEachMode runs test in each mode, on one registered connection.
func forEachMode(t *testing.T, test func(t *testing.T, f testedFormat, conn *pgx.Conn, mode pgx.QueryExecMode)) {
	conn := connect(t, true)
	forEachFormat(t, func(t *testing.T, f testedFormat) {
		for _, mode := range modes {
			t.Run(mode.String(), func(t *testing.T) { test(t, f, conn, mode) })
		}
	})
}

// createTable (re)creates a table, dropped at the end of the test. Tables
// are prefixed with the package name, apart from those of other tests on
// the same server.
func createTable(t testing.TB, conn *pgx.Conn, name, columns string) string {
	t.Helper()
	ctx := context.Background()
	name = "pgxscru128_" + name
	if _, err := conn.Exec(ctx, "DROP TABLE IF EXISTS "+name); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE "+name+" ("+columns+")"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Exec(context.Background(), "DROP TABLE IF EXISTS "+name) })
	return name
}

// exec runs a statement and fails the test on error.
func exec(t testing.TB, conn *pgx.Conn, sql string, args ...any) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}
