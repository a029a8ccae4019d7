package etcdnode_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"

	"github.com/fastid/scru128/internal/nodelease"
	"github.com/fastid/scru128/scru64"
	"github.com/fastid/scru128/scru64/etcdnode"
)

// The scenarios of a node whose writes of its continuity record fail while
// its lease holds (etcd out of space, a proxy that refuses transactions):
// the node must say so while it lives, stop minting at the bound it last
// wrote without blocking a caller, and mint again once writes succeed.

// maxGenerateCall bounds one Generate call in these scenarios: waiting for
// a write of the record, which fails or is abandoned after two requests of
// at most the safety margin each (0.75 s with steadyTTL), with room for a
// loaded machine.
const maxGenerateCall = 2 * time.Second

// mintUntilStalled mints from n, pausing briefly every 64 IDs, until
// Generate returns an error or for up to within, and returns the IDs and
// the error. No call may take longer than maxGenerateCall.
func mintUntilStalled(t *testing.T, n *nodelease.Node, within time.Duration) ([]scru64.ID, error) {
	t.Helper()
	type result struct {
		ids []scru64.ID
		err error
	}
	got := make(chan result, 1)
	var slowest time.Duration
	go func() {
		var ids []scru64.ID
		for end := time.Now().Add(within); time.Now().Before(end); {
			start := time.Now()
			id, err := n.Generate()
			slowest = max(slowest, time.Since(start))
			if err != nil {
				got <- result{ids, err}
				return
			}
			if ids = append(ids, id); len(ids)%64 == 0 {
				time.Sleep(time.Millisecond)
			}
		}
		got <- result{ids, nil}
	}()
	select {
	case r := <-got:
		if slowest > maxGenerateCall {
			t.Errorf("a Generate call took %v", slowest)
		}
		return r.ids, r.err
	case <-time.After(within + maxGenerateCall):
		t.Fatalf("a Generate call has blocked for %v", maxGenerateCall)
		return nil, nil
	}
}

// waitStalled waits until n reports a stall, for up to within.
func waitStalled(t *testing.T, n *nodelease.Node, within time.Duration) error {
	t.Helper()
	for deadline := time.Now().Add(within); ; time.Sleep(20 * time.Millisecond) {
		if err := n.Stalled(); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			t.Fatalf("the node did not report its failing writes within %v", within)
		}
	}
}

// checkStall checks what a node reports while its writes fail: a
// *StallError (matching ErrStalled) that names the cause, with the node
// still alive, and says nothing that is not printable.
func checkStall(t *testing.T, what string, err error, n *nodelease.Node, cause string) {
	t.Helper()
	var stall *nodelease.StallError
	if !errors.As(err, &stall) || !errors.Is(err, nodelease.ErrStalled) || stall.NodeID != n.NodeID() {
		t.Fatalf("%s: %v, want a *StallError of node ID %d", what, err, n.NodeID())
	}
	if !strings.Contains(err.Error(), cause) {
		t.Fatalf("%s: %q does not name etcd's answer %q", what, err, cause)
	}
	if strings.ContainsFunc(err.Error(), func(r rune) bool { return r < ' ' || r == 0x7f }) {
		t.Fatalf("%s: %q carries control characters", what, err)
	}
	if errors.Is(err, nodelease.ErrLeaseLost) || n.Err() != nil {
		t.Fatalf("%s: the node is done (%v) although its lease holds", what, n.Err())
	}
}

// quotaServer starts an etcd server whose space quota (4 MiB) a test can
// exceed in a second.
func quotaServer(t *testing.T) *server {
	t.Helper()
	return startServerWith(t, "http", func(cfg *embed.Config) { cfg.QuotaBackendBytes = 4 << 20 })
}

