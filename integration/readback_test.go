package integration

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fastid/scru128"
	"github.com/fastid/scru128/legacy"
	"github.com/fastid/scru128/scru64"
	"github.com/fastid/scru128/ulid"
	"github.com/fastid/scru128/ulidflake"
)

// TestReadBack sends random IDs, minted at every offset from their
// format's epoch (the first hours after it most densely, custom
// Ulid-Flake epochs among them), through every way database/sql writes
// them: Value (the ID itself), the Null type, Binary for the 128-bit
// formats, String and the 8 bytes of AppendBinary for the 64-bit ones,
// into every column type (SQLite INTEGER, TEXT and BLOB; PostgreSQL
// bigint, text, bytea and uuid, in each of pgx's query modes). Where a
// database stores the value, it must read back through Scan, into the ID
// and the Null type, as the same ID or an error, never another ID.
func TestReadBack(t *testing.T) {
	type target struct {
		name string
		open func(t *testing.T) database
	}
	targets := []target{{"sqlite", openSQLite}}
	for _, mode := range []string{"cache_statement", "cache_describe", "describe_exec", "exec", "simple_protocol"} {
		targets = append(targets, target{"postgres/" + mode, func(t *testing.T) database {
			return openPostgresInMode(t, mode)
		}})
	}
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			d := tg.open(t)
			r := rand.New(rand.NewPCG(24, 4))
			t.Run("scru128", func(t *testing.T) { readBack[scru128.ID, scru128.NullID](t, d, r, scru128ReadBack) })
			t.Run("ulid", func(t *testing.T) { readBack[ulid.ULID, ulid.NullULID](t, d, r, ulidReadBack) })
			t.Run("legacy", func(t *testing.T) { readBack[legacy.ID, legacy.NullID](t, d, r, legacyReadBack) })
			t.Run("scru64", func(t *testing.T) { readBack[scru64.ID, scru64.NullID](t, d, r, scru64ReadBack) })
			t.Run("ulidflake", func(t *testing.T) { readBack[ulidflake.ID, ulidflake.NullID](t, d, r, ulidflakeReadBack) })
		})
	}
}

// openPostgresInMode is openPostgres with pgx's default query mode set.
func openPostgresInMode(t *testing.T, mode string) database {
	t.Helper()
	d := openPostgres(t)
	db, err := sql.Open("pgx", postgresDSN(t)+"&default_query_exec_mode="+mode)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
	d.db = db
	return d
}

// readBackFormat is what TestReadBack needs of a format: IDs at random
// offsets from its epoch, and each way to hand one to database/sql.
type readBackFormat[T comparable, N any] struct {
	mint       func(t *testing.T, r *rand.Rand) T
	writers    []writer[T]
	nullFields func(N) (T, bool)
}

type writer[T any] struct {
	name  string
	value func(T) any
}

// offsetMillis returns a random offset from an epoch in milliseconds, up
// to max: half within the first 3 hours, the rest spread over every order
// of magnitude.
func offsetMillis(r *rand.Rand, max uint64) uint64 {
	if r.IntN(2) == 0 {
		return r.Uint64N(3*3600*1000) % (max + 1)
	}
	return r.Uint64N(1<<r.IntN(64)) % (max + 1)
}

var scru128ReadBack = readBackFormat[scru128.ID, scru128.NullID]{
	nullFields: func(n scru128.NullID) (scru128.ID, bool) { return n.ID, n.Valid },
	mint: func(t *testing.T, r *rand.Rand) scru128.ID {
		id, err := scru128.NewGenerator().GenerateOrAbortCore(1+offsetMillis(r, scru128.MaxTimestamp-1), 0)
		if err != nil {
			t.Fatal(err)
		}
		return id
	},
	writers: []writer[scru128.ID]{
		{"Value", func(id scru128.ID) any { return id }},
		{"NullID", func(id scru128.ID) any { return scru128.NullID{ID: id, Valid: true} }},
		{"Binary", func(id scru128.ID) any { return scru128.Binary(id) }},
	},
}

