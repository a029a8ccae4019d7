package pgxscru128_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestRanges queries every format's IDs with BETWEEN, the bounds from
// MinAtTime and MaxAtTime bound as they are, in every query mode, in the
// ID's PostgreSQL type and, where it keeps ID order, in a text column.
func TestRanges(t *testing.T) {
	forEachMode(t, func(t *testing.T, f testedFormat, conn *pgx.Conn, mode pgx.QueryExecMode) {
		f.testRanges(t, conn, mode)
	})
}

func (f *format[T, N]) testRanges(t *testing.T, conn *pgx.Conn, mode pgx.QueryExecMode) {
	ctx := context.Background()
	table := createTable(t, conn, f.name, fmt.Sprintf(`seq int, id %s, txt text COLLATE "C"`, f.pgType))
	ids := f.sample(t)
	for seq, id := range ids {
		exec(t, conn, `INSERT INTO `+table+` VALUES ($1, $2, $3)`, mode, seq, id, id)
	}
	// A text column holds the text form of the ID's PostgreSQL type, the
	// hyphenated uuid or decimal digits padded to one length, which sort
	// as the IDs do, bounds included.
	for _, column := range []string{"id", "txt"} {
		for _, r := range ranges {
			lo, err := f.minAtTime(base.Add(time.Duration(r[0]) * f.unit))
			if err != nil {
				t.Fatal(err)
			}
			hi, err := f.maxAtTime(base.Add(time.Duration(r[1]) * f.unit))
			if err != nil {
				t.Fatal(err)
			}
			rows, _ := conn.Query(ctx, `SELECT seq FROM `+table+` WHERE `+column+` BETWEEN $1 AND $2 ORDER BY `+column, mode, lo, hi)
			got, err := pgx.CollectRows(rows, pgx.RowTo[int])
			if want := f.inRange(t, ids, r[0], r[1]); err != nil || !slices.Equal(got, want) {
				t.Errorf("%s, units %d to %d: rows %v, %v; want %v", column, r[0], r[1], got, err, want)
			}
		}
	}
}

// TestBatch sends IDs through a pgx.Batch, in every query mode (a
// batch's mode is its connection's default), and reads them back in the
// same batch.
func TestBatch(t *testing.T) {
	forEachFormat(t, func(t *testing.T, f testedFormat) {
		for _, mode := range modes {
			t.Run(mode.String(), func(t *testing.T) { f.testBatch(t, connectInMode(t, true, mode), mode) })
		}
	})
}

