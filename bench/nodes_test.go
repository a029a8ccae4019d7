package bench

import (
	"context"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"github.com/fastid/scru128/internal/idtest"
	"github.com/fastid/scru128/scru64"
	"github.com/fastid/scru128/scru64/etcdnode"
	"github.com/fastid/scru128/scru64/pgnode"
)

// The fleet's two nodes side by side: etcdnode.Node, leased from etcd, and
// pgnode.Node, leased from PostgreSQL, minting in one binary (which is why
// this module, and neither node's own, requires both stores' clients and
// etcd's server). Both mint without calling their store and without
// allocating; what they add to a scru64.Generator is one atomic load.
//
// etcd runs in this process (go.etcd.io/etcd/server/v3/embed) on loopback
// ports; PostgreSQL is the server SCRU128_TEST_POSTGRES_DSN names, where
// the nodes lease in a schema of their own, dropped at the end. Without
// that variable, the pgnode half is skipped, and says so.

// dsnEnv names the PostgreSQL server of the pgnode half.
const dsnEnv = "SCRU128_TEST_POSTGRES_DSN"

// fleetNodeIDSize is the node ID size of the nodes measured: 1, for 2^23
// IDs per tick (with fewer, a loop this tight runs past the rollback
// allowance within a second), as the Generator measured beside them.
const fleetNodeIDSize = 1

// etcdNode starts an etcd server in this process, on loopback ports with
// its data in a temporary directory, and returns a node leased from it;
// both end with tb.
func etcdNode(tb testing.TB) *etcdnode.Node {
	tb.Helper()
	cfg := embed.NewConfig()
	cfg.Name = "bench"
	cfg.Dir = tb.TempDir()
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	cfg.TickMs, cfg.ElectionMs = 10, 100
	cfg.UnsafeNoFsync = true
	var server *embed.Etcd
	var endpoint string
	for attempt := 0; server == nil; attempt++ {
		client := url.URL{Scheme: "http", Host: "127.0.0.1:" + freePort(tb)}
		peer := url.URL{Scheme: "http", Host: "127.0.0.1:" + freePort(tb)}
		cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
		cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
		cfg.InitialCluster = cfg.Name + "=" + peer.String()
		e, err := embed.StartEtcd(cfg)
		if err != nil {
			if attempt == 4 {
				tb.Fatalf("starting etcd: %v", err)
			}
			continue // a port taken since freePort looked
		}
		select {
		case <-e.Server.ReadyNotify():
		case <-time.After(20 * time.Second):
			e.Close()
			tb.Fatal("etcd did not become ready in 20 s")
		}
		server, endpoint = e, client.String()
	}
	tb.Cleanup(server.Close)
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { client.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := etcdnode.Acquire(ctx, client, etcdnode.WithNodeIDSize(fleetNodeIDSize))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { n.Close(context.Background()) })
	return n
}

// freePort returns a loopback port that was free a moment ago.
func freePort(tb testing.TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

// noPostgres is why the pgnode half is skipped without a server.
const noPostgres = "the pgnode half is skipped: " + dsnEnv + " is not set (a PostgreSQL server to lease from, as the pgnode module's tests use)"

// pgNode returns a node leased from the PostgreSQL server that
// SCRU128_TEST_POSTGRES_DSN names, in a schema of its own that is dropped
// when tb ends, or nil if the variable is not set.
func pgNode(tb testing.TB) *pgnode.Node {
	tb.Helper()
	dsn := os.Getenv(dsnEnv)
	if dsn == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := pgxpool.New(ctx, dsn)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(db.Close)
	schema := "bench_" + strconv.FormatUint(rand.Uint64()%1e12, 36)
	if err := pgnode.Setup(ctx, db, pgnode.WithSchema(schema)); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := db.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			tb.Errorf("dropping schema %s: %v", schema, err)
		}
	})
	n, err := pgnode.Acquire(ctx, db, pgnode.WithSchema(schema), pgnode.WithNodeIDSize(fleetNodeIDSize))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { n.Close(context.Background()) })
	return n
}

// BenchmarkFleetNodeGenerate measures, in one run, Generate of the two
// fleet nodes and of the scru64.Generator they wrap, all with node ID size
// 1: the nodes should cost the Generator plus one atomic load, and each
// other the same. etcd runs in this process throughout, so that its
// background work weighs on all three alike, and both nodes are leased
// before any is measured.
func BenchmarkFleetNodeGenerate(b *testing.B) {
	etcd, pg := etcdNode(b), pgNode(b)
	b.Run("etcdnode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := etcd.Generate(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pgnode", func(b *testing.B) {
		if pg == nil {
			b.Skip(noPostgres)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := pg.Generate(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("generator", func(b *testing.B) {
		spec, err := scru64.NewNodeSpecWithNodeID(0, fleetNodeIDSize)
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

// TestFleetNodesDoNotAllocate pins both nodes' promise of minting without
// an allocation, in the binary that measures them.
func TestFleetNodesDoNotAllocate(t *testing.T) {
	idtest.SkipIfInstrumented(t)
	for _, tc := range []struct {
		name string
		node func(testing.TB) interface{ Generate() (scru64.ID, error) }
	}{
		{"etcdnode", func(tb testing.TB) interface{ Generate() (scru64.ID, error) } { return etcdNode(tb) }},
		{"pgnode", func(tb testing.TB) interface{ Generate() (scru64.ID, error) } {
			if n := pgNode(tb); n != nil {
				return n
			}
			tb.Skip(noPostgres)
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := tc.node(t)
			var failed error
			allocs := testing.AllocsPerRun(10_000, func() {
				if _, err := n.Generate(); err != nil {
					failed = err
				}
			})
			if allocs != 0 || failed != nil {
				t.Fatalf("Generate: %v allocations per call, error %v", allocs, failed)
			}
		})
	}
}
