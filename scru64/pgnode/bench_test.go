package pgnode_test

import (
	"context"
	"testing"

	"github.com/fastid/scru128/internal/nodelease"
	"github.com/fastid/scru128/scru64"
	"github.com/fastid/scru128/scru64/pgnode"
)

// BenchmarkGenerate compares, in one run, the cost of minting from:
//
//   - pgnode: a Node leased from PostgreSQL, through this package's API;
//   - nodelease: the protocol's Node that both this package and etcdnode
//     wrap, here leased from PostgreSQL too. etcdnode.Node.Generate is a
//     nil check that inlines over exactly this call (its inlining test
//     pins that, as this package's does), and Generate never calls the
//     store, so this is what etcdnode's minting costs, measured without
//     making this module require etcd's server;
//   - generator: a plain scru64.Generator, the floor.
//
// The bench module's BenchmarkFleetNodeGenerate measures the two real
// nodes, etcdnode's leased from etcd and this package's, in one binary.
//
// All three use node ID size 1 (2^23 IDs per tick; with fewer, a loop this
// tight runs past the rollback allowance within a second). The nodes should
// cost one atomic load on top of the Generator, and the two nodes the same.
func BenchmarkGenerate(b *testing.B) {
	r := newRealm(b, sharedServer(b))
	ctx := context.Background()
	b.Run("pgnode", func(b *testing.B) {
		n, err := pgnode.Acquire(ctx, r.db, pgnode.WithSchema(r.schema), pgnode.WithRealm("bench-pgnode"), pgnode.WithNodeIDSize(1))
		if err != nil {
			b.Fatal(err)
		}
		defer n.Close(ctx)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := n.Generate(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("nodelease", func(b *testing.B) {
		cfg := nodelease.DefaultConfig()
		cfg.Prefix, cfg.NodeIDSize = "bench-nodelease/", 1
		n, err := nodelease.Acquire(ctx, pgnode.StoreOf(r.db, r.schema), cfg)
		if err != nil {
			b.Fatal(err)
		}
		defer n.Close(ctx)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := n.Generate(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("generator", func(b *testing.B) {
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
	})
}
