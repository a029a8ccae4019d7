package etcdnode_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/server/v3/embed"
	"google.golang.org/protobuf/proto"

	"github.com/fastid/scru128/internal/nodelease"
	"github.com/fastid/scru128/scru64/etcdnode"
)

// The scenarios of answers that etcd itself never sends, but a broken
// proxy or a man in the middle can: TTLs past etcd's maximum, listings
// outside what was asked, more keys than the limit, server text with
// terminal escapes, and keep-alives answered without etcd. Nothing from
// the server may panic, exhaust memory, busy-loop or make a node mint
// under a node ID it was not given; and where etcd holds data this package
// did not write, the error says so (ErrBadData), and names it safely.

const (
	grantPath     = "/etcdserverpb.Lease/LeaseGrant"
	keepAlivePath = "/etcdserverpb.Lease/LeaseKeepAlive"
	rangePath     = "/etcdserverpb.KV/Range"
)

// onPath matches requests to path.
func onPath(path string) func(string, []byte) bool {
	return func(p string, _ []byte) bool { return p == path }
}

// counter is a proxy rule that passes every matching request on and only
// counts them.
func counter(match func(string, []byte) bool) *rule {
	return &rule{match: match, action: hold, skip: math.MaxInt}
}

// seen returns how many requests r has matched.
func (r *rule) seenCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen
}

// leaseAnswer rewrites a LeaseGrantResponse or LeaseKeepAliveResponse
// (fields 2 and 3, the lease ID and the TTL, are the same in both) with
// change.
func leaseAnswer(t *testing.T, change func(m *etcdserverpb.LeaseGrantResponse)) func([]byte) []byte {
	return func(b []byte) []byte {
		var m etcdserverpb.LeaseGrantResponse
		if err := proto.Unmarshal(b, &m); err != nil {
			t.Errorf("proxy: a lease answer: %v", err)
			return b
		}
		change(&m)
		out, err := proto.Marshal(&m)
		if err != nil {
			t.Errorf("proxy: %v", err)
			return b
		}
		return out
	}
}

// setTTL rewrites a lease answer to carry ttl.
func setTTL(t *testing.T, ttl int64) func([]byte) []byte {
	return leaseAnswer(t, func(m *etcdserverpb.LeaseGrantResponse) { m.TTL = ttl })
}

// TestGrantBeyondEtcdsTTLsIsRefused: a grant answered with a TTL past
// etcd's largest (9,000,000,000 s), or one that overflows a Duration, or
// below one second, is refused: Acquire fails and says what it was
// granted, revokes the lease, and sends no flood of keep-alives.
func TestGrantBeyondEtcdsTTLsIsRefused(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	for _, ttl := range []int64{9_000_000_001, 1 << 40, 1 << 62, 0, -5} {
		t.Run(fmt.Sprint(ttl), func(t *testing.T) {
			px, viaProxy := startProxy(t, srv.endpoint)
			px.addRule(&rule{match: onPath(grantPath), action: rewriteAnswer, rewrite: setTTL(t, ttl)})
			keepAlives := px.addRule(counter(onPath(keepAlivePath)))
			store := etcdnode.StoreOf(newClient(t, viaProxy))
			n, err := tryAcquire(store, nodelease.Config{Prefix: "/ttl/"})
			if err == nil {
				defer closeSoon(n)
				time.Sleep(2 * time.Second)
				t.Fatalf("Acquire granted a TTL of %d s took node ID %d; %d keep-alives in 2 s", ttl, n.NodeID(), keepAlives.seenCount())
			}
			if !strings.Contains(err.Error(), fmt.Sprint(ttl)) {
				t.Fatalf("Acquire granted a TTL of %d s: %v; want the error to name the TTL", ttl, err)
			}
			time.Sleep(500 * time.Millisecond)
			if k := keepAlives.seenCount(); k > 3 {
				t.Fatalf("%d keep-alives after a refused grant", k)
			}
			t.Log(err)
		})
	}
}

