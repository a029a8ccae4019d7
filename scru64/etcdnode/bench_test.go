package etcdnode_test

import (
	"context"
	"testing"

	"github.com/fastid/scru128/scru64"
	"github.com/fastid/scru128/scru64/etcdnode"
)

// BenchmarkNodeGenerate and BenchmarkGeneratorGenerate are a pair: a leased
// Node against a plain scru64.Generator, both with node ID size 1 (2^23 IDs
// per tick; with fewer, a loop this tight runs past the rollback allowance
// within a second). The Node's lease check should cost one atomic load on
// top of the Generator: within 1.1x. Both run beside the same in-process
// etcd server, so that its background work weighs on both alike.
func BenchmarkNodeGenerate(b *testing.B) {
	srv := startServer(b)
	n, err := etcdnode.Acquire(context.Background(), newClient(b, srv.endpoint), etcdnode.WithNodeIDSize(1))
	if err != nil {
		b.Fatal(err)
	}
	defer n.Close(context.Background())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := n.Generate(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGeneratorGenerate(b *testing.B) {
	startServer(b)
	spec, err := scru64.NewNodeSpecWithNodeID(0, 1)
	if err != nil {
		b.Fatal(err)
	}
	g := scru64.NewGenerator(spec)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Generate(); err != nil {
			b.Fatal(err)
		}
	}
}
