package etcdnode_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strconv"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/fastid/scru128/scru64"
	"github.com/fastid/scru128/scru64/etcdnode"
)

// Leasing a node ID for the life of a process. It needs an etcd server at
// localhost:2379, so it is compiled but not run; the tests run the same
// calls against an in-process server.
func Example() {
	client, err := clientv3.New(clientv3.Config{
		Endpoints:   []string{"localhost:2379"},
		DialTimeout: 5 * time.Second,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	ctx := context.Background()
	node, err := etcdnode.Acquire(ctx, client,
		etcdnode.WithPrefix("/myapp/scru64/"), // one realm per prefix
		etcdnode.WithNodeIDSize(10),           // 1,024 nodes, 16,384 IDs per 256 ms each
		etcdnode.WithTTL(10*time.Second))      // a crashed node's ID is free again after ~10 s
	if err != nil {
		log.Fatal(err) // etcdnode.ErrNoFreeNodeID when all 1,024 are held
	}
	// Close stores the last ID and frees the node ID at once.
	defer node.Close(context.WithoutCancel(ctx))

	id, err := node.Generate()
	if errors.Is(err, etcdnode.ErrLeaseLost) {
		// etcd unreachable for about 0.9 TTL: minting stopped before the
		// lease could expire. Stop taking work; node.Done() is closed.
		log.Fatal(err)
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(id, node.NodeSpec())
}

// The plain alternative in Kubernetes: a StatefulSet gives its pods stable
// names ending in an ordinal (web-0, web-1, ...), which maps to a node ID
// without any coordination service. Two pods never share an ordinal at
// once; set the size so that replicas never exceed 2^size.
func Example_statefulSetOrdinal() {
	hostname := "web-42" // os.Hostname() in the pod
	ordinal, err := strconv.ParseUint(hostname[strings.LastIndexByte(hostname, '-')+1:], 10, 32)
	if err != nil {
		log.Fatal(err)
	}
	spec, err := scru64.NewNodeSpecWithNodeID(uint32(ordinal), 8)
	if err != nil {
		log.Fatal(err) // the ordinal does not fit 8 bits
	}
	fmt.Println(spec) // pass to scru64.GlobalGenerator.Initialize, or SCRU64_NODE_SPEC
	// Output: 42/8
}
