package pgxscru128_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestRoundTrip stores every format's IDs, Null values, pointers and
// slices in its PostgreSQL type (uuid or int8), in arrays of it and in
// text columns, in every query mode, reads them back into each Go type,
// and checks that they come back bit for bit, in ID order, and that the
// server holds the forms the package documentation promises.
func TestRoundTrip(t *testing.T) {
	forEachMode(t, func(t *testing.T, f testedFormat, conn *pgx.Conn, mode pgx.QueryExecMode) {
		f.testRoundTrip(t, conn, mode)
	})
}

func (f *format[T, N]) testRoundTrip(t *testing.T, conn *pgx.Conn, mode pgx.QueryExecMode) {
	ctx := context.Background()
	table := createTable(t, conn, f.name, fmt.Sprintf(`seq int PRIMARY KEY,
		id %[1]s NOT NULL, nid %[1]s, pid %[1]s, ids %[1]s[], nids %[1]s[], pids %[1]s[],
		txt text COLLATE "C", ntxt text, txts text[]`, f.pgType))
	ids := f.sample(t)
	var zero T
	// valid says which rows hold NULL in the nullable columns.
	valid := func(seq int) bool { return seq%2 == 0 }
	// In reverse, so that ORDER BY has work to do.
	for seq := len(ids) - 1; seq >= 0; seq-- {
		id := ids[seq]
		var ptr *T
		if valid(seq) {
			ptr = &ids[seq]
		}
		exec(t, conn, `INSERT INTO `+table+` VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, mode,
			seq, id, f.null(id, valid(seq)), ptr,
			[]T{id, id}, []N{f.null(id, true), f.null(id, false)}, []*T{nil, &ids[seq]},
			id, f.null(id, valid(seq)), []T{id})
	}

	rows, err := conn.Query(ctx, `SELECT seq, id, id, id, nid, nid, pid, ids, nids, nids, pids,
		txt, ntxt, txts, id::text, txt FROM `+table+` ORDER BY `+table+`.id`, mode)
	if err != nil {
		t.Fatal(err)
	}
	var order []int
	for rows.Next() {
		var (
			seq                     int
			id, txt                 T
			idNull, nid, pid, ntxt  N
			idPtr, nidPtr           *T
			idSlice, txtSlice       []T
			nullSlice               []N
			nullPtrSlice, ptrSlice  []*T
			idAsPgText, txtAsString string
		)
		if err := rows.Scan(&seq, &id, &idNull, &idPtr, &nid, &nidPtr, &pid, &idSlice, &nullSlice, &nullPtrSlice, &ptrSlice,
			&txt, &ntxt, &txtSlice, &idAsPgText, &txtAsString); err != nil {
			t.Fatal(err)
		}
		order = append(order, seq)
		want := ids[seq]
		wantNull, wantPtr := f.null(zero, false), (*T)(nil)
		if valid(seq) {
			wantNull, wantPtr = f.null(want, true), &want
		}
		check := func(what string, ok bool, got any) {
			t.Helper()
			if !ok {
				t.Errorf("row %d (%v): %s came back as %v", seq, want, what, got)
			}
		}
		check("id into the ID type", id == want, id)
		check("id into the Null type", idNull == f.null(want, true), idNull)
		check("id into a pointer", idPtr != nil && *idPtr == want, idPtr)
		check("the Null value", nid == wantNull, nid)
		check("the Null value into a pointer", equalPtr(nidPtr, wantPtr), nidPtr)
		check("the pointer into the Null type", pid == wantNull, pid)
		check("a slice", slices.Equal(idSlice, []T{want, want}), idSlice)
		check("a slice of Null values", slices.Equal(nullSlice, []N{f.null(want, true), f.null(zero, false)}), nullSlice)
		check("a slice of Null values into pointers", slices.EqualFunc(nullPtrSlice, []*T{&want, nil}, equalPtr), nullPtrSlice)
		check("a slice of pointers", slices.EqualFunc(ptrSlice, []*T{nil, &want}, equalPtr), ptrSlice)
		check("the text column", txt == want, txt)
		check("the nullable text column", ntxt == wantNull, ntxt)
		check("the text array", slices.Equal(txtSlice, []T{want}), txtSlice)
		check("id::text", idAsPgText == f.pgText(want), idAsPgText)
		// In every mode, the text form of the ID's PostgreSQL type:
		// what the server parses as uuid or int8 where pgx cannot know
		// the column is text.
		check("the text column's contents", txtAsString == f.stored(want), txtAsString)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(order, seqs(len(ids))) {
		t.Errorf("ORDER BY id gave rows %v", order)
	}
}

// equalPtr reports whether a and b are both nil or point to equal values.
func equalPtr[T comparable](a, b *T) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// seqs returns 0, 1, ..., n-1.
func seqs(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