// exceedQuota writes values of 256 KiB under /fill/ until etcd refuses one
// for want of space: it has then raised its NOSPACE alarm, and refuses
// every write until the alarm is disarmed, while it still renews leases.
func exceedQuota(t *testing.T, c *clientv3.Client) {
	t.Helper()
	filler := strings.Repeat("x", 256<<10)
	for filled := 0; ; filled++ {
		_, err := c.Put(context.Background(), "/fill/"+strconv.Itoa(filled), filler)
		if errors.Is(err, rpctypes.ErrNoSpace) {
			t.Logf("NOSPACE after %d puts of 256 KiB", filled)
			return
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// freeQuota does what an operator does for an etcd out of space: deletes
// the values exceedQuota wrote, compacts and defragments, and disarms the
// NOSPACE alarm.
func freeQuota(t *testing.T, srv *server, c *clientv3.Client) {
	t.Helper()
	ctx := context.Background()
	if _, err := c.Delete(ctx, "/fill/", clientv3.WithPrefix()); err != nil {
		t.Fatal(err)
	}
	resp, err := c.Get(ctx, "any")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Compact(ctx, resp.Header.Revision); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Defragment(ctx, srv.endpoint); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AlarmDisarm(ctx, &clientv3.AlarmMember{MemberID: uint64(srv.etcd.Server.MemberID()), Alarm: etcdserverpb.AlarmType_NOSPACE}); err != nil {
		t.Fatal(err)
	}
}

// TestQuotaExceededStallsLoudly exceeds etcd's space quota while a node
// mints: etcd raises the NOSPACE alarm and refuses every write, while
// keep-alives, which write nothing, go on. The node must say so within a
// bound with etcd's answer, mint up to the bound it last wrote and then
// return the *StallError from Generate instead of blocking, and never
// mint above the record. Once space is freed and the alarm disarmed,
// minting resumes by itself, and the node ID's next holder continues
// after every ID.
func TestQuotaExceededStallsLoudly(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := quotaServer(t)
		direct := newClient(t, srv.endpoint)
		var led ledger
		n := acquire(t, open(srv.endpoint), nodelease.Config{})
		h := led.HolderOf("first", n)
		ids, err := mintUntilStalled(t, n, 500*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		h.Add(ids...)

		ctx := context.Background()
		exceedQuota(t, direct)
		full := time.Now()

		// The node says so at its next write, due within half the lead.
		stall := waitStalled(t, n, 3*time.Second+maxGenerateCall)
		checkStall(t, "Stalled", stall, n, "database space exceeded")
		if strings.HasSuffix(t.Name(), "/clientv3") && !errors.Is(stall, rpctypes.ErrNoSpace) {
			t.Fatalf("Stalled: errors.Is does not see etcd's rpctypes.ErrNoSpace in %v", stall)
		}
		t.Logf("Stalled after %v: %v", time.Since(full).Round(time.Millisecond), stall)

		// Minting goes on up to the bound, then stops with the error.
		ids, err = mintUntilStalled(t, n, 10*time.Second)
		h.Add(ids...)
		checkStall(t, "Generate", err, n, "database space exceeded")
		t.Logf("Generate failed %v after NOSPACE", time.Since(full).Round(time.Millisecond))
		if record, _ := readRecord(t, direct, recordKeyOf(nodelease.DefaultPrefix, n.NodeID())); len(ids) > 0 && ids[len(ids)-1] > record {
			t.Fatalf("minted %v above the record %v", ids[len(ids)-1], record)
		}
		for range 3 { // at once, every time
			if _, err := mintUntilStalled(t, n, time.Second); err == nil {
				t.Fatal("Generate minted past the bound with every write refused")
			}
		}
		select {
		case <-n.Done():
			t.Fatalf("Done closed while the lease holds: %v", n.Err())
		default:
		}

		// Free the space: minting resumes by itself.
		freeQuota(t, srv, direct)
		freed := time.Now()
		for deadline := freed.Add(5 * time.Second); n.Stalled() != nil; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("still stalled 5 s after the alarm was disarmed: %v", n.Stalled())
			}
		}
		t.Logf("minting resumed %v after the alarm was disarmed", time.Since(freed).Round(time.Millisecond))
		ids, err = mintUntilStalled(t, n, time.Second)
		h.Add(ids...)
		if err != nil {
			t.Fatalf("after the alarm was disarmed: %v", err)
		}
		if err := n.Close(ctx); err != nil {
			t.Fatal(err)
		}
		next := acquire(t, open(srv.endpoint), takeOver(n, nil))
		led.HolderOf("next", next).Add(mint(t, next, 1000)...)
		led.Check(t)
	})
}

