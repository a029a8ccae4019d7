package integration

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgxFormats runs testPgxUUID for each 128-bit format, as a table.
var pgxFormats = []struct {
	name string
	run  func(t *testing.T, conn *pgx.Conn)
}{
	{"scru128", func(t *testing.T, conn *pgx.Conn) { testPgxUUID(t, conn, scru128Format) }},
	{"ulid", func(t *testing.T, conn *pgx.Conn) { testPgxUUID(t, conn, ulidFormat) }},
	{"legacy", func(t *testing.T, conn *pgx.Conn) { testPgxUUID(t, conn, legacyFormat) }},
}

// TestPgxUUID stores the 128-bit types in a PostgreSQL uuid column through
// pgx's own interface, without database/sql.
func TestPgxUUID(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, postgresDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	for _, f := range pgxFormats {
		t.Run(f.name, func(t *testing.T) { f.run(t, conn) })
	}
}

// testPgxUUID is testColumn for a uuid column through a pgx.Conn: pgx
// scans uuid values into a sql.Scanner as the hyphenated text, and binds
// the Binary conversions' 16 bytes.
func testPgxUUID[T comparable, N comparable, PT interface {
	*T
	sql.Scanner
}, PN interface {
	*N
	sql.Scanner
}](t *testing.T, conn *pgx.Conn, f format[T, N]) {
	ctx := context.Background()
	var c column[T, N]
	for _, col := range f.columns {
		if col.kind == uuidColumn {
			c = col
		}
	}
	table := "pgx_" + f.name
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := conn.Exec(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("DROP TABLE IF EXISTS " + table)
	exec("CREATE TABLE " + table + " (seq INTEGER NOT NULL, id UUID NOT NULL, nid UUID)")
	t.Cleanup(func() { conn.Exec(context.Background(), "DROP TABLE IF EXISTS "+table) })

	ids := f.mint(t, times(f.unit))
	for seq := len(ids) - 1; seq >= 0; seq-- { // in reverse, so that ORDER BY has work to do
		exec("INSERT INTO "+table+" (seq, id, nid) VALUES ($1, $2, $3)", seq, c.bind(ids[seq]), c.bindNull(f.null(ids[seq], seq%2 == 0)))
	}
	rows, err := conn.Query(ctx, "SELECT seq, id, id, nid FROM "+table+" ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	var order []int
	for rows.Next() {
		var seq int
		var id T
		var idAsNull, nid N
		if err := rows.Scan(&seq, PT(&id), PN(&idAsNull), PN(&nid)); err != nil {
			t.Fatal(err)
		}
		order = append(order, seq)
		got, ok := f.nullFields(nid)
		if id != ids[seq] || f.null(id, true) != idAsNull || ok != (seq%2 == 0) || ok && got != id {
			t.Errorf("row %d: %v, %v, %v", seq, id, idAsNull, nid)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil || !slices.Equal(order, count(len(ids))) {
		t.Fatalf("ORDER BY id: %v, %v", order, err)
	}
	var id T
	if err := conn.QueryRow(ctx, "SELECT nid FROM "+table+" WHERE seq = 1").Scan(PT(&id)); !errors.Is(err, f.scanNull) {
		t.Errorf("NULL into the ID type: %v, want %v", err, f.scanNull)
	}
	for _, r := range ranges {
		lo, _ := f.minAtTime(base.Add(time.Duration(r[0]) * f.unit))
		hi, _ := f.maxAtTime(base.Add(time.Duration(r[1]) * f.unit))
		var want, got []int
		for seq, u := range unitOffsets {
			if r[0] <= u && u <= r[1] {
				want = append(want, seq)
			}
		}
		rows, err := conn.Query(ctx, "SELECT seq FROM "+table+" WHERE id BETWEEN $1 AND $2 ORDER BY id", c.bind(lo), c.bind(hi))
		if err != nil {
			t.Fatal(err)
		}
		got, err = pgx.CollectRows(rows, pgx.RowTo[int])
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("units %d to %d: %v, %v; want %v", r[0], r[1], got, err, want)
		}
	}
}
