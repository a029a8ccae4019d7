package etcdnode_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/fastid/scru128/scru64"
)

// signalBound is how soon after SIGINT or SIGTERM the command-line tool
// must have exited, whatever etcd does.
const signalBound = time.Second

// syncBuffer is a bytes.Buffer that a command's output goroutine writes
// while the test reads it. It notes when it was last written.
type syncBuffer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	wrote time.Time
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.wrote = time.Now()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// lastWrite returns when b was last written, and what it holds.
func (b *syncBuffer) lastWrite() (time.Time, string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.wrote, b.buf.String()
}

// streamingGen is `scru128 gen -format scru64 -etcd endpoint -stream`
// running, with its output collected.
type streamingGen struct {
	cmd            *exec.Cmd
	stdout, stderr syncBuffer
	exited         chan struct{}
	waitErr        error
}

// startStreamingGen starts gen -stream through endpoint, with args, and
// waits until it prints IDs. Node ID size 16 leaves 256 IDs per 256-ms
// tick, so the stream soon runs at the clock's pace and its output stays
// small.
func startStreamingGen(t *testing.T, bin, endpoint string, args ...string) *streamingGen {
	t.Helper()
	g := startStreamWith(t, bin, nil, append([]string{"-etcd", endpoint}, args...)...)
	g.waitUntil(t, 20*time.Second, "printing IDs", func() bool { return strings.Count(g.stdout.String(), "\n") >= 100 })
	return g
}

// startStream starts gen -stream through endpoint.
func startStream(t *testing.T, bin, endpoint string) *streamingGen {
	t.Helper()
	return startStreamWith(t, bin, nil, "-etcd", endpoint)
}

// startStreamWith starts gen -stream with args and the environment
// variables vars (see cliEnv).
func startStreamWith(t *testing.T, bin string, vars []string, args ...string) *streamingGen {
	t.Helper()
	return startGenWith(t, bin, vars, append([]string{"-stream"}, args...)...)
}

// startGenWith starts gen -format scru64 -etcd-size 16 with args (a later
// -etcd-size wins) and the environment variables vars (see cliEnv).
func startGenWith(t *testing.T, bin string, vars []string, args ...string) *streamingGen {
	t.Helper()
	g := &streamingGen{exited: make(chan struct{})}
	g.cmd = exec.Command(bin, append([]string{"gen", "-format", "scru64", "-etcd-size", "16"}, args...)...)
	g.cmd.Env = cliEnv(vars)
	g.cmd.Stdout, g.cmd.Stderr = &g.stdout, &g.stderr
	if err := g.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		g.waitErr = g.cmd.Wait()
		close(g.exited)
	}()
	t.Cleanup(func() {
		g.cmd.Process.Kill()
		<-g.exited
	})
	return g
}

// waitUntil polls cond until it holds, failing the test after limit or if
// the command exits first.
func (g *streamingGen) waitUntil(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		select {
		case <-g.exited:
			t.Fatalf("gen exited (%v) before %s; stderr %q", g.waitErr, what, g.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("gen was not %s after %v; stderr %q", what, limit, g.stderr.String())
		}
	}
}

// interrupt sends sig and checks that gen exits within signalBound with
// exit status 128 plus the signal's number.
func (g *streamingGen) interrupt(t *testing.T, sig syscall.Signal) {
	t.Helper()
	sent := time.Now()
	if err := g.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-g.exited:
	case <-time.After(60 * time.Second):
		t.Fatalf("gen did not exit within 60 s of %v; stderr %q", sig, g.stderr.String())
	}
	took := time.Since(sent)
	var exit *exec.ExitError
	if !errors.As(g.waitErr, &exit) {
		t.Fatalf("gen ended with %v after %v, want an exit status", g.waitErr, sig)
	}
	t.Logf("%v: exit status %d after %v", sig, exit.ExitCode(), took.Round(time.Millisecond))
	if took > signalBound || exit.ExitCode() != 128+int(sig) {
		t.Errorf("%v: exit status %d after %v; want %d within %v; stderr %q",
			sig, exit.ExitCode(), took, 128+int(sig), signalBound, g.stderr.String())
	}
}

// startCLITest builds the command-line tool and starts an etcd server, or
// skips the test in -short mode.
func startCLITest(t *testing.T) (bin string, srv *server) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the command-line tool")
	}
	return buildCLI(t), startServer(t)
}

// checkIDs checks that every whole line gen printed is a SCRU64 ID and
// that they increase.
func (g *streamingGen) checkIDs(t *testing.T) {
	t.Helper()
	out := g.stdout.String()
	if !strings.HasSuffix(out, "\n") {
		t.Errorf("the output ends in a partial line: %q", out[max(0, len(out)-20):])
	}
	var prev scru64.ID
	for line := range strings.Lines(out) {
		id, err := scru64.Parse(strings.TrimSuffix(line, "\n"))
		if err != nil || id <= prev {
			t.Fatalf("line %q after %s: %v", line, prev, err)
		}
		prev = id
	}
}

