package etcdnode_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/fastid/scru128/internal/idtest"
	"github.com/fastid/scru128/scru64"
	"github.com/fastid/scru128/scru64/etcdnode"
)

func TestBadOptionsAreErrors(t *testing.T) {
	srv := startServer(t)
	client := newClient(t, srv.endpoint)
	for _, tc := range []struct {
		name   string
		opts   []etcdnode.Option
		option string // the option the error names
	}{
		{"empty prefix", []etcdnode.Option{etcdnode.WithPrefix("")}, "WithPrefix"},
		{"size 0", []etcdnode.Option{etcdnode.WithNodeIDSize(0)}, "WithNodeIDSize"},
		{"size 24", []etcdnode.Option{etcdnode.WithNodeIDSize(24)}, "WithNodeIDSize"},
		{"TTL 0", []etcdnode.Option{etcdnode.WithTTL(0)}, "WithTTL"},
		{"TTL 500ms", []etcdnode.Option{etcdnode.WithTTL(500 * time.Millisecond)}, "WithTTL"},
		{"TTL 1.5s", []etcdnode.Option{etcdnode.WithTTL(1500 * time.Millisecond)}, "WithTTL"},
		{"negative TTL", []etcdnode.Option{etcdnode.WithTTL(-time.Second)}, "WithTTL"},
		{"TTL above etcd's", []etcdnode.Option{etcdnode.WithTTL(1 << 62)}, "WithTTL"},
		{"empty range", []etcdnode.Option{etcdnode.WithNodeIDRange(5, 4)}, "WithNodeIDRange"},
		{"range past size", []etcdnode.Option{etcdnode.WithNodeIDSize(4), etcdnode.WithNodeIDRange(8, 16)}, "WithNodeIDRange"},
		{"node ID past size", []etcdnode.Option{etcdnode.WithNodeID(256)}, "WithNodeIDRange"},
		{"nil option", []etcdnode.Option{etcdnode.WithTTL(2 * time.Second), nil}, "Acquire"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := etcdnode.Acquire(context.Background(), client, tc.opts...)
			var oe *etcdnode.OptionError
			if n != nil || !errors.Is(err, etcdnode.ErrInvalidOption) || !errors.As(err, &oe) || oe.Option != tc.option {
				t.Fatalf("Acquire = %v, %v; want an *OptionError for %s", n, err, tc.option)
			}
			if !strings.HasPrefix(err.Error(), "etcdnode: invalid option "+tc.option+": ") {
				t.Fatalf("error text %q", err)
			}
		})
	}
	// A rejected option takes nothing from etcd.
	resp, err := client.Get(context.Background(), etcdnode.DefaultPrefix, clientv3.WithPrefix())
	if err != nil || len(resp.Kvs) != 0 {
		t.Fatalf("keys after rejected options: %v %v", resp.Kvs, err)
	}
	if _, err := etcdnode.Acquire(context.Background(), nil); !errors.Is(err, etcdnode.ErrInvalidOption) {
		t.Fatalf("Acquire with a nil client: %v, want ErrInvalidOption", err)
	}
}

// TestZeroNodeDoesNotPanic: a Node not made by Acquire reports ErrClosed.
func TestZeroNodeDoesNotPanic(t *testing.T) {
	for _, n := range []*etcdnode.Node{nil, new(etcdnode.Node)} {
		if _, err := n.Generate(); !errors.Is(err, etcdnode.ErrClosed) {
			t.Fatalf("Generate: %v", err)
		}
		if _, err := n.GenerateOrSleep(); !errors.Is(err, etcdnode.ErrClosed) {
			t.Fatalf("GenerateOrSleep: %v", err)
		}
		if _, err := n.NewString(); !errors.Is(err, etcdnode.ErrClosed) {
			t.Fatalf("NewString: %v", err)
		}
		if err := n.Close(context.Background()); !errors.Is(err, etcdnode.ErrClosed) {
			t.Fatalf("Close: %v", err)
		}
		if !errors.Is(n.Err(), etcdnode.ErrClosed) || n.NodeID() != 0 || n.NodeIDSize() != 0 ||
			!n.NodeSpec().IsZero() || n.LeaseID() != 0 || n.ClockWait() != 0 {
			t.Fatal("accessors of a zero Node")
		}
		<-n.Done()
	}
}

