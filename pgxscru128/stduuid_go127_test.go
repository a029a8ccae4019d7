//go:build go1.27

package pgxscru128_test

import (
	"context"
	"testing"
	"uuid"

	"github.com/jackc/pgx/v5"

	"github.com/fastid/scru128"
	"github.com/fastid/scru128/ulid"
)

// TestStandardUUIDBeside puts Go 1.27's uuid.UUID and this module's IDs in
// one table of uuid columns, in every query mode: pgx binds a uuid.UUID
// (16 bytes with no methods pgx uses) without help, and an ID once
// Register has run. Each reads the other's column: the values are the
// same 16 bytes.
func TestStandardUUIDBeside(t *testing.T) {
	ctx := context.Background()
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			conn := connectInMode(t, true, mode)
			table := createTable(t, conn, "std_uuid", "seq INTEGER NOT NULL, std UUID NOT NULL, id UUID NOT NULL, ul UUID, nstd UUID")
			type row struct {
				std uuid.UUID
				id  scru128.ID
				ul  ulid.ULID
			}
			var rows []row
			for seq := range 5 {
				r := row{uuid.NewV7(), scru128.New(), ulid.New()}
				rows = append(rows, r)
				exec(t, conn, "INSERT INTO "+table+" (seq, std, id, ul, nstd) VALUES ($1, $2, $3, $4, $5)",
					seq, r.std, r.id, r.ul, (*uuid.UUID)(nil))
			}
			for seq, want := range rows {
				var got row
				var stdAsID scru128.ID
				var idAsStd uuid.UUID
				var nullStd *uuid.UUID
				var nullID scru128.NullID
				err := conn.QueryRow(ctx, "SELECT std, id, ul, std, id, nstd, nstd FROM "+table+" WHERE seq = $1", seq).
					Scan(&got.std, &got.id, &got.ul, &stdAsID, &idAsStd, &nullStd, &nullID)
				if err != nil {
					t.Fatal(err)
				}
				if got != want || stdAsID != scru128.ID(want.std) || idAsStd != uuid.UUID(want.id) || nullStd != nil || nullID.Valid {
					t.Errorf("row %d: %v, %v, %v, %v, %v; want %v", seq, got, stdAsID, idAsStd, nullStd, nullID, want)
				}
			}
			// A query bound with either type finds the row the other wrote.
			var seq int
			if err := conn.QueryRow(ctx, "SELECT seq FROM "+table+" WHERE std = $1", scru128.ID(rows[3].std)).Scan(&seq); err != nil || seq != 3 {
				t.Errorf("WHERE std = an ID: %d, %v", seq, err)
			}
			if err := conn.QueryRow(ctx, "SELECT seq FROM "+table+" WHERE id = $1", uuid.UUID(rows[2].id)).Scan(&seq); err != nil || seq != 2 {
				t.Errorf("WHERE id = a uuid.UUID: %d, %v", seq, err)
			}
		})
	}
}

// TestStandardUUIDWithoutRegister is the difference Register makes: pgx
// binds a uuid.UUID to a uuid parameter by itself, while an unregistered
// ID binds the 25-character text its Value returns, which PostgreSQL
// refuses as a uuid. Scanning works for both: an ID reads the column's
// text through its Scan method.
func TestStandardUUIDWithoutRegister(t *testing.T) {
	ctx := context.Background()
	conn := connect(t, false)
	u := uuid.NewV7()
	var back uuid.UUID
	if err := conn.QueryRow(ctx, "SELECT $1::uuid", u).Scan(&back); err != nil || back != u {
		t.Errorf("uuid.UUID without Register: %v, %v", back, err)
	}
	id := scru128.New()
	if err := conn.QueryRow(ctx, "SELECT $1::uuid", id).Scan(&back); err == nil {
		t.Errorf("an unregistered ID bound as a uuid: %v", back)
	}
	var scanned scru128.ID
	if err := conn.QueryRow(ctx, "SELECT $1::uuid", uuid.UUID(id)).Scan(&scanned); err != nil || scanned != id {
		t.Errorf("a uuid column into an unregistered ID: %v, %v", scanned, err)
	}
	var text string
	if err := conn.QueryRow(ctx, "SELECT $1::uuid::text", pgx.QueryExecModeSimpleProtocol, u).Scan(&text); err != nil || text != u.String() {
		t.Errorf("uuid.UUID in the simple protocol: %q, %v", text, err)
	}
}
