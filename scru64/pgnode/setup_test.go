package pgnode_test

import (
	"context"
	"errors"
	"net/url"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fastid/scru128/scru64/pgnode"
)

// objects lists what a schema holds: tables, indexes and functions, with
// each function's settings and whether it runs as its owner.
func objects(t testing.TB, dsn, schema string) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `
		SELECT c.relkind::text || ' ' || c.relname FROM pg_class c
		WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = $1)
		UNION ALL
		SELECT 'f ' || p.oid::regprocedure::text || ' ' || coalesce(array_to_string(p.proconfig, ','), '') ||
			CASE WHEN p.prosecdef THEN ' definer' ELSE '' END
		FROM pg_proc p WHERE p.pronamespace = (SELECT oid FROM pg_namespace WHERE nspname = $1)
		ORDER BY 1`, schema)
	if err != nil {
		t.Fatal(err)
	}
	list, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// TestSetupIsIdempotent: Setup run by four processes at once, then again,
// makes the same objects once; every function pins its search path to
// pg_catalog (implicitly first), the schema and pg_temp last, so that
// nothing a session puts on its path changes what the functions call, and
// the seven the fleet calls run as their owner. A schema named with capitals
// and a space is taken as written.
func TestSetupIsIdempotent(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	schema := "Fleet " + schemaName(t)
	db := newPool(t, dsn, "setup")
	t.Cleanup(func() { execOn(t, dsn, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE") })
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = pgnode.Setup(context.Background(), db, pgnode.WithSchema(schema),
				pgnode.WithRealm(""), pgnode.WithTTL(1500*time.Millisecond)) // ignored: see Setup
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("concurrent Setups: %v", err)
	}
	first := objects(t, dsn, schema)
	if err := pgnode.Setup(context.Background(), db, pgnode.WithSchema(schema)); err != nil {
		t.Fatal(err)
	}
	if again := objects(t, dsn, schema); !slices.Equal(first, again) {
		t.Fatalf("Setup again changed the objects:\n%q\nto\n%q", first, again)
	}
	path := "search_path=" + pgx.Identifier{schema}.Sanitize() + ", pg_temp"
	definers := 0
	for _, o := range first {
		if strings.HasPrefix(o, "f ") && !strings.Contains(o, path) {
			t.Errorf("function without the pinned search path (%s): %s", path, o)
		}
		if strings.HasSuffix(o, " definer") {
			definers++
		}
	}
	if definers != 7 {
		t.Errorf("%d functions run as their owner, want the seven the fleet calls:\n%s", definers, strings.Join(first, "\n"))
	}
	t.Logf("%d objects:\n%s", len(first), strings.Join(first, "\n"))
	r := realm{db: db, schema: schema}
	n := r.acquire(t)
	mint(t, n, 10)
}

// TestSchemaSQLByHand: schema.sql, run by hand with psql as a DBA would,
// makes in schema scru64 what Setup makes in another; Setup afterwards
// changes nothing, and Acquire with the default schema leases.
func TestSchemaSQLByHand(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	// A database of its own: the file's schema is scru64, which tests
	// elsewhere on the server must not share.
	db := "byhand_" + schemaName(t)
	execOn(t, dsn, "CREATE DATABASE "+db)
	t.Cleanup(func() { execOn(t, dsn, "DROP DATABASE "+db+" WITH (FORCE)") })
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + db
	dbDSN := u.String()

	psql := filepath.Join(pgBin(t), "psql")
	if out, err := exec.Command(psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-1", "-f", "schema.sql", dbDSN).CombinedOutput(); err != nil {
		t.Fatalf("psql -f schema.sql: %v\n%s", err, out)
	}
	byHand := objects(t, dbDSN, pgnode.DefaultSchema)
	pool := newPool(t, dbDSN, "setup")
	if err := pgnode.Setup(context.Background(), pool); err != nil {
		t.Fatal(err)
	}
	if after := objects(t, dbDSN, pgnode.DefaultSchema); !slices.Equal(byHand, after) {
		t.Fatalf("Setup after schema.sql changed the objects:\n%q\nto\n%q", byHand, after)
	}
	// The same objects, but for the schema's name, as Setup makes in
	// another schema.
	other := newSchema(t, dsn)
	setUp := objects(t, dsn, other)
	for i := range setUp {
		setUp[i] = strings.ReplaceAll(setUp[i], other, pgnode.DefaultSchema)
	}
	if !slices.Equal(byHand, setUp) {
		t.Fatalf("schema.sql by hand made\n%q\nSetup made\n%q", byHand, setUp)
	}
	n, err := pgnode.Acquire(context.Background(), pool)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close(context.Background())
	mint(t, n, 10)
}

// TestSchemaSQLHasOneHeader: Setup replaces the lines up to the end of
// the header, the only ones that name the schema.
func TestSchemaSQLHasOneHeader(t *testing.T) {
	head, body, ok := strings.Cut(pgnode.SchemaSQL, pgnode.EndOfHeader)
	if !ok || strings.Contains(body, pgnode.EndOfHeader) {
		t.Fatal("schema.sql must hold its end-of-header line once")
	}
	for _, line := range strings.Split(body, "\n") {
		if code, _, _ := strings.Cut(line, "--"); strings.Contains(code, "scru64") {
			t.Errorf("a line after the header names the schema: %q", line)
		}
	}
	for _, want := range []string{"CREATE SCHEMA IF NOT EXISTS scru64;", "SET search_path = scru64, pg_temp;"} {
		if !strings.Contains(head, "\n"+want+"\n") {
			t.Errorf("the header lacks %q", want)
		}
	}
}

// TestAcquireBeforeSetupSaysSo: Acquire on a schema that was never set up
// fails with a *StoreError that says to run Setup.
func TestAcquireBeforeSetupSaysSo(t *testing.T) {
	t.Parallel()
	db := newPool(t, sharedServer(t), "no setup")
	_, err := pgnode.Acquire(context.Background(), db, pgnode.WithSchema(schemaName(t)))
	var se *pgnode.StoreError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "run pgnode.Setup") || sqlState(err) != "3F000" {
		t.Fatalf("Acquire without Setup: %v; want a *StoreError that says to run Setup", err)
	}
	t.Log(err)
}

// TestSchemaVersionIsTheDigest: schema.sql's schema_version answers the
// file's digest, so that a Setup that finds it knows the schema is this
// build's. Change the file, and this says what to write there.
func TestSchemaVersionIsTheDigest(t *testing.T) {
	if pgnode.SchemaVersion != pgnode.SchemaDigest {
		t.Fatalf("schema.sql's schema_version answers %q; write %q there, the file's digest", pgnode.SchemaVersion, pgnode.SchemaDigest)
	}
}