func TestAcquireWithOptions(t *testing.T) {
	srv := startServer(t)
	client := newClient(t, srv.endpoint)
	ctx := context.Background()
	n, err := etcdnode.Acquire(ctx, client,
		etcdnode.WithPrefix("/ids/"), etcdnode.WithNodeIDSize(12), etcdnode.WithTTL(2*time.Second),
		etcdnode.WithNodeID(0xb00), etcdnode.WithClock(time.Now), etcdnode.WithCounterMode(scru64.NewDefaultCounterMode(2)))
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close(ctx)
	if n.NodeID() != 0xb00 || n.NodeIDSize() != 12 || n.NodeSpec().NodeID() != 0xb00 || n.Err() != nil {
		t.Fatalf("node %d/%d, spec %v, err %v", n.NodeID(), n.NodeIDSize(), n.NodeSpec(), n.Err())
	}
	holder, err := client.Get(ctx, "/ids/node/0002816")
	if err != nil || len(holder.Kvs) != 1 || holder.Kvs[0].Lease != int64(n.LeaseID()) {
		t.Fatalf("holder key: %v %v (lease %x)", holder.Kvs, err, n.LeaseID())
	}
	size, err := client.Get(ctx, "/ids/size")
	if err != nil || len(size.Kvs) != 1 || string(size.Kvs[0].Value) != "12" {
		t.Fatalf("realm size key: %v %v", size.Kvs, err)
	}
	s, err := n.NewString()
	if err != nil {
		t.Fatal(err)
	}
	id := scru64.MustParse(s)
	if id.NodeCtr()>>12 != 0xb00 || time.Since(id.Time()) > time.Second {
		t.Fatalf("ID %s: node_ctr %x, time %v", s, id.NodeCtr(), id.Time())
	}
	select {
	case <-n.Done():
		t.Fatal("Done closed while minting")
	default:
	}
	if err := n.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(n.Err(), etcdnode.ErrClosed) {
		t.Fatalf("Err after Close: %v", n.Err())
	}
	record, err := client.Get(ctx, "/ids/last/0002816")
	if err != nil || len(record.Kvs) != 1 || string(record.Kvs[0].Value) != s || record.Kvs[0].Lease != 0 {
		t.Fatalf("record after Close: %v %v, want %s without a lease", record.Kvs, err, s)
	}
	if holder, _ := client.Get(ctx, "/ids/node/0002816"); len(holder.Kvs) != 0 {
		t.Fatal("the holder key survived Close")
	}
	// The same node ID again, with the same client: it continues.
	again, err := etcdnode.Acquire(ctx, client, etcdnode.WithPrefix("/ids/"), etcdnode.WithNodeIDSize(12),
		etcdnode.WithNodeID(0xb00))
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close(ctx)
	if again.NodeSpec().NodePrev() != id {
		t.Fatalf("next holder's NodeSpec %v does not continue after %s", again.NodeSpec(), s)
	}
	if _, err := etcdnode.Acquire(ctx, client, etcdnode.WithPrefix("/ids/"), etcdnode.WithNodeIDSize(12),
		etcdnode.WithNodeID(0xb00)); !errors.Is(err, etcdnode.ErrNoFreeNodeID) {
		t.Fatalf("Acquire of a held node ID: %v, want ErrNoFreeNodeID", err)
	}
}

// TestGenerateDoesNotAllocate pins Generate's zero-allocation promise.
func TestGenerateDoesNotAllocate(t *testing.T) {
	idtest.SkipIfInstrumented(t)
	srv := startServer(t)
	n, err := etcdnode.Acquire(context.Background(), newClient(t, srv.endpoint), etcdnode.WithNodeIDSize(1))
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close(context.Background())
	runtime.GC()
	var failed error
	if allocs := testing.AllocsPerRun(10_000, func() {
		if _, err := n.Generate(); err != nil {
			failed = err
		}
	}); allocs != 0 || failed != nil {
		t.Fatalf("Generate: %v allocations per call, error %v", allocs, failed)
	}
}