// TestGrantOfLeaseZeroIsRefused: a grant answered with lease ID 0, which
// etcd never grants (to etcd it means no lease), is refused before any key
// is written: a holder key put with lease 0 would be attached to no lease
// and hold its node ID for good.
func TestGrantOfLeaseZeroIsRefused(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	px, viaProxy := startProxy(t, srv.endpoint)
	px.addRule(&rule{match: onPath(grantPath), action: rewriteAnswer,
		rewrite: leaseAnswer(t, func(m *etcdserverpb.LeaseGrantResponse) { m.ID = 0 })})
	n, err := tryAcquire(etcdnode.StoreOf(newClient(t, viaProxy)), nodelease.Config{Prefix: "/lease0/"})
	if err == nil {
		closeSoon(n)
		t.Fatalf("Acquire granted lease 0 took node ID %d", n.NodeID())
	}
	checkBadData(t, "a grant of lease 0", err, "lease 0")
	if held := holderKeys(t, newClient(t, srv.endpoint), "/lease0/"); len(held) != 0 {
		t.Fatalf("holder keys left: %q", held)
	}
}

// TestKeepAliveBeyondEtcdsTTLsIsNotBelieved: once the node mints, every
// keep-alive is answered with a TTL past etcd's largest, or one that
// overflows a Duration. The node must not take them as renewals, busy-loop
// or mint past the TTL etcd granted: it fails closed at its deadline,
// with a *LostError that says what was answered.
func TestKeepAliveBeyondEtcdsTTLsIsNotBelieved(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	for _, ttl := range []int64{9_000_000_001, 1 << 40} {
		t.Run(fmt.Sprint(ttl), func(t *testing.T) {
			px, viaProxy := startProxy(t, srv.endpoint)
			n := acquire(t, etcdnode.StoreOf(newClient(t, viaProxy)), nodelease.Config{Prefix: "/ka-ttl/", TTL: shortTTL})
			keepAlives := px.addRule(counter(onPath(keepAlivePath))) // first: it counts, and lets the next rule act
			px.addRule(&rule{match: onPath(keepAlivePath), action: rewriteAnswer, rewrite: setTTL(t, ttl)})
			rewritten := time.Now()
			err := waitDone(t, n, 2*shortTTL)
			if !errors.Is(err, nodelease.ErrLeaseLost) || !strings.Contains(err.Error(), fmt.Sprint(ttl)) {
				t.Fatalf("keep-alives answered with a TTL of %d s: the node stopped with %v; want ErrLeaseLost naming the TTL", ttl, err)
			}
			if d := time.Since(rewritten); d > shortTTL+500*time.Millisecond {
				t.Fatalf("the node stopped %v after its keep-alives went wrong, past its TTL %v", d, shortTTL)
			}
			// Retries after a failed renewal start at 50 ms and double.
			if k := keepAlives.seenCount(); k > 20 {
				t.Fatalf("%d keep-alives in %v", k, time.Since(rewritten))
			}
			t.Logf("%d keep-alives, then: %v", keepAlives.seenCount(), err)
		})
	}
}

// TestLeaseLostNamesWhyRenewalsFailed: a keep-alive is answered with a TTL
// past etcd's largest, and the next one is never answered. The node stops
// when its TTL runs out with that one in flight; its error must still say
// why renewals were failing, not only that the last one timed out.
func TestLeaseLostNamesWhyRenewalsFailed(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	s := &silencedKeepAlives{Store: etcdnode.StoreOf(newClient(t, srv.endpoint))}
	n := acquire(t, s, nodelease.Config{Prefix: "/ka-cut/", TTL: shortTTL})
	s.mode.Store(1)
	err := waitDone(t, n, 2*shortTTL)
	if !errors.Is(err, nodelease.ErrLeaseLost) || !strings.Contains(err.Error(), "9000000001") ||
		!strings.Contains(err.Error(), "unanswered when the TTL ran out") {
		t.Fatalf("a keep-alive answered with a TTL of 9000000001 s, the next unanswered: the node stopped with %v; "+
			"want ErrLeaseLost naming that TTL and the unanswered one", err)
	}
	t.Log(err)
}

// silencedKeepAlives passes keep-alives to Store until mode is set; then
// it answers the first with a TTL of 9000000001 s and holds every later
// one until its context ends.
type silencedKeepAlives struct {
	nodelease.Store
	mode atomic.Int32 // 0: pass on; 1: answer the next wrongly; 2: hold
}

