package pgnode_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fastid/scru128/scru64/pgnode"
)

// Leasing a node ID for the life of a process. It needs a PostgreSQL
// server at localhost, so it is compiled but not run; the tests run the
// same calls against servers of their own.
func Example() {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, "postgres://fleet@localhost/app")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	// Once, by a role that may create the schema (or a DBA runs
	// schema.sql); again at every start is harmless.
	if err := pgnode.Setup(ctx, db); err != nil {
		log.Fatal(err)
	}
	node, err := pgnode.Acquire(ctx, db,
		pgnode.WithRealm("orders"),     // one realm per ID space
		pgnode.WithNodeIDSize(10),      // 1,024 nodes, 16,384 IDs per 256 ms each
		pgnode.WithTTL(10*time.Second)) // a crashed node's ID is free again after ~10 s
	if err != nil {
		log.Fatal(err) // pgnode.ErrNoFreeNodeID when all 1,024 are held
	}
	// Close stores the last ID and frees the node ID at once.
	defer node.Close(context.WithoutCancel(ctx))

	id, err := node.Generate()
	if errors.Is(err, pgnode.ErrLeaseLost) {
		// PostgreSQL unreachable for about 0.9 TTL: minting stopped
		// before the lease could expire. Stop taking work; node.Done()
		// is closed.
		log.Fatal(err)
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(id, node.NodeSpec())
}

// The least a process does, in three lines, errors left out (Example
// handles them): a pool, a node, an ID.
func Example_inThreeLines() {
	ctx := context.Background()
	db, _ := pgxpool.New(ctx, "postgres://fleet@localhost/app")
	node, _ := pgnode.Acquire(ctx, db, pgnode.WithRealm("orders")) // after pgnode.Setup, once
	id, _ := node.Generate()
	fmt.Println(id)
}
