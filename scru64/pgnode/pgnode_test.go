package pgnode_test

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fastid/scru128/internal/idtest"
	"github.com/fastid/scru128/scru64"
	"github.com/fastid/scru128/scru64/pgnode"
)

func TestBadOptionsAreErrors(t *testing.T) {
	t.Parallel()
	r := newRealm(t, sharedServer(t))
	for _, tc := range []struct {
		name   string
		opts   []pgnode.Option
		option string // the option the error names
	}{
		{"empty realm", []pgnode.Option{pgnode.WithRealm("")}, "WithRealm"},
		{"long realm", []pgnode.Option{pgnode.WithRealm(strings.Repeat("r", pgnode.MaxRealmLength+1))}, "WithRealm"},
		{"realm not UTF-8", []pgnode.Option{pgnode.WithRealm("a\xffb")}, "WithRealm"},
		{"realm with NUL", []pgnode.Option{pgnode.WithRealm("a\x00b")}, "WithRealm"},
		{"realm with newline", []pgnode.Option{pgnode.WithRealm("a\nb")}, "WithRealm"},
		{"realm with a node ID's key in it", []pgnode.Option{pgnode.WithRealm("a/node/0000000")}, "WithRealm"},
		{"realm with a node ID's digit after /node/", []pgnode.Option{pgnode.WithRealm("orders/node/1")}, "WithRealm"},
		{"empty schema", []pgnode.Option{pgnode.WithSchema("")}, "WithSchema"},
		{"long schema", []pgnode.Option{pgnode.WithSchema(strings.Repeat("s", 64))}, "WithSchema"},
		{"schema with NUL", []pgnode.Option{pgnode.WithSchema("s\x00")}, "WithSchema"},
		{"schema not UTF-8", []pgnode.Option{pgnode.WithSchema("s\xc0")}, "WithSchema"},
		{"size 0", []pgnode.Option{pgnode.WithNodeIDSize(0)}, "WithNodeIDSize"},
		{"size 24", []pgnode.Option{pgnode.WithNodeIDSize(24)}, "WithNodeIDSize"},
		{"TTL 0", []pgnode.Option{pgnode.WithTTL(0)}, "WithTTL"},
		{"TTL 500ms", []pgnode.Option{pgnode.WithTTL(500 * time.Millisecond)}, "WithTTL"},
		{"TTL 1.5s", []pgnode.Option{pgnode.WithTTL(1500 * time.Millisecond)}, "WithTTL"},
		{"negative TTL", []pgnode.Option{pgnode.WithTTL(-time.Second)}, "WithTTL"},
		{"TTL above the longest", []pgnode.Option{pgnode.WithTTL(pgnode.MaxTTL + time.Second)}, "WithTTL"},
		{"empty range", []pgnode.Option{pgnode.WithNodeIDRange(5, 4)}, "WithNodeIDRange"},
		{"range past size", []pgnode.Option{pgnode.WithNodeIDSize(4), pgnode.WithNodeIDRange(8, 16)}, "WithNodeIDRange"},
		{"node ID past size", []pgnode.Option{pgnode.WithNodeID(256)}, "WithNodeIDRange"},
		{"nil option", []pgnode.Option{pgnode.WithTTL(2 * time.Second), nil}, "Acquire"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := pgnode.Acquire(context.Background(), r.db, append([]pgnode.Option{pgnode.WithSchema(r.schema)}, tc.opts...)...)
			var oe *pgnode.OptionError
			if n != nil || !errors.Is(err, pgnode.ErrInvalidOption) || !errors.As(err, &oe) || oe.Option != tc.option {
				t.Fatalf("Acquire = %v, %v; want an *OptionError for %s", n, err, tc.option)
			}
			if !strings.HasPrefix(err.Error(), "pgnode: invalid option "+tc.option+": ") || strings.Contains(err.Error(), "etcd") {
				t.Fatalf("error text %q", err)
			}
		})
	}
	// A rejected option takes nothing from the database.
	var rows int
	if err := r.db.QueryRow(context.Background(), "SELECT (SELECT count(*) FROM "+r.schema+".keys) + (SELECT count(*) FROM "+r.schema+".leases)").Scan(&rows); err != nil || rows != 0 {
		t.Fatalf("rows after rejected options: %d, %v", rows, err)
	}
	for _, err := range []error{
		func() error { _, err := pgnode.Acquire(context.Background(), nil); return err }(),
		pgnode.Setup(context.Background(), nil),
		pgnode.Setup(context.Background(), r.db, pgnode.WithSchema("")),
	} {
		if !errors.Is(err, pgnode.ErrInvalidOption) || !strings.HasPrefix(err.Error(), "pgnode: ") {
			t.Errorf("%v, want ErrInvalidOption", err)
		}
	}
}