var ulidReadBack = readBackFormat[ulid.ULID, ulid.NullULID]{
	nullFields: func(n ulid.NullULID) (ulid.ULID, bool) { return n.ULID, n.Valid },
	mint: func(t *testing.T, r *rand.Rand) ulid.ULID {
		id, err := ulid.NewGenerator().GenerateOrAbortCore(1+offsetMillis(r, ulid.MaxTimestamp-1), 0)
		if err != nil {
			t.Fatal(err)
		}
		return id
	},
	writers: []writer[ulid.ULID]{
		{"Value", func(id ulid.ULID) any { return id }},
		{"NullULID", func(id ulid.ULID) any { return ulid.NullULID{ULID: id, Valid: true} }},
		{"Binary", func(id ulid.ULID) any { return ulid.Binary(id) }},
	},
}

var legacyReadBack = readBackFormat[legacy.ID, legacy.NullID]{
	nullFields: func(n legacy.NullID) (legacy.ID, bool) { return n.ID, n.Valid },
	mint: func(t *testing.T, r *rand.Rand) legacy.ID {
		id, err := legacy.NewGenerator().GenerateCore(offsetMillis(r, legacy.MaxTimestamp))
		if err != nil {
			t.Fatal(err)
		}
		return id
	},
	writers: []writer[legacy.ID]{
		{"Value", func(id legacy.ID) any { return id }},
		{"NullID", func(id legacy.ID) any { return legacy.NullID{ID: id, Valid: true} }},
		{"Binary", func(id legacy.ID) any { return legacy.Binary(id) }},
	},
}

var scru64ReadBack = readBackFormat[scru64.ID, scru64.NullID]{
	nullFields: func(n scru64.NullID) (scru64.ID, bool) { return n.ID, n.Valid },
	mint: func(t *testing.T, r *rand.Rand) scru64.ID {
		spec, err := scru64.NewNodeSpecWithNodeID(uint32(r.IntN(256)), 8)
		if err != nil {
			t.Fatal(err)
		}
		// From the first tick a generator mints.
		ms := scru64.MinTimestamp<<8 + offsetMillis(r, (scru64.MaxTimestamp-scru64.MinTimestamp)<<8-1)
		id, err := scru64.NewGenerator(spec).GenerateOrAbortCore(ms, 0)
		if err != nil {
			t.Fatal(err)
		}
		return id
	},
	writers: []writer[scru64.ID]{
		{"Value", func(id scru64.ID) any { return id }},
		{"NullID", func(id scru64.ID) any { return scru64.NullID{ID: id, Valid: true} }},
		{"String", func(id scru64.ID) any { return id.String() }},
		{"AppendBinary", func(id scru64.ID) any { b, _ := id.AppendBinary(nil); return b }},
	},
}

