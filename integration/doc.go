// Package integration tests the ID types of github.com/fastid/scru128 and
// its format packages against real databases: PostgreSQL, through pgx's
// database/sql driver and through pgx's own interface, and SQLite, through
// modernc.org/sqlite. It is a module of its own so that the drivers stay
// out of the library's go.mod.
//
// SQLite runs in a temporary file and needs nothing. PostgreSQL needs a
// server: set SCRU128_TEST_POSTGRES_DSN to a connection string such as
// postgres://user@127.0.0.1:5432/postgres?sslmode=disable. Without it the
// PostgreSQL tests are skipped, unless SCRU128_TEST_POSTGRES_REQUIRED is
// set (as .ci/run sets it, after starting a throwaway server), in which
// case they fail. Each test works in tables of its own, which it drops.
//
// The tests of the SQL functions (postgres/scru128.sql) make databases and
// roles of their own, which needs a superuser. Their clock tests step the
// clock of a second server, started with libfaketime preloaded: set
// SCRU128_TEST_FAKETIME_DSN to it and SCRU128_TEST_FAKETIME_FILE to the
// file it reads its offset from (FAKETIME_TIMESTAMP_FILE, with
// FAKETIME_NO_CACHE=1), which the tests rewrite.
package integration
