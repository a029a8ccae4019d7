package etcdnode_test

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/fastid/scru128/scru64/etcdnode"
)

// The least a process does, in three lines, errors left out (Example
// handles them): a client, a node, an ID. docs/fleet.md sets it beside
// the same for PostgreSQL.
func Example_inThreeLines() {
	ctx := context.Background()
	client, _ := clientv3.New(clientv3.Config{Endpoints: []string{"localhost:2379"}})
	node, _ := etcdnode.Acquire(ctx, client, etcdnode.WithPrefix("/orders/"))
	id, _ := node.Generate()
	fmt.Println(id)
}