// TestCLISignalAfterLostLease: gen -etcd -stream behind a partition reports
// the lost lease and then tries to give the node ID back through the same
// partition; SIGINT must end it within signalBound with status 130 all the
// same.
func TestCLISignalAfterLostLease(t *testing.T) {
	bin, srv := startCLITest(t)
	p, endpoint := startProxy(t, srv.endpoint)
	g := startStreamingGen(t, bin, endpoint, "-etcd-ttl", "3s")

	p.cut.Store(true)
	// With a TTL of 3 s the lease is lost some 2.5 s after the last
	// keep-alive answered.
	g.waitUntil(t, 30*time.Second, "reporting the lost lease", func() bool {
		return strings.Contains(g.stderr.String(), "lease lost")
	})
	g.interrupt(t, syscall.SIGINT)
	g.checkIDs(t)
}

// TestCLISignalBeforeLostLease: the same partition, but SIGINT and SIGTERM
// come while the lease still holds, when gen may be waiting for etcd to
// raise its bound and will try to store its last ID through the partition.
// It must say that it could not give the node ID back, and etcd must agree:
// the holder key is still there.
func TestCLISignalBeforeLostLease(t *testing.T) {
	bin, srv := startCLITest(t)
	c := newClient(t, srv.endpoint)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		p, endpoint := startProxy(t, srv.endpoint)
		g := startStreamingGen(t, bin, endpoint)
		p.cut.Store(true)
		time.Sleep(2 * time.Second) // well inside the 10-s TTL
		g.interrupt(t, sig)
		if strings.Contains(g.stderr.String(), "lease lost") {
			t.Errorf("%v: the lease was reported lost before the signal: %q", sig, g.stderr.String())
		}
		g.checkIDs(t)
		checkStderr(t, sig.String(), g.stderr.String())
		first := scru64.MustParse(strings.Fields(g.stdout.String())[0])
		holder := fmt.Sprintf("/scru64/node/%07d", first.NodeCtr()>>8)
		if !strings.Contains(g.stderr.String(), "giving the node ID back") || !slices.Contains(holderKeys(t, c, "/scru64/"), holder) {
			t.Errorf("%v: stderr %q, holder keys %q: want it to say the node ID was not given back, and %s still there",
				sig, g.stderr.String(), holderKeys(t, c, "/scru64/"), holder)
		}
	}
}

// TestCLISignalWithEtcdReachable: with etcd answering, SIGINT ends the
// stream at once and quietly, the node ID is given back with the last ID
// recorded, and the next run continues after it under the same node ID.
func TestCLISignalWithEtcdReachable(t *testing.T) {
	bin, srv := startCLITest(t)
	g := startStreamingGen(t, bin, srv.endpoint)
	g.interrupt(t, syscall.SIGINT)
	if g.stderr.String() != "" {
		t.Errorf("stderr %q, want nothing", g.stderr.String())
	}
	g.checkIDs(t)
	lines := strings.Fields(g.stdout.String())
	last := scru64.MustParse(lines[len(lines)-1])
	c := newClient(t, srv.endpoint)
	if held := holderKeys(t, c, "/scru64/"); len(held) != 0 {
		t.Errorf("the node ID was not given back: holder keys %q", held)
	}
	if record, _ := readRecord(t, c, recordKeyOf("/scru64/", uint32(last.NodeCtr()>>8))); record != last {
		t.Errorf("the record is %v, not the last ID printed, %v", record, last)
	}

	ids, err := runGen(t, bin, srv.endpoint, "-n", "10", "-etcd-size", "16")
	if err != nil {
		t.Fatal(err)
	}
	if ids[0].NodeCtr()>>8 != last.NodeCtr()>>8 || ids[0] <= last {
		t.Errorf("the next run starts at %s, not after %s under the same node ID", ids[0], last)
	}
}

// TestCLISignalWhileLeasing: behind a partition from the start, gen waits
// for etcd to lease it a node ID; SIGINT ends that wait too.
func TestCLISignalWhileLeasing(t *testing.T) {
	bin, srv := startCLITest(t)
	p, endpoint := startProxy(t, srv.endpoint)
	p.cut.Store(true)
	g := startStream(t, bin, endpoint)
	time.Sleep(time.Second)
	g.interrupt(t, syscall.SIGINT)
	if out := g.stdout.String(); out != "" {
		t.Errorf("printed %q without a node ID", out)
	}
}

// slowReader reads a pipe slowly (256 bytes every 50 ms, 5 KiB/s), or
// not at all while stalled, until told to hurry; then at full speed to its
// end.
type slowReader struct {
	out     syncBuffer
	stall   atomic.Bool
	hurry   atomic.Bool
	drained chan struct{}
}

