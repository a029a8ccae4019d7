package pgxscru128_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestOneFormPerColumn is the report of two forms in one column:
// in a domain over text, CopyFrom stored the ID's text and INSERT ... $1
// (the default mode) the hyphenated UUID form, so that WHERE col = $1
// found one of two rows holding the same ID. Every ID, sample ones and
// random ones at every offset from the format's epoch, stored in every
// query mode and by CopyFrom, in the ID's PostgreSQL type, text, varchar
// and a domain over each, must be stored in one form per column (the one
// the package documentation gives); WHERE col = $1 must find every row
// holding it, in every mode; and every row must read back as the ID in
// every mode.
func TestOneFormPerColumn(t *testing.T) {
	conns := map[pgx.QueryExecMode]*pgx.Conn{}
	for _, mode := range modes {
		conns[mode] = connectInMode(t, true, mode)
	}
	r := rand.New(rand.NewPCG(24, 5))
	forEachFormat(t, func(t *testing.T, f testedFormat) { f.testOneFormPerColumn(t, conns, r) })
}

func (f *format[T, N]) testOneFormPerColumn(t *testing.T, conns map[pgx.QueryExecMode]*pgx.Conn, r *rand.Rand) {
	ctx := context.Background()
	conn := conns[pgx.QueryExecModeCacheStatement]
	// The ID's own PostgreSQL type and every text type, char of the
	// stored form's length; each also under a domain, whose parameters
	// pgx does not know.
	types := []string{f.pgType, "text", "varchar", fmt.Sprintf("char(%d)", len(f.stored(f.extremes[0])))}
	var columns, creates []string
	drops := []string{"DROP TABLE IF EXISTS pgxscru128_" + f.name}
	for i, typ := range types {
		domain := fmt.Sprintf("pgxscru128_%s_form%d", f.name, i)
		drops = append(drops, "DROP DOMAIN IF EXISTS "+domain)
		creates = append(creates, "CREATE DOMAIN "+domain+" AS "+typ)
		columns = append(columns, fmt.Sprintf("c%d", i), fmt.Sprintf("d%d", i))
	}
	exec(t, conn, strings.Join(append(drops, creates...), "; "))
	t.Cleanup(func() { conn.Exec(context.Background(), strings.Join(drops, "; ")) })
	var defs []string
	for i, typ := range types {
		defs = append(defs, fmt.Sprintf("c%d %s, d%d pgxscru128_%s_form%d", i, typ, i, f.name, i))
	}
	table := createTable(t, conn, f.name, "k int, how text, "+strings.Join(defs, ", "))
	// typeOf is the type of a column, or the type its domain is over.
	typeOf := func(column int) string { return types[column/2] }

	ids := f.sample(t)
	for range 40 {
		ids = append(ids, f.random(r))
	}
	placeholders := make([]string, len(columns))
	for i := range placeholders {
		placeholders[i] = fmt.Sprintf("$%d", i+3)
	}
	insert := fmt.Sprintf("INSERT INTO %s (k, how, %s) VALUES ($1, $2, %s)", table, strings.Join(columns, ", "), strings.Join(placeholders, ", "))
	var copyRows [][]any
	for k, id := range ids {
		row := []any{k, "CopyFrom"}
		for range columns {
			row = append(row, id)
		}
		copyRows = append(copyRows, row)
		for _, mode := range modes {
			exec(t, conns[mode], insert, append([]any{k, mode.String()}, row[2:]...)...)
		}
	}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{table}, append([]string{"k", "how"}, columns...), pgx.CopyFromRows(copyRows)); err != nil {
		t.Fatalf("CopyFrom: %v", err)
	}
	rowsPerID := len(modes) + 1

	for i, column := range columns {
		// One form per ID and column, and the documented one.
		rows, _ := conn.Query(ctx, fmt.Sprintf("SELECT k, min(%[1]s::text), max(%[1]s::text) FROM %[2]s GROUP BY k ORDER BY k", column, table))
		forms, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct {
			K        int
			Min, Max string
		}])
		if err != nil || len(forms) != len(ids) {
			t.Fatalf("%s: %v, %v", column, forms, err)
		}
		for _, form := range forms {
			id := ids[form.K]
			if want := f.stored(id); typeOf(i) != f.pgType && (form.Min != want || form.Max != want) {
				t.Errorf("%v in %s (%s): stored as %q to %q; want %q alone", id, column, typeOf(i), form.Min, form.Max, want)
			}
			if typeOf(i) == f.pgType && (form.Min != f.pgText(id) || form.Max != f.pgText(id)) {
				t.Errorf("%v in %s (%s): %q to %q", id, column, typeOf(i), form.Min, form.Max)
			}
		}
		for _, mode := range modes {
			// WHERE col = $1 finds every row of the ID, in every mode.
			batch := &pgx.Batch{}
			for k, id := range ids {
				batch.Queue(fmt.Sprintf("SELECT count(*) FROM %s WHERE k = $1 AND %s = $2", table, column), k, id).QueryRow(func(row pgx.Row) error {
					var n int
					if err := row.Scan(&n); err != nil || n != rowsPerID {
						t.Errorf("%v in %s (%s): WHERE %s = $1 in %v found %d of %d rows, %v", id, column, typeOf(i), column, mode, n, rowsPerID, err)
					}
					return nil
				})
			}
			if err := conns[mode].SendBatch(ctx, batch).Close(); err != nil {
				t.Fatalf("%s in %v: %v", column, mode, err)
			}
			// Every row reads back as its ID, in every mode.
			rows, _ := conns[mode].Query(ctx, fmt.Sprintf("SELECT k, how, %s FROM %s", column, table))
			n := 0
			var k int
			var how string
			var back T
			_, err := pgx.ForEachRow(rows, []any{&k, &how, &back}, func() error {
				n++
				if back != ids[k] {
					t.Errorf("%v in %s (%s), stored in %s, read in %v: %v", ids[k], column, typeOf(i), how, mode, back)
				}
				return nil
			})
			if err != nil || n != len(ids)*rowsPerID {
				t.Errorf("%s read in %v: %d rows, %v", column, mode, n, err)
			}
		}
	}
}

// TestPaddedChar pins what the package documentation says of a char(n)
// column longer than the stored form: PostgreSQL pads the value with
// spaces, and scanning it fails (with the format's error) rather than
// giving another ID.
func TestPaddedChar(t *testing.T) {
	conn := connect(t, true)
	forEachFormat(t, func(t *testing.T, f testedFormat) { f.testPaddedChar(t, conn) })
}

func (f *format[T, N]) testPaddedChar(t *testing.T, conn *pgx.Conn) {
	id := f.extremes[1]
	table := createTable(t, conn, f.name, fmt.Sprintf("c char(%d)", len(f.stored(id))+4))
	exec(t, conn, "INSERT INTO "+table+" VALUES ($1)", id)
	var s string
	var back T
	if err := conn.QueryRow(context.Background(), "SELECT c, c FROM "+table).Scan(&s, &back); err == nil || s != f.stored(id)+"    " {
		t.Errorf("%v in a longer char column: %q, %v, %v; want the stored form padded, and an error", id, s, back, err)
	}
}