// TestRefusedTransactionsStallLoudly puts a proxy between a node and etcd
// that answers every transaction naming the node's record with an error
// of its own, in words that hold terminal escapes, as a broken gateway or
// proxy would. The node says so, in words a terminal shows as they are,
// stops at its bound without blocking a caller, and mints again once the
// proxy lets the writes through.
func TestRefusedTransactionsStallLoudly(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(string) nodelease.Store) {
		srv := startServer(t)
		px, viaProxy := startProxy(t, srv.endpoint)
		var led ledger
		n := acquire(t, open(viaProxy), nodelease.Config{})
		h := led.HolderOf("first", n)
		refuse := px.addRule(&rule{match: recordTxn(recordKeyOf(nodelease.DefaultPrefix, n.NodeID())), action: answerError,
			code: 14, message: "upstream refused \x1b[31mthe write\x1b[0m\r\n"})
		refused := time.Now()
		stall := waitStalled(t, n, 3*time.Second+maxGenerateCall)
		checkStall(t, "Stalled", stall, n, "upstream refused")
		t.Logf("Stalled after %v: %v", time.Since(refused).Round(time.Millisecond), stall)
		ids, err := mintUntilStalled(t, n, 10*time.Second)
		h.Add(ids...)
		checkStall(t, "Generate", err, n, "upstream refused")
		// Failed writes are retried, but not faster than the backoff
		// allows: three in a row, a few times a second at first, then
		// every 2 s.
		acted := func() int {
			refuse.mu.Lock()
			defer refuse.mu.Unlock()
			return refuse.acted
		}
		before := acted()
		time.Sleep(4 * time.Second)
		if n := acted() - before; n > 9 {
			t.Fatalf("%d writes refused in 4 s, a stall's steady state: want at most 3 every 2 s", n)
		}
		px.removeRule(refuse)
		for deadline := time.Now().Add(5 * time.Second); n.Stalled() != nil; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("still stalled 5 s after the proxy let writes through: %v", n.Stalled())
			}
		}
		ids, err = mintUntilStalled(t, n, time.Second)
		h.Add(ids...)
		if err != nil {
			t.Fatalf("after the proxy let writes through: %v", err)
		}
		if err := n.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		next := acquire(t, open(srv.endpoint), takeOver(n, nil))
		led.HolderOf("next", next).Add(mint(t, next, 1000)...)
		led.Check(t)
	})
}

// TestStalledThroughEtcdnode: what Node.Stalled and Generate return
// through etcdnode carries its name, matches ErrStalled, and lets
// errors.Is see etcd's answer (here the NOSPACE answer, sent by a proxy
// with etcd's words and code).
func TestStalledThroughEtcdnode(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	px, viaProxy := startProxy(t, srv.endpoint)
	ctx := context.Background()
	n, err := etcdnode.Acquire(ctx, newClient(t, viaProxy), etcdnode.WithPrefix("/stalled/"), etcdnode.WithTTL(steadyTTL))
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close(ctx)
	if err := n.Stalled(); err != nil {
		t.Fatalf("Stalled before any failure: %v", err)
	}
	refuse := px.addRule(&rule{match: recordTxn(recordKeyOf("/stalled/", n.NodeID())), action: answerError,
		code: 8, message: rpctypes.ErrorDesc(rpctypes.ErrGRPCNoSpace)})
	var stall error
	for deadline := time.Now().Add(3*time.Second + maxGenerateCall); stall == nil; time.Sleep(20 * time.Millisecond) {
		if stall = n.Stalled(); time.Now().After(deadline) {
			t.Fatal("Stalled is still nil")
		}
	}
	checkPrefixed(t, "Stalled", stall, etcdnode.ErrStalled, rpctypes.ErrNoSpace)
	var se *etcdnode.StallError
	if !errors.As(stall, &se) || se.NodeID != n.NodeID() || se.Attempts < 1 || time.Since(se.Since) > 10*time.Second {
		t.Fatalf("Stalled: %v is not a *StallError of this node", stall)
	}
	for {
		if _, err = n.Generate(); err != nil {
			break
		}
	}
	checkPrefixed(t, "Generate", err, etcdnode.ErrStalled, rpctypes.ErrNoSpace)
	px.removeRule(refuse)
	for deadline := time.Now().Add(5 * time.Second); n.Stalled() != nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("still stalled: %v", n.Stalled())
		}
	}
	if _, err := n.Generate(); err != nil {
		t.Fatal(err)
	}
	if err := (&etcdnode.Node{}).Stalled(); err != nil {
		t.Fatalf("Stalled of a Node not made by Acquire: %v", err)
	}
}

