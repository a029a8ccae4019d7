package pgnode_test

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fastid/scru128/internal/nodelease"
	"github.com/fastid/scru128/scru64/pgnode"
)

// The Store's transactions, run directly against PostgreSQL: each must do
// what the nodelease.Store interface documents of etcd's.

// TestStoreWriteRecordIsFenced: the fenced write applies only with the
// holder key on the lease, the record at the expected mod revision and the
// realm key at its create revision, and when it does not, it reports what
// it found.
func TestStoreWriteRecordIsFenced(t *testing.T) {
	t.Parallel()
	r := newRealm(t, sharedServer(t))
	store := pgnode.StoreOf(r.db, r.schema)
	ctx := context.Background()
	if v, _, err := store.PutIfAbsent(ctx, "f/size", "8"); err != nil || v != "8" {
		t.Fatalf("PutIfAbsent = %q, %v", v, err)
	}
	if v, _, err := store.PutIfAbsent(ctx, "f/size", "4"); err != nil || v != "8" {
		t.Fatalf("PutIfAbsent of an existing key = %q, %v; want its value, 8", v, err)
	}
	lease, granted, err := store.Grant(ctx, 10)
	if err != nil || lease <= 0 || granted != 10 {
		t.Fatalf("Grant = %x, %d, %v", lease, granted, err)
	}
	req := nodelease.AcquireRequest{RealmKey: "f/size", RealmValue: "8",
		HolderKey: "f/node/0000000", HolderValue: "h", Lease: lease, RecordKey: "f/last/0000000"}
	res, err := store.Acquire(ctx, req)
	if err != nil || !res.Acquired || res.Record.Exists() || res.RealmCreateRevision == 0 || res.Header.Revision == 0 ||
		res.Header.ClusterID == 0 || res.Header.Timeline == 0 {
		t.Fatalf("Acquire = %+v, %v", res, err)
	}
	if again, err := store.Acquire(ctx, req); err != nil || again.Acquired || again.RealmValue != "8" {
		t.Fatalf("Acquire of a held node ID = %+v, %v", again, err)
	}
	if other, err := store.Acquire(ctx, nodelease.AcquireRequest{RealmKey: "f/size", RealmValue: "4",
		HolderKey: "f/node/0000001", Lease: lease, RecordKey: "f/last/0000001"}); err != nil || other.Acquired || other.RealmValue != "8" {
		t.Fatalf("Acquire with another realm value = %+v, %v", other, err)
	}
	w := nodelease.RecordWrite{HolderKey: "f/node/0000000", Lease: lease, RecordKey: "f/last/0000000",
		RealmKey: "f/size", RealmCreateRevision: res.RealmCreateRevision, Value: "first"}
	first, err := store.WriteRecord(ctx, w)
	if err != nil || !first.Written || first.Header.Revision <= res.Header.Revision {
		t.Fatalf("first write = %+v, %v", first, err)
	}
	// The same write again expects an absent record: it fails, and
	// reports the record, the holder's lease and the realm.
	again, err := store.WriteRecord(ctx, w)
	if err != nil || again.Written || again.Record != (nodelease.Record{Value: "first", ModRevision: first.Header.Revision}) ||
		again.HolderLease != lease || again.RealmCreateRevision != res.RealmCreateRevision {
		t.Fatalf("a stale write = %+v, %v", again, err)
	}
	w.ModRevision, w.Value = first.Header.Revision, "second"
	second, err := store.WriteRecord(ctx, w)
	if err != nil || !second.Written {
		t.Fatalf("a write on top of the first = %+v, %v", second, err)
	}
	// With the right mod revision, another lease or another realm
	// create revision each fails alone.
	w.ModRevision = second.Header.Revision
	for _, bad := range []func(*nodelease.RecordWrite){
		func(b *nodelease.RecordWrite) { b.Lease++ },
		func(b *nodelease.RecordWrite) { b.RealmCreateRevision++ },
	} {
		b := w
		b.Value = "bad"
		bad(&b)
		if got, err := store.WriteRecord(ctx, b); err != nil || got.Written ||
			got.Record != (nodelease.Record{Value: "second", ModRevision: second.Header.Revision}) {
			t.Fatalf("a write with a wrong guard = %+v, %v", got, err)
		}
	}
	w.Delete = true
	if del, err := store.WriteRecord(ctx, w); err != nil || !del.Written {
		t.Fatalf("a fenced delete = %+v, %v", del, err)
	}
	if err := store.Revoke(ctx, lease); err != nil {
		t.Fatal(err)
	}
	if err := store.Revoke(ctx, lease); err != nil {
		t.Fatalf("revoking a revoked lease: %v", err)
	}
	w.ModRevision, w.Delete, w.Value = 0, false, "after revoke"
	if got, err := store.WriteRecord(ctx, w); err != nil || got.Written || got.HolderLease != 0 || got.Record.Exists() {
		t.Fatalf("a write after the lease was revoked = %+v, %v", got, err)
	}
	if ttl, _, err := store.KeepAliveOnce(ctx, lease); err != nil || ttl != 0 {
		t.Fatalf("a keep-alive of a revoked lease = %d, %v; want 0", ttl, err)
	}
	// A lease that no longer exists cannot take a node ID: an error, as
	// etcd's "lease not found".
	if res, err := store.Acquire(ctx, req); err == nil {
		t.Fatalf("Acquire with a revoked lease = %+v, want an error", res)
	}
}

