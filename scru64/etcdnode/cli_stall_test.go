package etcdnode_test

import (
	"context"
	"errors"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/fastid/scru128/scru64"
)

// The command-line tool against an etcd that refuses its writes while its
// lease holds: a real etcd whose space quota is exceeded (the NOSPACE
// alarm), and a proxy that answers every transaction with an error. gen
// must say so on stderr within a bound, naming etcd's answer; print every
// ID it minted; wait a bounded time, and resume if etcd takes writes again
// meanwhile; exit at once on a signal, saying truly whether the node ID
// was given back; and exit 1 if the lease is lost or the wait runs out.

const (
	// stallSaid bounds the time from etcd refusing writes to gen's line
	// on stderr: the bound loop's next write comes within half the
	// record's lead (2.56 s) and fails at once, and gen is pressing on
	// the bound already; with room for a loaded machine.
	stallSaid = 10 * time.Second
	// flushBound is how soon the output must be flushed: the help's
	// 100 ms, with room for the test's reading of the pipe on a loaded
	// machine.
	flushBound = 100*time.Millisecond + 400*time.Millisecond
	// stallWaitLimit is how long gen waits for etcd to take its writes
	// again before it gives up (docs/cli.md).
	stallWaitLimit = 30 * time.Second
)

// stalledGen is a gen -n run that etcd's refusals stalled.
type stalledGen struct {
	*streamingGen
	c      *clientv3.Client // straight to etcd, to check what it holds
	prefix string
	nodeID uint32
	said   time.Time // when the stall's line came on stderr
	line   string    // that line
}

// startStalledGen starts gen -n 100000000 -etcd-size 16 through endpoint
// with args, lets it print, calls refuse, and waits for gen's line about
// the stall. It checks that the line names want, and that gen printed
// every ID up to the record etcd holds before it waited. c reads etcd
// directly.
func startStalledGen(t *testing.T, bin, endpoint string, c *clientv3.Client, refuse func(), want []string, args ...string) *stalledGen {
	t.Helper()
	g := &stalledGen{streamingGen: startGenWith(t, bin, nil, append([]string{"-etcd", endpoint, "-n", "100000000"}, args...)...), c: c, prefix: "/scru64/"}
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "-etcd-prefix" {
			g.prefix = args[i+1]
		}
	}
	g.waitUntil(t, 20*time.Second, "printing IDs", func() bool { return strings.Count(g.stdout.String(), "\n") >= 100 })
	g.nodeID = uint32(g.lastID(t).NodeCtr() >> 8)

	refuse()
	refused := time.Now()
	g.waitUntil(t, stallSaid, "saying that etcd refuses its writes", func() bool { return g.stderr.String() != "" })
	g.said, g.line = time.Now(), strings.TrimSpace(g.stderr.String())
	t.Logf("%v after the refusals began: %s", g.said.Sub(refused).Round(time.Millisecond), g.line)
	checkStderr(t, "the stall's line", g.stderr.String())
	for _, w := range append([]string{"waiting up to 30s for etcd"}, want...) {
		if !strings.Contains(g.line, w) {
			t.Errorf("the stall's line %q does not say %q", g.line, w)
		}
	}

	// Before gen waits, what it minted is on stdout: IDs up to the bound
	// the line names (gen, minting at full speed, was pressing on it),
	// which etcd's record covers. Then nothing more comes while it
	// waits, and it goes on running. (The record may be higher than the
	// bound: a write that applied with its answer lost, or answered
	// late, which the node has not learned of.)
	m := regexp.MustCompile(`mints no ID past ([0-9a-z]{12}) `).FindStringSubmatch(g.line)
	if m == nil {
		t.Fatalf("the stall's line %q does not name the ID minting stops at", g.line)
	}
	bound := scru64.MustParse(m[1])
	var last scru64.ID
	for deadline := g.said.Add(flushBound); ; time.Sleep(5 * time.Millisecond) {
		if last = g.lastID(t); last.Timestamp() == bound.Timestamp() || time.Now().After(deadline) {
			break
		}
	}
	if last.Timestamp() != bound.Timestamp() || last > bound {
		t.Fatalf("%v after the stall's line, the last ID printed is %v: want the IDs up to %v's tick flushed", flushBound, last, bound)
	}
	if record, _ := readRecord(t, c, recordKeyOf(g.prefix, g.nodeID)); record < bound {
		t.Fatalf("the record %v is below the bound %v", record, bound)
	}
	wrote, out := g.stdout.lastWrite()
	time.Sleep(time.Second)
	if w, o := g.stdout.lastWrite(); w != wrote || o != out {
		t.Fatalf("gen printed %d bytes more while stalled", len(o)-len(out))
	}
	select {
	case <-g.exited:
		t.Fatalf("gen exited while stalled: %v; stderr %q", g.waitErr, g.stderr.String())
	default:
	}
	return g
}

