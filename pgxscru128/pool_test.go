package pgxscru128_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/fastid/scru128"
	"github.com/fastid/scru128/scru64"
	"github.com/jackc/pgx/v5"
)

// TestPool runs goroutines that insert and read IDs at once through a pool
// set up as documented, so that several connections, each registered in
// AfterConnect, are in use together; run it with -race.
func TestPool(t *testing.T) {
	ctx := context.Background()
	pool, err := newPool(ctx, postgresDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	table := createTable(t, connect(t, false), "pool", `worker int, id uuid, parent uuid, node int8, ids uuid[]`)

	const workers, rowsEach = 8, 50
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for worker := range workers {
		wg.Go(func() {
			var want []scru128.ID
			for range rowsEach {
				id := scru128.New()
				var parent scru128.NullID
				if len(want) > 0 {
					parent = scru128.NullID{ID: want[len(want)-1], Valid: true}
				}
				_, err := pool.Exec(ctx, `INSERT INTO `+table+` VALUES ($1, $2, $3, $4, $5)`,
					worker, id, parent, scru64.ID(worker), []scru128.ID{id})
				if err != nil {
					errs <- err
					return
				}
				want = append(want, id)
			}
			rows, _ := pool.Query(ctx, `SELECT id FROM `+table+` WHERE worker = $1 AND node = $2 ORDER BY id`, worker, scru64.ID(worker))
			got, err := pgx.CollectRows(rows, pgx.RowTo[scru128.ID])
			if err != nil || !slices.Equal(got, want) {
				errs <- fmt.Errorf("worker %d: %d IDs back, %v", worker, len(got), err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if stat := pool.Stat(); stat.TotalConns() < 2 {
		t.Errorf("the pool opened %d connections; the test needs several", stat.TotalConns())
	}
}