func readSlowly(r *os.File) *slowReader {
	s := &slowReader{drained: make(chan struct{})}
	go func() {
		defer close(s.drained)
		defer r.Close()
		buf := make([]byte, 64<<10)
		for {
			chunk := buf
			if !s.hurry.Load() {
				time.Sleep(50 * time.Millisecond)
				if s.stall.Load() {
					continue
				}
				chunk = buf[:256]
			}
			n, err := r.Read(chunk)
			s.out.Write(chunk[:n])
			if err != nil {
				return
			}
		}
	}()
	return s
}

// TestCLISignalWithASlowReader: gen -etcd writes faster than its reader
// takes the lines, so it spends its time blocked writing to a full pipe;
// when the signal comes the reader goes on slowly, or stops reading.
// SIGINT or SIGTERM must end gen within signalBound all the same, with
// whole lines only; and what it says must be what etcd holds: when it says
// nothing, the node ID was given back (no holder key, the record is the
// last ID printed); when it says it was not given back, the holder key is
// still there (until its lease expires), and the record covers every ID
// printed.
func TestCLISignalWithASlowReader(t *testing.T) {
	bin, srv := startCLITest(t)
	c := newClient(t, srv.endpoint)
	for run, tc := range []struct {
		sig   syscall.Signal
		stall bool
	}{{syscall.SIGINT, false}, {syscall.SIGTERM, false}, {syscall.SIGINT, true}, {syscall.SIGTERM, true}} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "gen", "-format", "scru64", "-etcd", srv.endpoint, "-etcd-prefix", "/slow/", "-etcd-size", "4", "-etcd-ttl", "3s", "-stream")
		cmd.Env = cliEnv(nil)
		var stderr syncBuffer
		cmd.Stdout, cmd.Stderr = w, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		w.Close()
		reader := readSlowly(r)
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		// The tool fills the pipe at once; let the reader take a little.
		for deadline := time.Now().Add(20 * time.Second); len(reader.out.String()) < 1<<10; {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("run %d printed %d bytes in 20 s; stderr %q", run, len(reader.out.String()), stderr.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(300 * time.Millisecond)
		reader.stall.Store(tc.stall)
		if tc.stall { // for a tool that waits for its reader: not forever
			time.AfterFunc(3*time.Second, func() { reader.hurry.Store(true) })
		}
		sent := time.Now()
		cmd.Process.Signal(tc.sig)
		var waitErr error
		select {
		case waitErr = <-exited:
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("run %d: no exit within 60 s of %v", run, tc.sig)
		}
		took := time.Since(sent)
		reader.hurry.Store(true)
		<-reader.drained
		var exit *exec.ExitError
		if !errors.As(waitErr, &exit) || exit.ExitCode() != 128+int(tc.sig) || took > signalBound {
			t.Errorf("run %d: %v after %v, want exit status %d within %v; stderr %q", run, waitErr, took, 128+int(tc.sig), signalBound, stderr.String())
		}
		out := reader.out.String()
		if !strings.HasSuffix(out, "\n") {
			t.Fatalf("run %d: the output ends in a partial line: %q", run, out[max(0, len(out)-20):])
		}
		lines := strings.Fields(out)
		last, err := scru64.Parse(lines[len(lines)-1])
		if err != nil {
			t.Fatal(err)
		}
		nodeID := last.NodeCtr() >> 20
		holder := holderKeys(t, c, "/slow/")
		record, _ := readRecord(t, c, recordKeyOf("/slow/", nodeID))
		t.Logf("run %d (%v, stalled %v): exit after %v, %d lines, last %v, record %v, holder keys %q, stderr %q",
			run, tc.sig, tc.stall, took.Round(time.Millisecond), len(lines), last, record, holder, stderr.String())
		checkStderr(t, "a slow reader", stderr.String())
		switch {
		case stderr.String() != "":
			if !strings.Contains(stderr.String(), "back") || len(holder) == 0 || record < last {
				t.Errorf("run %d: stderr %q, but the holder keys are %q and the record is %v for the last ID printed %v",
					run, stderr.String(), holder, record, last)
			}
			waitFree(t, c, "/slow/")
		case len(holder) != 0 || record != last:
			t.Errorf("run %d: nothing said, so the node ID should be back: holder keys %q, record %v, last ID printed %v",
				run, holder, record, last)
			waitFree(t, c, "/slow/")
		}
	}
}

// waitFree waits until no holder key is left under prefix.
func waitFree(t *testing.T, c *clientv3.Client, prefix string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); len(holderKeys(t, c, prefix)) != 0; {
		if time.Now().After(deadline) {
			t.Fatalf("holder keys under %q are still there after 30 s", prefix)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