func (s *silencedKeepAlives) KeepAliveOnce(ctx context.Context, lease int64) (int64, nodelease.Header, error) {
	switch {
	case s.mode.CompareAndSwap(1, 2):
		_, h, err := s.Store.KeepAliveOnce(ctx, lease)
		return 9_000_000_001, h, err
	case s.mode.Load() == 2:
		<-ctx.Done()
		return 0, nodelease.Header{}, ctx.Err()
	}
	return s.Store.KeepAliveOnce(ctx, lease)
}

// TestRaisedTTLIsFollowed: an etcd with a long election timeout raises a
// short TTL to its minimum (1.5 election timeouts, 3 s here). The node
// follows the TTL granted: it renews every TTL/4 of it, and when its link
// stalls it mints until 0.9 of the granted TTL, not of the one asked.
func TestRaisedTTLIsFollowed(t *testing.T) {
	t.Parallel()
	srv := startServerWith(t, "http", func(cfg *embed.Config) { cfg.TickMs, cfg.ElectionMs = 100, 2000 })
	px, viaProxy := startProxy(t, srv.endpoint)
	keepAlives := px.addRule(counter(onPath(keepAlivePath)))
	n := acquire(t, etcdnode.StoreOf(newClient(t, viaProxy)), nodelease.Config{TTL: time.Second})
	const granted = 3 * time.Second
	start, before := time.Now(), keepAlives.seenCount()
	time.Sleep(3 * time.Second)
	if k := keepAlives.seenCount() - before; k < 2 || k > 6 {
		t.Fatalf("%d keep-alives in 3 s, want about 4 (every 750 ms, a quarter of the granted %v)", k, granted)
	}
	t.Logf("%d keep-alives in %v", keepAlives.seenCount()-before, time.Since(start).Round(time.Millisecond))
	mint(t, n, 10)
	px.pause()
	stalled := time.Now()
	time.Sleep(time.Second) // a 1 s TTL's deadline has long passed
	if _, err := n.Generate(); err != nil {
		t.Fatalf("Generate 1 s into a stall, with a granted TTL of %v: %v", granted, err)
	}
	time.Sleep(time.Until(stalled.Add(granted - 100*time.Millisecond)))
	if _, err := n.Generate(); !errors.Is(err, nodelease.ErrLeaseLost) {
		t.Fatalf("Generate %v into a stall, with a granted TTL of %v: %v, want ErrLeaseLost", time.Since(stalled), granted, err)
	}
	px.resume()
}

// rangeWith rewrites the answer to a listing of holder keys: add returns
// the key-value pairs to put in it.
func rangeWith(t *testing.T, add func(kvs []*mvccpb.KeyValue) []*mvccpb.KeyValue) func([]byte) []byte {
	return func(b []byte) []byte {
		var m etcdserverpb.RangeResponse
		if err := proto.Unmarshal(b, &m); err != nil {
			t.Errorf("proxy: a range answer: %v", err)
			return b
		}
		m.Kvs = add(m.Kvs)
		m.Count = int64(len(m.Kvs))
		out, err := proto.Marshal(&m)
		if err != nil {
			t.Errorf("proxy: %v", err)
			return b
		}
		return out
	}
}

// withKey returns what rangeWith adds: key, as etcd would list it.
func withKey(key string) func(kvs []*mvccpb.KeyValue) []*mvccpb.KeyValue {
	return func(kvs []*mvccpb.KeyValue) []*mvccpb.KeyValue {
		return append(kvs, &mvccpb.KeyValue{Key: []byte(key), CreateRevision: 1, ModRevision: 1, Version: 1})
	}
}

// listing matches the listings of holder keys under prefix.
func listing(prefix string) func(string, []byte) bool {
	return func(path string, body []byte) bool {
		return path == rangePath && bytes.Contains(body, []byte(prefix+"node/"))
	}
}