func (f *format[T, N]) testBatch(t *testing.T, conn *pgx.Conn, mode pgx.QueryExecMode) {
	ctx := context.Background()
	table := createTable(t, conn, f.name, fmt.Sprintf(`seq int, id %[1]s, nid %[1]s, ids %[1]s[]`, f.pgType))
	ids := f.sample(t)
	var zero T
	batch := &pgx.Batch{}
	for seq, id := range ids {
		batch.Queue(`INSERT INTO `+table+` VALUES ($1, $2, $3, $4)`, seq, id, f.null(id, seq%2 == 0), []T{id})
	}
	lo, hi := ids[1], ids[len(ids)-2]
	var between []T
	batch.Queue(`SELECT id FROM `+table+` WHERE id BETWEEN $1 AND $2 ORDER BY id`, lo, hi).Query(func(rows pgx.Rows) error {
		var err error
		between, err = pgx.CollectRows(rows, pgx.RowTo[T])
		return err
	})
	got := make([]N, len(ids))
	gotSlices := make([][]T, len(ids))
	for seq, id := range ids {
		batch.Queue(`SELECT nid, ids FROM `+table+` WHERE id = $1`, id).QueryRow(func(row pgx.Row) error {
			return row.Scan(&got[seq], &gotSlices[seq])
		})
	}
	if err := conn.SendBatch(ctx, batch).Close(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(between, ids[1:len(ids)-1]) {
		t.Errorf("BETWEEN %v AND %v: %v", lo, hi, between)
	}
	for seq, id := range ids {
		want := f.null(zero, false)
		if seq%2 == 0 {
			want = f.null(id, true)
		}
		if got[seq] != want || !slices.Equal(gotSlices[seq], []T{id}) {
			t.Errorf("row %d: %v, %v; want %v, [%v]", seq, got[seq], gotSlices[seq], want, id)
		}
	}
}

// TestCopyFrom copies IDs, Null values, pointers and slices into the
// ID's PostgreSQL type, arrays of it and a text column with pgx.CopyFrom,
// and reads them back.
func TestCopyFrom(t *testing.T) {
	conn := connect(t, true)
	forEachFormat(t, func(t *testing.T, f testedFormat) { f.testCopyFrom(t, conn) })
}

func (f *format[T, N]) testCopyFrom(t *testing.T, conn *pgx.Conn) {
	ctx := context.Background()
	table := createTable(t, conn, f.name, fmt.Sprintf(`seq int, id %[1]s, nid %[1]s, pid %[1]s, ids %[1]s[], txt text`, f.pgType))
	ids := f.sample(t)
	var source [][]any
	for seq, id := range ids {
		var ptr *T
		if seq%2 == 0 {
			ptr = &ids[seq]
		}
		source = append(source, []any{seq, id, f.null(id, seq%2 == 0), ptr, []T{id}, id})
	}
	n, err := conn.CopyFrom(ctx, pgx.Identifier{table}, []string{"seq", "id", "nid", "pid", "ids", "txt"}, pgx.CopyFromRows(source))
	if err != nil || n != int64(len(ids)) {
		t.Fatalf("CopyFrom: %d rows, %v", n, err)
	}
	rows, _ := conn.Query(ctx, `SELECT seq, id, nid, pid, ids, txt, txt FROM `+table+` ORDER BY id`)
	var order []int
	for rows.Next() {
		var seq int
		var id, txt T
		var nid, pid N
		var slice []T
		var text string
		if err := rows.Scan(&seq, &id, &nid, &pid, &slice, &txt, &text); err != nil {
			t.Fatal(err)
		}
		order = append(order, seq)
		want, wantNull := ids[seq], f.null(*new(T), false)
		if seq%2 == 0 {
			wantNull = f.null(want, true)
		}
		if id != want || nid != wantNull || pid != wantNull || !slices.Equal(slice, []T{want}) || txt != want || text != f.stored(want) {
			t.Errorf("row %d: %v, %v, %v, %v, %v, %q; want %v", seq, id, nid, pid, slice, txt, text, want)
		}
	}
	if err := rows.Err(); err != nil || !slices.Equal(order, seqs(len(ids))) {
		t.Errorf("rows %v, %v", order, err)
	}
}

// record is a row for pgx.RowToStructByName.
type record[T, N any] struct {
	Seq    int
	ID     T
	Parent N
	Refs   []T
}

// TestCollectRows reads IDs with pgx.CollectRows, pgx.RowTo and
// pgx.RowToStructByName.
func TestCollectRows(t *testing.T) {
	conn := connect(t, true)
	forEachFormat(t, func(t *testing.T, f testedFormat) { f.testCollectRows(t, conn) })
}

func (f *format[T, N]) testCollectRows(t *testing.T, conn *pgx.Conn) {
	ctx := context.Background()
	table := createTable(t, conn, f.name, fmt.Sprintf(`seq int, id %[1]s, parent %[1]s, refs %[1]s[]`, f.pgType))
	ids := f.sample(t)
	var want []record[T, N]
	for seq, id := range ids {
		r := record[T, N]{seq, id, f.null(*new(T), false), []T{}}
		if seq > 0 {
			r.Parent, r.Refs = f.null(ids[seq-1], true), ids[:seq]
		}
		want = append(want, r)
		exec(t, conn, `INSERT INTO `+table+` VALUES ($1, $2, $3, $4)`, r.Seq, r.ID, r.Parent, r.Refs)
	}
	rows, _ := conn.Query(ctx, `SELECT id FROM `+table+` ORDER BY id`)
	got, err := pgx.CollectRows(rows, pgx.RowTo[T])
	if err != nil || !slices.Equal(got, ids) {
		t.Errorf("RowTo: %v, %v", got, err)
	}
	rows, _ = conn.Query(ctx, `SELECT seq, id, parent, refs FROM `+table+` ORDER BY id`)
	records, err := pgx.CollectRows(rows, pgx.RowToStructByName[record[T, N]])
	if err != nil || !slices.EqualFunc(records, want, func(a, b record[T, N]) bool {
		return a.Seq == b.Seq && a.ID == b.ID && a.Parent == b.Parent && slices.Equal(a.Refs, b.Refs)
	}) {
		t.Errorf("RowToStructByName: %v, %v; want %v", records, err, want)
	}
}

// TestDomains binds IDs to parameters of domains, types pgx does not
// know: one over the ID's PostgreSQL type, which takes them as that type,
// and one over text, which gets the same form, as a text column does, in
// every query mode. Both read back, as does the ID's own text stored as a
// string.
func TestDomains(t *testing.T) {
	forEachMode(t, func(t *testing.T, f testedFormat, conn *pgx.Conn, mode pgx.QueryExecMode) {
		f.testDomains(t, conn, mode)
	})
}

func (f *format[T, N]) testDomains(t *testing.T, conn *pgx.Conn, mode pgx.QueryExecMode) {
	ctx := context.Background()
	idDomain, textDomain := "pgxscru128_"+f.name+"_id", "pgxscru128_"+f.name+"_text"
	drop := `DROP TABLE IF EXISTS pgxscru128_` + f.name + `; DROP DOMAIN IF EXISTS ` + idDomain + `; DROP DOMAIN IF EXISTS ` + textDomain
	exec(t, conn, drop)
	exec(t, conn, `CREATE DOMAIN `+idDomain+` AS `+f.pgType+`; CREATE DOMAIN `+textDomain+` AS text`)
	t.Cleanup(func() { conn.Exec(context.Background(), drop) })
	table := createTable(t, conn, f.name, `id `+idDomain+`, txt `+textDomain)
	for _, id := range f.sample(t) {
		exec(t, conn, `DELETE FROM `+table)
		exec(t, conn, `INSERT INTO `+table+` VALUES ($1, $2)`, mode, id, id)
		var gotID, gotText T
		var text string
		err := conn.QueryRow(ctx, `SELECT id, txt, txt FROM `+table, mode).Scan(&gotID, &gotText, &text)
		if err != nil || gotID != id || gotText != id || text != f.stored(id) {
			t.Errorf("%v: %v, %v, %q, %v; want the ID, and %q in the text domain", id, gotID, gotText, text, err, f.stored(id))
		}
		// The ID's own text, stored as a string, reads back too.
		exec(t, conn, `UPDATE `+table+` SET txt = $1`, mode, f.text(id))
		if err := conn.QueryRow(ctx, `SELECT txt FROM `+table, mode).Scan(&gotText); err != nil || gotText != id {
			t.Errorf("%v stored as its text in the text domain: %v, %v", id, gotText, err)
		}
	}
}
