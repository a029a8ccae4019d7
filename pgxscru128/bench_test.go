package pgxscru128_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/fastid/scru128"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// benchRows is how many rows each operation of BenchmarkRows inserts or
// selects; the figures it reports are per row.
const benchRows = 100

// binding is one way to hand IDs to pgx and take them back: as they are,
// with Register; as scru128.Binary, without it; as pgtype.UUID, pgx's own
// type, without it.
type binding struct {
	name     string
	register bool
	bind     func(scru128.ID) any
	// scan scans a row's one uuid column and returns the ID.
	scan func(pgx.Rows) (scru128.ID, error)
}

var bindings = []binding{
	{"registered", true,
		func(id scru128.ID) any { return id },
		func(rows pgx.Rows) (id scru128.ID, err error) { err = rows.Scan(&id); return id, err }},
	{"Binary", false,
		func(id scru128.ID) any { return scru128.Binary(id) },
		func(rows pgx.Rows) (scru128.ID, error) {
			var b scru128.Binary
			err := rows.Scan(&b)
			return scru128.ID(b), err
		}},
	{"pgtype.UUID", false,
		func(id scru128.ID) any { return pgtype.UUID{Bytes: id, Valid: true} },
		func(rows pgx.Rows) (scru128.ID, error) {
			var u pgtype.UUID
			err := rows.Scan(&u)
			return u.Bytes, err
		}},
}

// BenchmarkRows measures the cost per row of inserting rows of one uuid
// (in a pgx.Batch of single-row INSERTs, and with pgx.CopyFrom) and of
// selecting them, for each binding, on a real server in pgx's default
// mode, which uses the binary format for uuid. The figures include the
// server's work and the round trips, which are the same for every
// binding; the differences between bindings are pgx's and this package's.
func BenchmarkRows(b *testing.B) {
	ctx := context.Background()
	ids := make([]scru128.ID, benchRows)
	uuids := make([][16]byte, benchRows) // for the table to select from, whatever the binding
	for i := range ids {
		ids[i] = scru128.New()
		uuids[i] = ids[i]
	}
	for _, bind := range bindings {
		conn := connect(b, bind.register)
		table := createTable(b, conn, "bench", "id uuid")
		b.Run("insert/"+bind.name, func(b *testing.B) {
			exec(b, conn, `TRUNCATE `+table)
			measurePerRow(b, func() {
				batch := &pgx.Batch{}
				for _, id := range ids {
					batch.Queue(`INSERT INTO `+table+` VALUES ($1)`, bind.bind(id))
				}
				if err := conn.SendBatch(ctx, batch).Close(); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run("copy/"+bind.name, func(b *testing.B) {
			exec(b, conn, `TRUNCATE `+table)
			rows := make([][]any, len(ids))
			measurePerRow(b, func() {
				for i, id := range ids {
					rows[i] = []any{bind.bind(id)}
				}
				if _, err := conn.CopyFrom(ctx, pgx.Identifier{table}, []string{"id"}, pgx.CopyFromRows(rows)); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run("select/"+bind.name, func(b *testing.B) {
			exec(b, conn, `TRUNCATE `+table)
			exec(b, conn, `INSERT INTO `+table+` SELECT unnest($1::uuid[])`, uuids)
			measurePerRow(b, func() {
				rows, err := conn.Query(ctx, `SELECT id FROM `+table)
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for rows.Next() {
					if _, err := bind.scan(rows); err != nil {
						b.Fatal(err)
					}
					n++
				}
				if rows.Close(); rows.Err() != nil || n != benchRows {
					b.Fatalf("%d rows, %v", n, rows.Err())
				}
			})
		})
	}
}

// measurePerRow runs op, which handles benchRows rows, in a benchmark
// loop, and reports its time and allocations per row.
func measurePerRow(b *testing.B, op func()) {
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		op()
	}
	runtime.ReadMemStats(&after)
	rows := float64(b.N) * benchRows
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/rows, "ns/row")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/rows, "allocs/row")
}