// checkBadData checks that err is a *DataError (or a *RecordError)
// matching ErrBadData and not ErrRealmMismatch or ErrInvalidOption, that
// its text names want, and that it carries no control character.
func checkBadData(t *testing.T, what string, err error, want string) {
	t.Helper()
	var de *nodelease.DataError
	var re *nodelease.RecordError
	if !errors.Is(err, nodelease.ErrBadData) || !errors.As(err, &de) && !errors.As(err, &re) ||
		errors.Is(err, nodelease.ErrRealmMismatch) || errors.Is(err, nodelease.ErrInvalidOption) {
		t.Fatalf("%s: %v; want a *DataError or *RecordError matching ErrBadData alone", what, err)
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("%s: %q does not name %s", what, err, want)
	}
	if strings.ContainsFunc(err.Error(), func(r rune) bool { return r < ' ' || r == 0x7f }) {
		t.Fatalf("%s: %q carries control characters", what, err)
	}
	t.Logf("%s: %v", what, err)
}

// TestListingsOutsideTheRangeAreBadData: a listing of holder keys answered
// with a key outside the range asked for, or more keys than the limit,
// is an error that names it; it never makes the node take a node ID
// outside its range. And an answer longer than any listing of the limit
// is refused by its length, before it is read.
func TestListingsOutsideTheRangeAreBadData(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	store := etcdnode.StoreOf(newClient(t, srv.endpoint))
	cfg := nodelease.Config{Prefix: "/range/", HasRange: true, MinNodeID: 10, MaxNodeID: 11}
	acquire(t, store, cfg)
	acquire(t, store, cfg) // 10 and 11 are held
	for _, tc := range []struct {
		name string
		add  func([]*mvccpb.KeyValue) []*mvccpb.KeyValue
		want string
	}{
		{"a key above the range", func(kvs []*mvccpb.KeyValue) []*mvccpb.KeyValue {
			return append(kvs, &mvccpb.KeyValue{Key: []byte("/range/node/0000300")})
		}, `"/range/node/0000300"`},
		{"a short key", func(kvs []*mvccpb.KeyValue) []*mvccpb.KeyValue {
			return append(kvs, &mvccpb.KeyValue{Key: []byte("/r\x1b[2J")})
		}, `"/r\x1b[2J"`},
		{"16,384 keys", func(kvs []*mvccpb.KeyValue) []*mvccpb.KeyValue {
			for range 1 << 14 {
				kvs = append(kvs, &mvccpb.KeyValue{})
			}
			return kvs
		}, "16386 keys"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			px, viaProxy := startProxy(t, srv.endpoint)
			px.addRule(&rule{match: listing(cfg.Prefix), action: rewriteAnswer, rewrite: rangeWith(t, tc.add)})
			n, err := tryAcquire(etcdnode.StoreOf(newClient(t, viaProxy)), cfg)
			if err == nil {
				closeSoon(n)
				t.Fatalf("Acquire in 10..11 with both held took node ID %d", n.NodeID())
			}
			checkBadData(t, "Acquire", err, tc.want)
		})
	}
	t.Run("a length of 64 MiB", func(t *testing.T) {
		px, viaProxy := startProxy(t, srv.endpoint)
		// What follows the length is never sent: a client that believed
		// it would wait for it, with 64 MiB set aside.
		px.addRule(&rule{match: listing(cfg.Prefix), action: rewriteAnswer, rewrite: func(b []byte) []byte { return b }, claim: 64 << 20})
		start := time.Now()
		_, err := tryAcquire(etcdnode.StoreOf(newClient(t, viaProxy)), cfg)
		if err == nil || !strings.Contains(err.Error(), "larger than max") || time.Since(start) > 2*time.Second {
			t.Fatalf("Acquire, listed with an answer of 64 MiB: %v after %v; want it refused at once by its length", err, time.Since(start))
		}
		t.Log(err)
	})
}