var ulidflakeReadBack = readBackFormat[ulidflake.ID, ulidflake.NullID]{
	nullFields: func(n ulidflake.NullID) (ulidflake.ID, bool) { return n.ID, n.Valid },
	mint: func(t *testing.T, r *rand.Rand) ulidflake.ID {
		offset := offsetMillis(r, ulidflake.MaxTimestamp)
		if offset < 3*3600*1000 {
			// A generator whose epoch is that long ago (and a second,
			// so that its clock, which may lag time.Now by a little, is
			// not before its epoch), on the clock.
			epoch := time.Now().Add(-time.Duration(offset)*time.Millisecond - time.Second)
			g, err := ulidflake.NewGenerator(ulidflake.WithEpoch(epoch))
			if err != nil {
				t.Fatal(err)
			}
			id, err := g.GenerateOrWait()
			if err != nil {
				t.Fatal(err)
			}
			return id
		}
		id, err := ulidflake.NewAt(ulidflake.DefaultEpoch().Add(time.Duration(offset) * time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		return id
	},
	writers: []writer[ulidflake.ID]{
		{"Value", func(id ulidflake.ID) any { return id }},
		{"NullID", func(id ulidflake.ID) any { return ulidflake.NullID{ID: id, Valid: true} }},
		{"String", func(id ulidflake.ID) any { return id.String() }},
		{"AppendBinary", func(id ulidflake.ID) any { b, _ := id.AppendBinary(nil); return b }},
	},
}

// readBackIDs is how many IDs each format sends through each target.
const readBackIDs = 60

func readBack[T comparable, N any, PT interface {
	*T
	sql.Scanner
}, PN interface {
	*N
	sql.Scanner
}](t *testing.T, d database, r *rand.Rand, f readBackFormat[T, N]) {
	columns := map[string]string{"integer": d.bigint, "text": d.text, "binary": d.binary}
	if d.uuid != "" {
		columns["uuid"] = d.uuid
	}
	ids := make([]T, readBackIDs)
	for k := range ids {
		ids[k] = f.mint(t, r)
	}
	stored, read := 0, 0
	for kind, columnType := range columns {
		table := "read_back_" + kind
		d.exec(t, "DROP TABLE IF EXISTS "+table)
		d.exec(t, fmt.Sprintf("CREATE TABLE %s (k INTEGER, w TEXT, v %s)", table, columnType))
		t.Cleanup(func() { d.db.Exec("DROP TABLE IF EXISTS " + table) })
		// SQLite's inserts in one transaction, for speed; PostgreSQL's
		// one by one, as a refused one would end a transaction.
		var exec interface {
			Exec(query string, args ...any) (sql.Result, error)
		} = d.db
		var tx *sql.Tx
		if d.name == "sqlite" {
			var err error
			if tx, err = d.db.Begin(); err != nil {
				t.Fatal(err)
			}
			exec = tx
		}
		for k, id := range ids {
			for _, w := range f.writers {
				// A database may refuse a form for a column type: that
				// is no misreading.
				if _, err := exec.Exec(d.query("INSERT INTO "+table+" VALUES (?, ?, ?)"), k, w.name, w.value(id)); err == nil {
					stored++
				}
			}
		}
		if tx != nil {
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		rows, err := d.db.Query("SELECT k, w, v, v FROM " + table)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var k int
			var w string
			var raw any
			if err := rows.Scan(&k, &w, &raw, new(any)); err != nil {
				t.Fatal(err)
			}
			if w == "String" && kind == "integer" && coercedDigits(fmt.Sprint(ids[k]), raw) {
				// The database took the text of an ID that is all
				// digits for a decimal number: another ID, which no
				// Scan can tell. The formats' Value docs warn against
				// writing the text into an integer column.
				t.Logf("%v written by String into %s (%s) was stored as the decimal number %v, as the docs warn", ids[k], kind, columnType, raw)
				continue
			}
			var id T
			var null N
			errID, errNull := PT(&id).Scan(raw), PN(&null).Scan(raw)
			if errID == nil && id != ids[k] {
				t.Errorf("%v written by %s into %s (%s), held as %T %v, read back as %v", ids[k], w, kind, columnType, raw, raw, id)
			}
			if got, valid := f.nullFields(null); errNull == nil && (got != ids[k] || !valid) {
				t.Errorf("%v written by %s into %s (%s), held as %T %v, read back into the Null type as %v", ids[k], w, kind, columnType, raw, raw, null)
			}
			if errID == nil {
				read++
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	if stored == 0 || read == 0 {
		t.Fatalf("%d values stored, %d read back", stored, read)
	}
	t.Logf("%d IDs: %d values stored, %d read back", len(ids), stored, read)
}

// coercedDigits reports whether raw, read from an integer column, is an
// ID's text read as a decimal number: what a database stores when given
// the text of an ID that is all digits for an integer column.
func coercedDigits(text string, raw any) bool {
	n, ok := raw.(int64)
	if !ok {
		return false
	}
	if strings.Trim(text, "0123456789") != "" {
		return false
	}
	d, err := strconv.ParseInt(text, 10, 64)
	return err == nil && d == n
}