// TestStoreLeaseEndsByTheServersClock: a lease that is not renewed ends a
// TTL after its grant or last renewal by the server's clock, and then
// every statement takes it as absent: a keep-alive finds nothing, the
// listing leaves its holder key out, and another lease takes its node ID
// and reads the record.
func TestStoreLeaseEndsByTheServersClock(t *testing.T) {
	t.Parallel()
	r := newRealm(t, sharedServer(t))
	store := pgnode.StoreOf(r.db, r.schema)
	ctx := context.Background()
	if _, _, err := store.PutIfAbsent(ctx, "e/size", "8"); err != nil {
		t.Fatal(err)
	}
	old, _, err := store.Grant(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	req := nodelease.AcquireRequest{RealmKey: "e/size", RealmValue: "8",
		HolderKey: "e/node/0000000", Lease: old, RecordKey: "e/last/0000000"}
	res, err := store.Acquire(ctx, req)
	if err != nil || !res.Acquired {
		t.Fatalf("Acquire = %+v, %v", res, err)
	}
	w := nodelease.RecordWrite{HolderKey: req.HolderKey, Lease: old, RecordKey: req.RecordKey,
		RealmKey: req.RealmKey, RealmCreateRevision: res.RealmCreateRevision, Value: "kept"}
	if wr, err := store.WriteRecord(ctx, w); err != nil || !wr.Written {
		t.Fatalf("WriteRecord = %+v, %v", wr, err)
	}
	if ttl, _, err := store.KeepAliveOnce(ctx, old); err != nil || ttl != 1 {
		t.Fatalf("KeepAliveOnce = %d, %v; want 1", ttl, err)
	}
	if keys, err := store.Keys(ctx, "e/node/", "e/node0", 10); err != nil || len(keys) != 1 {
		t.Fatalf("Keys while the lease lives = %q, %v", keys, err)
	}
	time.Sleep(1500 * time.Millisecond)
	if keys, err := store.Keys(ctx, "e/node/", "e/node0", 10); err != nil || len(keys) != 0 {
		t.Fatalf("Keys after the lease ended = %q, %v; want none", keys, err)
	}
	if ttl, _, err := store.KeepAliveOnce(ctx, old); err != nil || ttl != 0 {
		t.Fatalf("KeepAliveOnce after the lease ended = %d, %v; want 0", ttl, err)
	}
	next, _, err := store.Grant(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	req.Lease = next
	res, err = store.Acquire(ctx, req)
	if err != nil || !res.Acquired || res.Record.Value != "kept" {
		t.Fatalf("Acquire after the old lease ended = %+v, %v; want the node ID and the record", res, err)
	}
	if wr, err := store.WriteRecord(ctx, w); err != nil || wr.Written || wr.HolderLease != next {
		t.Fatalf("a write of the old lease = %+v, %v; want it fenced off", wr, err)
	}
}

// TestStoreKeysInByteOrder: keys are listed in byte order, also in a
// database whose collation orders text otherwise (ICU's root: "a" before
// "B"); bounds given as the protocol makes them (a key and a NUL: the next
// string after it) are honoured, and so is the limit.
func TestStoreKeysInByteOrder(t *testing.T) {
	t.Parallel()
	dsn := sharedServer(t)
	db := "icu_" + schemaName(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+db+" TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'und'"); err != nil {
		t.Skipf("a database with an ICU collation: %v", err) // PostgreSQL before 15, or built without ICU
	}
	t.Cleanup(func() { execOn(t, dsn, "DROP DATABASE "+db+" WITH (FORCE)") })
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + db
	r := newRealm(t, u.String())
	var folds bool
	if err := r.db.QueryRow(ctx, "SELECT 'a' < 'B' COLLATE \"default\"").Scan(&folds); err != nil || !folds {
		t.Fatalf("the database's collation does not put 'a' before 'B' (%v, %v): the test tests nothing", folds, err)
	}
	store := pgnode.StoreOf(r.db, r.schema)
	keys := []string{"k/A", "k/B", "k/a", "k/b", "k/a b", "k/ä", "k/z", "k/Z", "k/0", "k/_", "k/a/"}
	for _, k := range keys {
		if _, _, err := store.PutIfAbsent(ctx, k, "v"); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(keys) // Go compares strings byte by byte
	got, err := store.Keys(ctx, "k/", "k0", 100)
	if err != nil || !slices.Equal(got, keys) {
		t.Fatalf("Keys = %q, %v; want %q", got, err, keys)
	}
	if got, err := store.Keys(ctx, keys[2]+"\x00", keys[5]+"\x00", 100); err != nil || !slices.Equal(got, keys[3:6]) {
		t.Fatalf("Keys after %q through %q = %q, %v; want %q", keys[2], keys[5], got, err, keys[3:6])
	}
	if got, err := store.Keys(ctx, keys[2], keys[5], 100); err != nil || !slices.Equal(got, keys[2:5]) {
		t.Fatalf("Keys from %q before %q = %q, %v; want %q", keys[2], keys[5], got, err, keys[2:5])
	}
	if got, err := store.Keys(ctx, "k/", "k0", 3); err != nil || !slices.Equal(got, keys[:3]) {
		t.Fatalf("Keys limited to 3 = %q, %v", got, err)
	}
	if _, err := store.Keys(ctx, "k/\x00x", "k0", 3); err == nil {
		t.Fatal("a bound with a NUL inside was taken")
	}
}

// TestStoreRevisionOrdersWrites: each write's revision is above every
// earlier answer's, also when many writers race, and a failed compare
// does not go back.
func TestStoreRevisionOrdersWrites(t *testing.T) {
	t.Parallel()
	r := newRealm(t, sharedServer(t))
	store := pgnode.StoreOf(r.db, r.schema)
	ctx := context.Background()
	const writers, each = 8, 25
	revs := make(chan int64, writers*each)
	errs := make(chan error, writers)
	for w := range writers {
		go func() {
			var last int64
			for i := range each {
				_, h, err := store.PutIfAbsent(ctx, "o/"+string(rune('a'+w))+"/"+string(rune('a'+i)), "v")
				if err != nil {
					errs <- err
					return
				}
				if h.Revision <= last {
					errs <- fmt.Errorf("revision %d after %d", h.Revision, last)
					return
				}
				last = h.Revision
				revs <- h.Revision
			}
			errs <- nil
		}()
	}
	for range writers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	close(revs)
	seen := map[int64]bool{}
	for rev := range revs {
		if seen[rev] {
			t.Fatalf("two writes have revision %d", rev)
		}
		seen[rev] = true
	}
}