// TestDataEtcdHoldsThatThisPackageDidNotWrite: a realm key that is empty
// or not a node ID size, a holder key of another form among the holder
// keys, and a continuity record that is not an ID are data errors that
// name the key and the value, quoted: never a *RealmError or an option
// error (which the command-line tool reports as a usage error), never a
// panic.
func TestDataEtcdHoldsThatThisPackageDidNotWrite(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	direct := newClient(t, srv.endpoint)
	store := etcdnode.StoreOf(direct)
	put := func(kv ...string) {
		t.Helper()
		for i := 0; i+1 < len(kv); i += 2 {
			if _, err := direct.Put(context.Background(), kv[i], kv[i+1]); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tc := range []struct {
		name string
		kv   []string
		want string
	}{
		{"an empty realm", []string{"/d1/size", ""}, `"/d1/size" = ""`},
		{"a realm of size 08", []string{"/d2/size", "08"}, `"/d2/size" = "08"`},
		{"a realm of size 99", []string{"/d3/size", "99"}, `"/d3/size" = "99"`},
		{"a realm with escapes", []string{"/d4/size", "\x1b[31m8"}, `"\x1b[31m8"`},
		{"a holder key of another form", []string{"/d5/size", "8", "/d5/node/00000x1", "h"}, `"/d5/node/00000x1"`},
		{"a garbage record", []string{"/d6/size", "8", "/d6/last/0000000", "\x1b[2Jgarbage"}, `"/d6/last/0000000" = "\x1b[2Jgarbage"`},
		{"an empty record", []string{"/d7/size", "8", "/d7/last/0000000", ""}, `"/d7/last/0000000" = ""`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			put(tc.kv...)
			n, err := tryAcquire(store, nodelease.Config{Prefix: tc.kv[0][:4]})
			if err == nil {
				closeSoon(n)
				t.Fatalf("Acquire took node ID %d", n.NodeID())
			}
			checkBadData(t, "Acquire", err, tc.want)
		})
	}
	// Through etcdnode, the errors carry its name and its sentinel.
	_, err := etcdnode.Acquire(context.Background(), direct, etcdnode.WithPrefix("/d1/"))
	if !errors.Is(err, etcdnode.ErrBadData) || errors.Is(err, etcdnode.ErrRealmMismatch) || !strings.HasPrefix(err.Error(), "etcdnode: ") {
		t.Fatalf("etcdnode.Acquire in an empty realm: %v; want etcdnode.ErrBadData", err)
	}
}

// TestServerTextIsShownSafely: an error whose text the server (or a proxy)
// chose reaches the caller without control characters, and never reads
// "<nil>".
func TestServerTextIsShownSafely(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	for _, message := range []string{"\x1b]0;owned\x07\x1b[2Jrefused\r\n", ""} {
		px, viaProxy := startProxy(t, srv.endpoint)
		px.addRule(&rule{match: func(path string, _ []byte) bool { return strings.HasPrefix(path, "/etcdserverpb.KV/") },
			action: answerError, code: 9, message: message})
		_, err := tryAcquire(etcdnode.StoreOf(newClient(t, viaProxy)), nodelease.Config{Prefix: "/text/"})
		if err == nil {
			t.Fatal("Acquire succeeded with every KV request refused")
		}
		if strings.ContainsFunc(err.Error(), func(r rune) bool { return r < ' ' || r == 0x7f }) || strings.HasSuffix(err.Error(), "<nil>") {
			t.Fatalf("Acquire: %q", err)
		}
		t.Log(err)
	}
}

// TestForgedKeepAlivesCannotRepeatIDs: a man in the middle answers every
// keep-alive of a node as etcd would, without etcd. Nothing in an answer
// tells it from etcd's, so the node goes on minting after its lease has
// expired, even while another node holds its node ID; but only up to the
// bound it last wrote to the record, and its next write of the record,
// fenced on its lease, fails and ends it. The next holder starts after the
// record: no ID is repeated, and the overlap lasts at most the record's
// lead (5.12 s) past the lease's end.
func TestForgedKeepAlivesCannotRepeatIDs(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	px, viaProxy := startProxy(t, srv.endpoint)
	var led ledger
	first := acquire(t, etcdnode.StoreOf(newClient(t, viaProxy)), nodelease.Config{TTL: shortTTL})
	cluster := clusterID(t, srv)
	var mu sync.Mutex
	var lastMint time.Time
	h := led.HolderOf("first", first)
	firstDone := make(chan error, 1)
	go func() {
		for {
			id, err := first.Generate()
			if err != nil {
				firstDone <- err
				return
			}
			h.Add(id)
			mu.Lock()
			lastMint = time.Now()
			mu.Unlock()
			time.Sleep(100 * time.Microsecond)
		}
	}()
	time.Sleep(500 * time.Millisecond)
	forging := time.Now()
	px.addRule(&rule{match: onPath(keepAlivePath), action: forgeAnswer, forge: func(req []byte) []byte {
		var ka etcdserverpb.LeaseKeepAliveRequest
		if err := proto.Unmarshal(req, &ka); err != nil {
			t.Errorf("proxy: a keep-alive: %v", err)
		}
		out, _ := proto.Marshal(&etcdserverpb.LeaseKeepAliveResponse{
			Header: &etcdserverpb.ResponseHeader{ClusterId: cluster}, ID: ka.ID, TTL: int64(shortTTL / time.Second)})
		return out
	}})
	// The lease expires at most a TTL after the last keep-alive that etcd
	// saw, sent before forging began. Meanwhile the first node mints on;
	// the second takes the node ID as soon as it is free.
	expired := forging.Add(shortTTL)
	second := acquireWhenFree(t, etcdnode.StoreOf(newClient(t, srv.endpoint)), takeOver(first, nil), 3*shortTTL)
	took := time.Now()
	led.HolderOf("second", second).Add(mint(t, second, 1000)...)
	var err error
	select {
	case err = <-firstDone:
	case <-time.After(10 * time.Second):
		t.Fatal("the first node still mints 10 s after forging began")
	}
	if !errors.Is(err, nodelease.ErrLeaseLost) {
		t.Fatalf("the first node stopped with %v, want ErrLeaseLost", err)
	}
	mu.Lock()
	past := lastMint.Sub(expired)
	mu.Unlock()
	const lead = 20 * 256 * time.Millisecond
	t.Logf("the first node minted until %v past its lease's end (the second took its node ID %v after it): %v",
		past.Round(time.Millisecond), took.Sub(expired).Round(time.Millisecond), err)
	if past > lead+500*time.Millisecond {
		t.Fatalf("the first node minted %v past its lease's end, more than the record's lead %v", past, lead)
	}
	led.Check(t)
}

// TestStaleLeaseGoneIsNotBelieved: a keep-alive answered "the lease is
// gone" (TTL 0) by a member behind the cluster, as a leader cut off from
// the others answers for a lease granted after the cut until it steps
// down, its revision below what the node has seen. The node must not end
// on it, nor Acquire fail: it asks again, and a current member renews the
// lease. The same answer with a current revision ends the node.
func TestStaleLeaseGoneIsNotBelieved(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	cluster := clusterID(t, srv)
	px, viaProxy := startProxy(t, srv.endpoint)
	store := etcdnode.StoreOf(newClient(t, viaProxy))
	gone := func(revision int64) *rule {
		return &rule{match: onPath(keepAlivePath), action: forgeAnswer, count: 2, forge: func(req []byte) []byte {
			var ka etcdserverpb.LeaseKeepAliveRequest
			if err := proto.Unmarshal(req, &ka); err != nil {
				t.Errorf("proxy: a keep-alive: %v", err)
			}
			out, _ := proto.Marshal(&etcdserverpb.LeaseKeepAliveResponse{
				Header: &etcdserverpb.ResponseHeader{ClusterId: cluster, Revision: revision}, ID: ka.ID, TTL: 0})
			return out
		}}
	}

	// Acquire's renewal, before the first ID.
	stale := px.addRule(gone(1))
	n, err := tryAcquire(store, nodelease.Config{Prefix: "/stale/"})
	if err != nil {
		t.Fatalf("Acquire, its renewal answered by a member behind the cluster: %v", err)
	}
	defer closeSoon(n)
	stale.waitMatched(t, 1, time.Second)
	px.removeRule(stale)

	// A running node's keep-alives.
	stale = px.addRule(gone(1))
	stale.waitMatched(t, 2, 2*steadyTTL)
	time.Sleep(steadyTTL / 2)
	if _, err := n.Generate(); err != nil {
		t.Fatalf("Generate after keep-alives answered by a member behind the cluster: %v", err)
	}
	px.removeRule(stale)

	// The same answer from a current member: the lease is gone.
	current := px.addRule(gone(1 << 40))
	if err := waitDone(t, n, 2*steadyTTL); !errors.Is(err, nodelease.ErrLeaseLost) {
		t.Fatalf("keep-alives answered TTL 0 at a current revision: the node stopped with %v, want ErrLeaseLost", err)
	}
	px.removeRule(current)
}