// lastID returns the last whole line gen printed, as an ID.
func (g *streamingGen) lastID(t *testing.T) scru64.ID {
	t.Helper()
	out := g.stdout.String()
	out = out[:strings.LastIndexByte(out, '\n')+1]
	lines := strings.Fields(out)
	if len(lines) == 0 {
		return 0
	}
	id, err := scru64.Parse(lines[len(lines)-1])
	if err != nil {
		t.Fatalf("gen printed %q: %v", lines[len(lines)-1], err)
	}
	return id
}

// holds reports whether the holder key of g's node ID is in etcd.
func (g *stalledGen) holds(t *testing.T) bool {
	t.Helper()
	for _, k := range holderKeys(t, g.c, g.prefix) {
		if k == g.prefix+"node/"+pad7(g.nodeID) {
			return true
		}
	}
	return false
}

func pad7(id uint32) string { return strconv.FormatUint(uint64(id)+10_000_000, 10)[1:] }

// checkGivenBack checks what gen said about its node ID after the stall
// against what etcd holds: the holder key is gone when it says the node ID
// was given back, and the record covers every ID printed.
func (g *stalledGen) checkGivenBack(t *testing.T) {
	t.Helper()
	stderr := g.stderr.String()
	checkStderr(t, "after the stall", stderr)
	record, _ := readRecord(t, g.c, recordKeyOf(g.prefix, g.nodeID))
	last := g.lastID(t)
	held := g.holds(t)
	t.Logf("holder key there: %v; record %v, last ID printed %v", held, record, last)
	if record < last {
		t.Errorf("the record %v is below the last ID printed %v", record, last)
	}
	if !strings.Contains(stderr, "node ID was given back") || held {
		t.Errorf("stderr %q, holder key there: %v; want it to say the node ID was given back, and etcd to agree", stderr, held)
	}
}

// checkQuietlyGivenBack checks, after a stall that ended and a signal,
// that gen said nothing about giving its node ID back, and that it was
// given back: no holder key, and the record at the last ID printed, or
// above it if gen was waiting inside the node for a higher mark when the
// signal came (the ID it minted and dropped then), never below.
func (g *stalledGen) checkQuietlyGivenBack(t *testing.T) {
	t.Helper()
	record, _ := readRecord(t, g.c, recordKeyOf(g.prefix, g.nodeID))
	last, held := g.lastID(t), g.holds(t)
	if held || record < last || strings.Contains(g.stderr.String(), "back") {
		t.Errorf("after SIGINT: holder key there: %v, record %v, last ID printed %v, stderr %q; want the node ID given back quietly, the record covering every ID printed",
			held, record, last, g.stderr.String())
	}
	if record != last {
		t.Logf("the record %v is past the last ID printed %v: gen was waiting for a higher mark", record, last)
	}
}

