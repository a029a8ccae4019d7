//go:build go1.27

package integration

import (
	"fmt"
	"slices"
	"testing"
	"time"
	"uuid"

	"github.com/fastid/scru128"
	"github.com/fastid/scru128/legacy"
	"github.com/fastid/scru128/ulid"
)

// TestStandardUUIDColumns reads, through database/sql, what Go 1.27's uuid
// package writes, and writes what it reads: database/sql stores a
// uuid.UUID as its 36-character text (in PostgreSQL a uuid value), and
// scans one from that text or from 16 bytes. An ID scans the standard
// package's values as they are; for the standard package to read an ID,
// bind uuid.UUID(id) or Binary(id), not the ID, whose Value is its own
// text.
func TestStandardUUIDColumns(t *testing.T) {
	for _, dbc := range databases() {
		t.Run(dbc.name, func(t *testing.T) {
			d := dbc.open(t)
			// The column types a uuid.UUID goes in: PostgreSQL's uuid,
			// and where there is none, the text database/sql writes and
			// the bytes a program may store.
			types := []string{d.uuid}
			if d.uuid == "" {
				types = []string{d.text, d.binary}
			}
			for _, typ := range types {
				t.Run(typ, func(t *testing.T) { testStandardUUIDColumn(t, d, typ) })
			}
		})
	}
}

func testStandardUUIDColumn(t *testing.T, d database, typ string) {
	table := "std_uuid_" + d.name
	d.exec(t, "DROP TABLE IF EXISTS "+table)
	d.exec(t, fmt.Sprintf("CREATE TABLE %s (seq INTEGER NOT NULL, u %s NOT NULL)", table, typ))
	t.Cleanup(func() { d.db.Exec("DROP TABLE IF EXISTS " + table) })
	insert := func(seq int, v any) error {
		_, err := d.db.Exec(d.query("INSERT INTO "+table+" (seq, u) VALUES (?, ?)"), seq, v)
		return err
	}
	row := func(seq int) string { return fmt.Sprintf("SELECT u FROM %s WHERE seq = %d", table, seq) }

	// Written by the standard package, read by this module's types: the
	// value database/sql binds for a uuid.UUID, or its 16 bytes.
	u := uuid.NewV7()
	stdValue := any(u)
	if typ == d.binary {
		stdValue = u[:]
	}
	if err := insert(1, stdValue); err != nil {
		t.Fatal(err)
	}
	var id scru128.ID
	var ul ulid.ULID
	var l legacy.ID
	for _, dest := range []any{&id, &ul, &l} {
		if err := d.db.QueryRow(row(1)).Scan(dest); err != nil {
			t.Fatalf("a uuid.UUID's value into a %T: %v", dest, err)
		}
	}
	if id != scru128.ID(u) || ul != ulid.ULID(u) || l != legacy.ID(u) {
		t.Fatalf("read %v, %v, %v; want the bytes of %v", id, ul, l, u)
	}
	if id.Timestamp() != uint64(u[0])<<40|uint64(u[1])<<32|uint64(u[2])<<24|uint64(u[3])<<16|uint64(u[4])<<8|uint64(u[5]) {
		t.Errorf("the ID's timestamp %d is not the UUID's", id.Timestamp())
	}

	// Written by this module, read by the standard package: an ID
	// converted to uuid.UUID, or its Binary, reads back as the same
	// uuid.UUID.
	mine := scru128.New()
	ours := []any{uuid.UUID(mine), scru128.Binary(mine)}
	if typ == d.text {
		ours = ours[:1] // the 16 bytes of Binary are not text
	}
	for i, v := range ours {
		seq := 10 + i
		if err := insert(seq, v); err != nil {
			t.Fatalf("%T: %v", v, err)
		}
		var back uuid.UUID
		if err := d.db.QueryRow(row(seq)).Scan(&back); err != nil || back != uuid.UUID(mine) {
			t.Errorf("%T read as uuid.UUID: %v, %v; want %v", v, back, err, uuid.UUID(mine))
		}
		var again scru128.ID
		if err := d.db.QueryRow(row(seq)).Scan(&again); err != nil || again != mine {
			t.Errorf("%T read as an ID: %v, %v", v, again, err)
		}
	}

	// A plain ID binds its own 25-character text: a uuid column refuses
	// it, and where a text column takes it, the standard package cannot
	// read it; never another UUID.
	switch err := insert(20, mine); {
	case typ == d.uuid && err == nil:
		t.Error("a uuid column took an ID's text")
	case typ == d.uuid:
	case err != nil:
		t.Fatal(err)
	default:
		var back uuid.UUID
		if err := d.db.QueryRow(row(20)).Scan(&back); err == nil {
			t.Errorf("an ID's text read as uuid.UUID %v", back)
		}
	}

	// Both order by the 16 bytes, or their text: version 7 UUIDs and IDs,
	// minted in turn a few milliseconds apart (within one, the two
	// layouts differ after the timestamp) and stored in reverse, come
	// back in minting order.
	var want []uuid.UUID
	for range 10 {
		want = append(want, uuid.NewV7())
		time.Sleep(2 * time.Millisecond)
		want = append(want, uuid.UUID(scru128.New()))
		time.Sleep(2 * time.Millisecond)
	}
	for i := len(want) - 1; i >= 0; i-- {
		v := any(want[i])
		if typ == d.binary {
			v = want[i][:]
		}
		if err := insert(100+i, v); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := d.db.Query(fmt.Sprintf("SELECT u FROM %s WHERE seq >= 100 ORDER BY u", table))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []uuid.UUID
	for rows.Next() {
		var v scru128.ID
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		got = append(got, uuid.UUID(v))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if !slices.IsSortedFunc(want, uuid.UUID.Compare) || !slices.Equal(got, want) {
		t.Errorf("ORDER BY u: %v\nwant %v", got, want)
	}
}