// TestCloseDuringAStall: Close while etcd refuses the record's writes (a
// proxy answering them with etcd's NOSPACE words) cannot store the last
// ID, but revokes the lease: the node ID is free at once, the record
// keeps the high-water mark above every ID minted, and NotRevoked says
// the revocation was made. When the revocation is refused too, NotRevoked
// says so, and the holder key stays until the lease expires.
func TestCloseDuringAStall(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	direct := newClient(t, srv.endpoint)
	for _, revocable := range []bool{true, false} {
		t.Run("revocable "+strconv.FormatBool(revocable), func(t *testing.T) {
			t.Parallel()
			closeDuringAStall(t, srv, direct, revocable)
		})
	}
}

// closeDuringAStall is one case of TestCloseDuringAStall.
func closeDuringAStall(t *testing.T, srv *server, direct *clientv3.Client, revocable bool) {
	prefix := "/close-stalled-" + strconv.FormatBool(revocable) + "/"
	px, viaProxy := startProxy(t, srv.endpoint)
	n := acquire(t, etcdnode.StoreOf(newClient(t, viaProxy)), nodelease.Config{Prefix: prefix})
	px.addRule(&rule{match: recordTxn(recordKeyOf(prefix, n.NodeID())), action: answerError,
		code: 8, message: rpctypes.ErrorDesc(rpctypes.ErrGRPCNoSpace)})
	if !revocable {
		px.addRule(&rule{match: onPath("/etcdserverpb.Lease/LeaseRevoke"), action: answerError, code: 14, message: "refused"})
	}
	waitStalled(t, n, 3*time.Second+maxGenerateCall)
	ids, _ := mintUntilStalled(t, n, 10*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	err := n.Close(ctx)
	cancel()
	held := holderKeys(t, direct, prefix)
	record, _ := readRecord(t, direct, recordKeyOf(prefix, n.NodeID()))
	t.Logf("revocable %v: Close: %v; holder keys %q, record %v", revocable, err, held, record)
	switch {
	case err == nil || !errors.Is(err, rpctypes.ErrNoSpace):
		t.Fatalf("Close with the record's writes refused: %v, want etcd's NOSPACE answer", err)
	case nodelease.NotRevoked(err) == revocable:
		t.Fatalf("revocable %v: NotRevoked(%v) = %v", revocable, err, nodelease.NotRevoked(err))
	case revocable == (len(held) != 0):
		t.Fatalf("revocable %v: holder keys %q", revocable, held)
	case len(ids) > 0 && record < ids[len(ids)-1]:
		t.Fatalf("the record %v is below the last ID minted %v", record, ids[len(ids)-1])
	}
}

// TestStallReportsAgree: the reports of one stall agree on when it began
// and count its writes up. Record writes that get no answer make Generate
// report the stall first (it stops waiting before the bound loop's round
// fails); the loop's own reports that follow keep that start and count on
// from it. Before, Generate said "1 attempt since T" and the loop then
// "6 attempts since T-2.5s".
func TestStallReportsAgree(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	px, viaProxy := startProxy(t, srv.endpoint)
	ctx := context.Background()
	n, err := etcdnode.Acquire(ctx, newClient(t, viaProxy), etcdnode.WithPrefix("/agree/"), etcdnode.WithTTL(steadyTTL))
	if err != nil {
		t.Fatal(err)
	}
	held := px.addRule(&rule{match: recordTxn(recordKeyOf("/agree/", n.NodeID())), action: hold})
	defer func() {
		px.removeRule(held)
		px.deliverHeld(held)
		n.Close(ctx)
	}()
	for {
		if _, err = n.Generate(); err != nil {
			break
		}
	}
	var first *etcdnode.StallError
	if !errors.As(err, &first) {
		t.Fatalf("Generate: %v, want a *StallError", err)
	}
	t.Logf("Generate: %v", err)
	var later *etcdnode.StallError
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if errors.As(n.Stalled(), &later) && later.Attempts > first.Attempts {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no later report counts past the first's %d attempts: %v", first.Attempts, n.Stalled())
		}
	}
	t.Logf("Stalled: %v", later)
	if !later.Since.Equal(first.Since) {
		t.Errorf("the first report says the stall began at %v, a later one at %v", first.Since, later.Since)
	}
}