// TestCLIStallOnNoSpace runs gen -etcd -n with a large count against a real
// etcd whose space quota is exceeded meanwhile: etcd refuses the record's
// writes with its NOSPACE alarm and renews the lease. Each part starts a
// stall and then: frees the space (gen resumes, then gives its node ID
// back on SIGINT with the record equal to its last ID), sends SIGINT
// during the stall, revokes the lease during it, or lets gen's wait run
// out.
func TestCLIStallOnNoSpace(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command-line tool")
	}
	bin := buildCLI(t)
	nospace := []string{"database space exceeded", "NOSPACE", "etcdctl alarm disarm"}
	start := func(t *testing.T, args ...string) (*server, *stalledGen) {
		t.Helper()
		srv := quotaServer(t)
		c := newClient(t, srv.endpoint)
		return srv, startStalledGen(t, bin, srv.endpoint, c, func() { exceedQuota(t, c) }, nospace, args...)
	}

	t.Run("space freed", func(t *testing.T) {
		t.Parallel()
		srv, g := start(t)
		before := g.stdout.String()
		freeQuota(t, srv, g.c)
		freed := time.Now()
		g.waitUntil(t, 10*time.Second, "minting again", func() bool { return len(g.stdout.String()) > len(before) })
		g.waitUntil(t, time.Second, "saying it resumed", func() bool { return strings.Contains(g.stderr.String(), "minting resumed") })
		t.Logf("minting again %v after the space was freed: %s", time.Since(freed).Round(time.Millisecond), strings.TrimSpace(g.stderr.String()))
		g.interrupt(t, syscall.SIGINT)
		g.checkIDs(t)
		checkStderr(t, "resumed", g.stderr.String())
		g.checkQuietlyGivenBack(t)
	})

	t.Run("SIGINT", func(t *testing.T) {
		t.Parallel()
		srv, g := start(t)
		g.interrupt(t, syscall.SIGINT)
		g.checkIDs(t)
		g.checkGivenBack(t)
		// A run that starts while etcd is out of space fails at once,
		// with the same words.
		r := runCLI(t, bin, nil, genArgs(srv.endpoint, "-n", "10")...)
		checkFailure(t, "a start out of space", r, 1, nospace...)
		checkStderr(t, "a start out of space", r.stderr)
	})

	t.Run("lease lost", func(t *testing.T) {
		t.Parallel()
		_, g := start(t)
		ctx := context.Background()
		held, err := g.c.Get(ctx, g.prefix+"node/"+pad7(g.nodeID))
		if err != nil || len(held.Kvs) != 1 {
			t.Fatalf("the holder key: %v, %v", held, err)
		}
		// An operator revokes the lease (etcd allows it out of space).
		if _, err := g.c.Revoke(ctx, clientv3.LeaseID(held.Kvs[0].Lease)); err != nil {
			t.Fatal(err)
		}
		revoked := time.Now()
		select {
		case <-g.exited:
		case <-time.After(stallSaid): // the next keep-alive, due within 2.5 s, finds the lease gone
			t.Fatalf("gen still runs %v after its lease was revoked; stderr %q", time.Since(revoked), g.stderr.String())
		}
		t.Logf("exit %v after the revocation: %v; stderr %q", time.Since(revoked).Round(time.Millisecond), g.waitErr, g.stderr.String())
		checkExit(t, "lease lost", g.waitErr, 1)
		checkStderr(t, "lease lost", g.stderr.String())
		if !strings.Contains(g.stderr.String(), "lease lost") {
			t.Errorf("stderr %q does not say the lease was lost", g.stderr.String())
		}
		g.checkIDs(t)
	})

	t.Run("the wait runs out", func(t *testing.T) {
		t.Parallel()
		_, g := start(t)
		select {
		case <-g.exited:
		case <-time.After(stallWaitLimit + stallSaid):
			t.Fatalf("gen still runs %v after saying it waits; stderr %q", time.Since(g.said), g.stderr.String())
		}
		took := time.Since(g.said)
		t.Logf("exit %v after the stall's line: %v; stderr %q", took.Round(time.Millisecond), g.waitErr, g.stderr.String())
		checkExit(t, "the wait ran out", g.waitErr, 1)
		if took < stallWaitLimit-time.Second {
			t.Errorf("gen gave up %v after saying it waits %v", took, stallWaitLimit)
		}
		for _, w := range []string{"gave up", "database space exceeded"} {
			if !strings.Contains(g.stderr.String(), w) {
				t.Errorf("stderr %q does not say %q", g.stderr.String(), w)
			}
		}
		g.checkIDs(t)
		g.checkGivenBack(t)
	})
}

// TestCLIStallBehindAProxy: a proxy in front of etcd answers every
// transaction with an error of its own, in words holding terminal
// escapes, as a broken gateway would. gen says so, its words escaped, and
// goes on once the proxy lets the writes through.
func TestCLIStallBehindAProxy(t *testing.T) {
	t.Parallel()
	bin, srv := startCLITest(t)
	px, viaProxy := startProxy(t, srv.endpoint)
	var refuse *rule
	g := startStalledGen(t, bin, viaProxy, newClient(t, srv.endpoint), func() {
		refuse = px.addRule(&rule{match: isTxnPath, action: answerError, code: 14, message: "gateway: \x1b[31mupstream unavailable\x1b[0m"})
	}, []string{`gateway: \x1b[31mupstream unavailable`})
	px.removeRule(refuse)
	g.waitUntil(t, 10*time.Second, "saying it resumed", func() bool { return strings.Contains(g.stderr.String(), "minting resumed") })
	g.interrupt(t, syscall.SIGINT)
	g.checkIDs(t)
	checkStderr(t, "behind a proxy", g.stderr.String())
	g.checkQuietlyGivenBack(t)
}

// isTxnPath matches every transaction.
func isTxnPath(path string, _ []byte) bool { return isTxn(path) }

// checkExit checks that a command ended with exit status want.
func checkExit(t *testing.T, what string, waitErr error, want int) {
	t.Helper()
	var exit *exec.ExitError
	if !errors.As(waitErr, &exit) || exit.ExitCode() != want {
		t.Errorf("%s: %v, want exit status %d", what, waitErr, want)
	}
}
