package integration

import (
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// base is the first time IDs are minted at: a multiple of 256 ms, so that
// SCRU64 ticks start on it, and after the epochs of every format.
var base = time.UnixMilli(1_750_000_000_000)

// unitOffsets are the timestamps of the test IDs, in units of the format's
// timestamp from base: several IDs share some units, and some units have
// none. The IDs are minted in this order, so they increase along it.
var unitOffsets = []int{0, 0, 0, 1, 2, 2, 5, 5, 5, 8}

// ranges are the [from, to] units of the range queries; some hold no ID.
var ranges = [][2]int{{0, 0}, {1, 5}, {2, 8}, {0, 8}, {3, 4}, {6, 7}, {9, 12}}

// times returns the mint times of unitOffsets: the n-th ID of a unit is
// minted n quarters of a unit after its start.
func times(unit time.Duration) []time.Time {
	out := make([]time.Time, len(unitOffsets))
	for i, u := range unitOffsets {
		n := 0
		for j := i - 1; j >= 0 && unitOffsets[j] == u; j-- {
			n++
		}
		out[i] = base.Add(time.Duration(u)*unit + time.Duration(n)*unit/4)
	}
	return out
}

// sqlFormats runs testFormat for each format, as a table.
var sqlFormats = []struct {
	name string
	run  func(t *testing.T, d database)
}{
	{"scru128", func(t *testing.T, d database) { testFormat(t, d, scru128Format) }},
	{"ulid", func(t *testing.T, d database) { testFormat(t, d, ulidFormat) }},
	{"legacy", func(t *testing.T, d database) { testFormat(t, d, legacyFormat) }},
	{"scru64", func(t *testing.T, d database) { testFormat(t, d, scru64Format) }},
	{"ulidflake", func(t *testing.T, d database) { testFormat(t, d, ulidflakeFormat) }},
}

// TestDatabaseSQL stores every ID type in every column type that applies,
// on every database, through database/sql.
func TestDatabaseSQL(t *testing.T) {
	for _, db := range databases() {
		t.Run(db.name, func(t *testing.T) {
			d := db.open(t)
			for _, f := range sqlFormats {
				t.Run(f.name, func(t *testing.T) { f.run(t, d) })
			}
		})
	}
}

// testFormat runs testColumn for each column kind of f that d has.
func testFormat[T comparable, N comparable, PT interface {
	*T
	sql.Scanner
}, PN interface {
	*N
	sql.Scanner
}](t *testing.T, d database, f format[T, N]) {
	for _, c := range f.columns {
		columnType := d.columnType(c.kind)
		if columnType == "" {
			continue // no uuid type in SQLite
		}
		t.Run(string(c.kind), func(t *testing.T) {
			testColumn[T, N, PT, PN](t, d, f, c, columnType)
		})
	}
}

// testColumn inserts IDs minted at chosen times, in a scrambled order,
// with a nullable column that is NULL for every other row, and checks:
// each row reads back into T and N; NULL reads into N as not valid and
// into T as the package's ErrScanNull; ORDER BY id gives the order of
// minting; and BETWEEN MinAtTime(from) AND MaxAtTime(to), bound as the
// column stores IDs, returns exactly the IDs minted from..to.
func testColumn[T comparable, N comparable, PT interface {
	*T
	sql.Scanner
}, PN interface {
	*N
	sql.Scanner
}](t *testing.T, d database, f format[T, N], c column[T, N], columnType string) {
	table := fmt.Sprintf("ids_%s_%s", f.name, c.kind)
	d.table(t, table, columnType)
	ids := f.mint(t, times(f.unit))
	for i := 1; i < len(ids); i++ {
		if ids[i] == ids[i-1] {
			t.Fatalf("minted %v twice", ids[i])
		}
	}
	valid := func(seq int) bool { return seq%2 == 0 }
	for _, seq := range rand.New(rand.NewPCG(1, 2)).Perm(len(ids)) {
		d.exec(t, "INSERT INTO "+table+" (seq, id, nid) VALUES (?, ?, ?)",
			seq, c.bind(ids[seq]), c.bindNull(f.null(ids[seq], valid(seq))))
	}

	// Read back into T and N, by sequence number.
	rows, err := d.db.Query("SELECT seq, id, id, nid FROM " + table + " ORDER BY seq")
	if err != nil {
		t.Fatal(err)
	}
	read := 0
	for rows.Next() {
		var seq int
		var id T
		var idAsNull, nid N
		if err := rows.Scan(&seq, PT(&id), PN(&idAsNull), PN(&nid)); err != nil {
			t.Fatalf("row %d: %v", read, err)
		}
		if seq != read || id != ids[seq] {
			t.Errorf("row %d: seq %d, id %v; want %v", read, seq, id, ids[read])
		}
		if got, ok := f.nullFields(idAsNull); got != ids[seq] || !ok {
			t.Errorf("row %d: id as Null = %v, %v", seq, got, ok)
		}
		if got, ok := f.nullFields(nid); ok != valid(seq) || ok && got != ids[seq] || !ok && got != *new(T) {
			t.Errorf("row %d: nid = %v, %v; want valid %v", seq, got, ok, valid(seq))
		}
		read++
	}
	if err := rows.Close(); err != nil || read != len(ids) {
		t.Fatalf("read %d rows of %d: %v", read, len(ids), err)
	}
	var id T
	err = d.db.QueryRow("SELECT nid FROM " + table + " WHERE seq = 1").Scan(PT(&id))
	if !errors.Is(err, f.scanNull) {
		t.Errorf("NULL into the ID type: %v, want %v", err, f.scanNull)
	}

	if !c.ordered {
		return
	}
	// ORDER BY id is the order of minting.
	if got := seqs(t, d, "SELECT seq FROM "+table+" ORDER BY id"); !slices.Equal(got, count(len(ids))) {
		t.Errorf("ORDER BY id: %v, want %v", got, count(len(ids)))
	}
	// Range queries.
	for _, r := range ranges {
		lo, err := f.minAtTime(base.Add(time.Duration(r[0]) * f.unit))
		if err != nil {
			t.Fatal(err)
		}
		hi, err := f.maxAtTime(base.Add(time.Duration(r[1]) * f.unit))
		if err != nil {
			t.Fatal(err)
		}
		var want []int
		for seq, u := range unitOffsets {
			if r[0] <= u && u <= r[1] {
				want = append(want, seq)
			}
		}
		got := seqs(t, d, "SELECT seq FROM "+table+" WHERE id BETWEEN ? AND ? ORDER BY id", c.bind(lo), c.bind(hi))
		if !slices.Equal(got, want) {
			t.Errorf("units %d to %d: %v, want %v", r[0], r[1], got, want)
		}
	}
}

// seqs returns the seq column of a query's rows.
func seqs(t *testing.T, d database, q string, args ...any) []int {
	t.Helper()
	rows, err := d.db.Query(d.query(q), args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var seq int
		if err := rows.Scan(&seq); err != nil {
			t.Fatal(err)
		}
		out = append(out, seq)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// count returns 0, 1, ..., n-1.
func count(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