// TestZeroNodeDoesNotPanic: a Node not made by Acquire reports ErrClosed.
func TestZeroNodeDoesNotPanic(t *testing.T) {
	for _, n := range []*pgnode.Node{nil, new(pgnode.Node)} {
		if _, err := n.Generate(); !errors.Is(err, pgnode.ErrClosed) {
			t.Fatalf("Generate: %v", err)
		}
		if _, err := n.GenerateOrSleep(); !errors.Is(err, pgnode.ErrClosed) {
			t.Fatalf("GenerateOrSleep: %v", err)
		}
		if _, err := n.NewString(); !errors.Is(err, pgnode.ErrClosed) {
			t.Fatalf("NewString: %v", err)
		}
		if err := n.Close(context.Background()); !errors.Is(err, pgnode.ErrClosed) {
			t.Fatalf("Close: %v", err)
		}
		if !errors.Is(n.Err(), pgnode.ErrClosed) || n.NodeID() != 0 || n.NodeIDSize() != 0 ||
			!n.NodeSpec().IsZero() || n.LeaseID() != 0 || n.ClockWait() != 0 || n.Stalled() != nil {
			t.Fatal("accessors of a zero Node")
		}
		<-n.Done()
	}
}

// TestAcquireWithOptions: every option does what it says, and the rows
// are where the package doc and schema.sql say.
func TestAcquireWithOptions(t *testing.T) {
	t.Parallel()
	r := newRealm(t, sharedServer(t))
	ctx := context.Background()
	n, err := pgnode.Acquire(ctx, r.db, pgnode.WithSchema(r.schema),
		pgnode.WithRealm("ids"), pgnode.WithNodeIDSize(12), pgnode.WithTTL(3*time.Second),
		pgnode.WithNodeID(0xb00), pgnode.WithClock(time.Now), pgnode.WithCounterMode(scru64.NewDefaultCounterMode(2)))
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close(ctx)
	if n.NodeID() != 0xb00 || n.NodeIDSize() != 12 || n.NodeSpec().NodeID() != 0xb00 || n.Err() != nil {
		t.Fatalf("node %d/%d, spec %v, err %v", n.NodeID(), n.NodeIDSize(), n.NodeSpec(), n.Err())
	}
	s := pgx.Identifier{r.schema}.Sanitize()
	var lease, ttl int64
	var left float64
	if err := r.db.QueryRow(ctx, "SELECT k.lease, l.ttl, extract(epoch FROM l.expires_at - clock_timestamp())::float8 FROM "+s+".keys k JOIN "+s+
		".leases l ON l.id = k.lease WHERE k.key = 'ids/node/0002816'").Scan(&lease, &ttl, &left); err != nil ||
		lease != n.LeaseID() || ttl != 3 || left <= 0 || left > 3 {
		t.Fatalf("holder row: lease %x, TTL %d, %v s left, %v (node's lease %x)", lease, ttl, left, err, n.LeaseID())
	}
	var size string
	if err := r.db.QueryRow(ctx, "SELECT value FROM "+s+".keys WHERE key = 'ids/size' AND lease IS NULL").Scan(&size); err != nil || size != "12" {
		t.Fatalf("realm size row: %q, %v", size, err)
	}
	str, err := n.NewString()
	if err != nil {
		t.Fatal(err)
	}
	id := scru64.MustParse(str)
	if id.NodeCtr()>>12 != 0xb00 || time.Since(id.Time()) > time.Second {
		t.Fatalf("ID %s: node_ctr %x, time %v", str, id.NodeCtr(), id.Time())
	}
	select {
	case <-n.Done():
		t.Fatal("Done closed while minting")
	default:
	}
	if err := n.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(n.Err(), pgnode.ErrClosed) {
		t.Fatalf("Err after Close: %v", n.Err())
	}
	if record, ok := r.recordOf(t, "ids", 0xb00); !ok || record != id {
		t.Fatalf("record after Close: %v (present %v), want %s", record, ok, str)
	}
	var holders int
	if err := r.db.QueryRow(ctx, "SELECT count(*) FROM "+s+".keys WHERE key = 'ids/node/0002816'").Scan(&holders); err != nil || holders != 0 {
		t.Fatalf("the holder row survived Close: %d, %v", holders, err)
	}
	// The same node ID again: it continues.
	again := r.acquire(t, pgnode.WithRealm("ids"), pgnode.WithNodeIDSize(12), pgnode.WithNodeID(0xb00))
	if again.NodeSpec().NodePrev() != id {
		t.Fatalf("next holder's NodeSpec %v does not continue after %s", again.NodeSpec(), str)
	}
	if _, err := r.tryAcquire(pgnode.WithRealm("ids"), pgnode.WithNodeIDSize(12), pgnode.WithNodeID(0xb00)); !errors.Is(err, pgnode.ErrNoFreeNodeID) {
		t.Fatalf("Acquire of a held node ID: %v, want ErrNoFreeNodeID", err)
	}
}

