package integration

import (
	"errors"
	"testing"

	"github.com/fastid/scru128"
	"github.com/fastid/scru128/scru64"
	"github.com/fastid/scru128/ulid"
)

// TestPlainIDInBinaryColumn pins what docs/databases.md says happens when an ID
// is bound to a binary column without the Binary conversion: the driver
// stores its text as bytes (25 for SCRU128), Scan still reads it back, but
// a range bound with Binary, as the column's other rows need, misses it;
// and bounds bound as plain IDs miss the rows stored with Binary. A
// PostgreSQL uuid column refuses the text instead.
func TestPlainIDInBinaryColumn(t *testing.T) {
	for _, db := range databases() {
		t.Run(db.name, func(t *testing.T) {
			d := db.open(t)
			d.table(t, "plain_binary", d.binary)
			id := scru128.MustParse("03e4a0sgw33ldpwm8t1qd6a9a")
			d.exec(t, "INSERT INTO plain_binary (seq, id) VALUES (?, ?)", 0, id)                 // the pitfall
			d.exec(t, "INSERT INTO plain_binary (seq, id) VALUES (?, ?)", 1, scru128.Binary(id)) // as documented
			var n int
			if err := d.db.QueryRow("SELECT length(id) FROM plain_binary WHERE seq = 0").Scan(&n); err != nil || n != 25 {
				t.Fatalf("a plain ID in a binary column takes %d bytes (%v), want its 25 text bytes", n, err)
			}
			var back scru128.ID
			if err := d.db.QueryRow("SELECT id FROM plain_binary WHERE seq = 0").Scan(&back); err != nil || back != id {
				t.Fatalf("reading the text bytes back: %s, %v", back, err)
			}
			lo, _ := scru128.MinAt(id.Timestamp())
			hi, _ := scru128.MaxAt(id.Timestamp())
			if got := seqs(t, d, "SELECT seq FROM plain_binary WHERE id BETWEEN ? AND ?", scru128.Binary(lo), scru128.Binary(hi)); len(got) != 1 || got[0] != 1 {
				t.Errorf("Binary bounds found rows %v, want only the row stored with Binary", got)
			}
			if got := seqs(t, d, "SELECT seq FROM plain_binary WHERE id BETWEEN ? AND ?", lo, hi); len(got) != 1 || got[0] != 0 {
				t.Errorf("plain bounds found rows %v, want only the row stored as text", got)
			}
			if d.uuid != "" {
				d.table(t, "plain_uuid", d.uuid)
				if _, err := d.db.Exec(d.query("INSERT INTO plain_uuid (seq, id) VALUES (?, ?)"), 0, ulid.Make()); err == nil {
					t.Error("a uuid column accepted a ULID's text")
				}
			}
		})
	}
}

// TestIntegerValueInTextColumn is the report of a scru64 ID that
// did not round-trip through a TEXT column: SQLite stores Value's int64 as
// decimal text, which Scan now reads. PostgreSQL's pgx refuses the int64
// for a text parameter instead, with an error.
func TestIntegerValueInTextColumn(t *testing.T) {
	for _, db := range databases() {
		t.Run(db.name, func(t *testing.T) {
			d := db.open(t)
			d.table(t, "int_in_text", d.text)
			id := scru64.MustParse("0u375nxqh5cq")
			_, err := d.db.Exec(d.query("INSERT INTO int_in_text (seq, id) VALUES (?, ?)"), 0, id)
			if d.name == "postgres" {
				if err == nil {
					t.Fatal("pgx stored an int64 in a text column; docs/databases.md says it refuses")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var stored string
			var back scru64.ID
			var null scru64.NullID
			if err := d.db.QueryRow("SELECT id, id, id FROM int_in_text").Scan(&stored, &back, &null); err != nil {
				t.Fatal(err)
			}
			if stored != "110009624767914842" || back != id || null.ID != id || !null.Valid {
				t.Fatalf("stored %q, read back %s and %+v", stored, back, null)
			}
			var missing scru64.ID
			err = d.db.QueryRow("SELECT NULL").Scan(&missing)
			if !errors.Is(err, scru64.ErrScanNull) {
				t.Fatalf("NULL: %v", err)
			}
		})
	}
}

// TestULIDColumnWrittenByOklog pins what ulid.ULID.Value's doc says to a
// user coming from github.com/oklog/ulid/v2, whose Value stores a ULID's
// 16 bytes (its MarshalBinary): a plain ULID bound in WHERE id = ? matches
// no such row, ulid.Binary does, and Scan reads the bytes back.
func TestULIDColumnWrittenByOklog(t *testing.T) {
	for _, db := range databases() {
		t.Run(db.name, func(t *testing.T) {
			d := db.open(t)
			d.table(t, "oklog_rows", d.binary)
			id := ulid.MustParse("01ARZ3NDEKTSV4RRFFQ69G5FAV")
			oklogValue, _ := id.MarshalBinary() // what oklog's Value returns
			d.exec(t, "INSERT INTO oklog_rows (seq, id) VALUES (?, ?)", 7, oklogValue)
			if got := seqs(t, d, "SELECT seq FROM oklog_rows WHERE id = ?", id); len(got) != 0 {
				t.Errorf("a plain ULID matched rows %v; its doc says it matches nothing", got)
			}
			if got := seqs(t, d, "SELECT seq FROM oklog_rows WHERE id = ?", ulid.Binary(id)); len(got) != 1 || got[0] != 7 {
				t.Errorf("ulid.Binary matched rows %v, want [7]", got)
			}
			var back ulid.ULID
			if err := d.db.QueryRow("SELECT id FROM oklog_rows").Scan(&back); err != nil || back != id {
				t.Errorf("Scan of the 16 bytes = %s, %v; want %s", back, err, id)
			}
		})
	}
}
