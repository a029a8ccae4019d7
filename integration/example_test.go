package integration

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fastid/scru128"
	"github.com/fastid/scru128/scru64"
)

// The examples run docs/databases.md's snippets on SQLite, which takes
// PostgreSQL's $1 markers too. TestDatabaseSQL runs the same patterns on
// both databases.

// exampleDB opens a fresh SQLite database in a temporary directory.
func exampleDB() (*sql.DB, func()) {
	dir, err := os.MkdirTemp("", "scru128-example")
	if err != nil {
		panic(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, "example.db"))
	if err != nil {
		panic(err)
	}
	return db, func() { db.Close(); os.RemoveAll(dir) }
}

// must panics on error, to keep the examples to the point.
func must(_ any, err error) {
	if err != nil {
		panic(err)
	}
}

func Example_textColumn() {
	db, done := exampleDB()
	defer done()
	must(db.Exec(`CREATE TABLE events (id TEXT PRIMARY KEY, parent TEXT)`))
	id := scru128.MustParse("0372hg16csmsm50l8dikcvukc")
	var n int

	// A text column: an ID stores its 25-digit text; a NullID stores NULL or the text.
	db.Exec(`INSERT INTO events (id, parent) VALUES ($1, $2)`, id, scru128.NullID{})

	// All IDs of one day, whatever else their fields hold.
	day := time.Date(2022, 4, 3, 0, 0, 0, 0, time.UTC)
	lo, _ := scru128.MinAtTime(day)
	hi, _ := scru128.MaxAtTime(day.Add(24*time.Hour - time.Millisecond))
	db.QueryRow(`SELECT count(*) FROM events WHERE id BETWEEN $1 AND $2`, lo, hi).Scan(&n)

	var got scru128.ID
	var parent scru128.NullID
	must(nil, db.QueryRow(`SELECT id, parent FROM events`).Scan(&got, &parent))
	fmt.Println(got, parent.Valid, n)
	// Output: 0372hg16csmsm50l8dikcvukc false 1
}

func Example_binaryColumn() {
	db, done := exampleDB()
	defer done()
	must(db.Exec(`CREATE TABLE events (id BLOB PRIMARY KEY, parent BLOB)`)) // BYTEA, BINARY(16), uuid
	id := scru128.MustParse("0372hg16csmsm50l8dikcvukc")
	parent := scru128.NullID{ID: scru128.MustParse("0372hg16cpxrrsugrf72fmm0w"), Valid: true}
	lo, _ := scru128.MinAt(id.Timestamp())
	hi, _ := scru128.MaxAt(id.Timestamp())
	var n int

	// A binary or uuid column: Binary and NullBinary store the 16 bytes, and range
	// bounds need the conversion too.
	db.Exec(`INSERT INTO events (id, parent) VALUES ($1, $2)`, scru128.Binary(id), scru128.NullBinary(parent))
	db.QueryRow(`SELECT count(*) FROM events WHERE id BETWEEN $1 AND $2`,
		scru128.Binary(lo), scru128.Binary(hi)).Scan(&n)
	fmt.Println(n)

	var got scru128.ID // Scan takes the bytes as well as the text
	var gotParent scru128.NullID
	must(nil, db.QueryRow(`SELECT id, parent FROM events`).Scan(&got, &gotParent))
	fmt.Println(got, gotParent.ID)

	// Bound as plain IDs (text), the same bounds match nothing.
	must(nil, db.QueryRow(`SELECT count(*) FROM events WHERE id BETWEEN $1 AND $2`, lo, hi).Scan(&n))
	fmt.Println(n)
	// Output:
	// 1
	// 0372hg16csmsm50l8dikcvukc 0372hg16cpxrrsugrf72fmm0w
	// 0
}

func Example_bigintColumn() {
	db, done := exampleDB()
	defer done()
	must(db.Exec(`CREATE TABLE events (id BIGINT PRIMARY KEY)`))

	id := scru64.MustParse("0u375nxqh5cq")
	must(db.Exec(`INSERT INTO events (id) VALUES ($1)`, id)) // an int64

	lo, _ := scru64.MinAt(id.Timestamp())
	hi, _ := scru64.MaxAt(id.Timestamp())
	var got scru64.ID
	must(nil, db.QueryRow(`SELECT id FROM events WHERE id BETWEEN $1 AND $2`, lo, hi).Scan(&got))
	fmt.Println(got, got.Int64())
	// Output: 0u375nxqh5cq 110009624767914842
}
