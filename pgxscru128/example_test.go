package pgxscru128_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/fastid/scru128"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// On its own, as docs/databases.md shows it.
import "github.com/fastid/scru128/pgxscru128"

// newPool is the setup docs/databases.md shows: Register in AfterConnect,
// so that every connection the pool opens knows the ID types. Options
// apply to the configuration before the pool opens.
func newPool(ctx context.Context, dsn string, options ...func(*pgxpool.Config)) (*pgxpool.Pool, error) {
	config, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	config.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		pgxscru128.Register(conn.TypeMap())
		return nil
	}
	for _, option := range options {
		option(config)
	}
	return pgxpool.NewWithConfig(ctx, config)
}

// TestGuide runs the pgx samples of docs/databases.md, in a schema of its
// own so that their table can have the plain name they show.
func TestGuide(t *testing.T) {
	ctx := context.Background()
	conn := connect(t, false)
	exec(t, conn, `DROP SCHEMA IF EXISTS pgxscru128_guide CASCADE`)
	exec(t, conn, `CREATE SCHEMA pgxscru128_guide`)
	t.Cleanup(func() { conn.Exec(context.Background(), `DROP SCHEMA pgxscru128_guide CASCADE`) })
	pool, err := newPool(ctx, postgresDSN(t), func(config *pgxpool.Config) {
		config.ConnConfig.RuntimeParams["search_path"] = "pgxscru128_guide"
	})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	exec(t, conn, `CREATE TABLE pgxscru128_guide.events (id uuid PRIMARY KEY, parent uuid)`)

	pool.Exec(ctx, `INSERT INTO events (id, parent) VALUES ($1, $2)`, scru128.New(), scru128.NullID{})

	day := time.Now().UTC().Truncate(24 * time.Hour)
	var want []scru128.ID
	for range 3 {
		id := scru128.New()
		want = append(want, id)
		if _, err := pool.Exec(ctx, `INSERT INTO events (id, parent) VALUES ($1, $2)`, id, scru128.NullID{ID: want[0], Valid: true}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := pool.Exec(ctx, `INSERT INTO events (id) VALUES ($1)`, scru128.MustParse("0000000000000000000000000")); err != nil {
		t.Fatal(err)
	}

	if want[len(want)-1].Time().Truncate(24*time.Hour) != day {
		t.Skip("the test ran across midnight UTC")
	}
	lo, _ := scru128.MinAtTime(day)
	hi, _ := scru128.MaxAtTime(day.Add(24*time.Hour - time.Millisecond))
	rows, _ := pool.Query(ctx, `SELECT id FROM events WHERE id BETWEEN $1 AND $2 ORDER BY id`, lo, hi)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[scru128.ID])
	if err != nil || len(ids) != 4 || !slices.Equal(ids[1:], want) {
		t.Errorf("the day's IDs: %v, %v; want the first one inserted and %v", ids, err, want)
	}

	var parent scru128.NullID
	err = pool.QueryRow(ctx, `SELECT parent FROM events WHERE id = $1`, ids[0]).Scan(&parent)
	if err != nil || parent.Valid {
		t.Errorf("the first event's parent: %v, %v; want NULL", parent, err)
	}
	var missing scru128.ID
	err = pool.QueryRow(ctx, `SELECT parent FROM events WHERE id = $1`, ids[0]).Scan(&missing)
	if !errors.Is(err, scru128.ErrScanNull) {
		t.Errorf("NULL into an ID: %v", err)
	}
}