// TestGenerateDoesNotAllocate pins Generate's zero-allocation promise.
func TestGenerateDoesNotAllocate(t *testing.T) {
	idtest.SkipIfInstrumented(t)
	r := newRealm(t, sharedServer(t))
	n := r.acquire(t, pgnode.WithNodeIDSize(1))
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

// TestGenerateMakesNoDatabaseCall: minting goes on while the database is
// unreachable, until the bound written ahead or the deadline runs out:
// 10,000 IDs minted through a cut connection, at once.
func TestGenerateMakesNoDatabaseCall(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	r := newRealm(t, dsn)
	px, _ := startProxy(t, hostOf(t, dsn))
	n := r.via(t, px, "cut").acquire(t, pgnode.WithNodeIDSize(1))
	px.cut.Store(true)
	start := time.Now()
	mint(t, n, 10_000)
	if d := time.Since(start); d > time.Second {
		t.Fatalf("10,000 IDs through a cut connection took %v", d)
	}
}

// TestAcquireTakesSixStatements: Acquire, when no other node races for
// the node ID, makes six calls of the schema's functions, as its doc says.
func TestAcquireTakesSixStatements(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	r := newRealm(t, dsn)
	px, _ := startProxy(t, hostOf(t, dsn))
	var mu sync.Mutex
	var called []string
	schema := []byte(pgx.Identifier{r.schema}.Sanitize() + ".")
	px.addRule(&rule{match: func(req []byte) bool {
		if _, after, ok := bytes.Cut(req, schema); ok {
			name, _, _ := bytes.Cut(after, []byte("("))
			mu.Lock()
			called = append(called, string(name))
			mu.Unlock()
		}
		return false
	}})
	n := r.via(t, px, "counted").acquire(t)
	mu.Lock()
	got := slices.Clone(called)
	mu.Unlock()
	want := []string{"put_if_absent", "grant_lease", "list_keys", "acquire", "keep_alive", "write_record"}
	if !slices.Equal(got, want) {
		t.Errorf("Acquire called %q, want %q", got, want)
	}
	closeSoon(n)
}
