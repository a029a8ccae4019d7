package etcdnode_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fastid/scru128/scru64"
)

// buildCLI returns the command-line tool of this repository, scru128,
// built as a user of the repository builds it (go build -o DIR/
// ./cmd/scru128 ./cmd/scru128/scru128-etcd at its root) beside
// scru128-etcd, once per test binary, into a directory TestMain removes.
// scru128 links no etcd client: it hands each gen -etcd run over to
// scru128-etcd (by exec, keeping its pid), so that every test here goes
// through that hand-over, signals included.
func buildCLI(t *testing.T) string {
	t.Helper()
	cli.once.Do(func() {
		dir, err := os.MkdirTemp("", "scru128-cli-")
		if err != nil {
			cli.err = err
			return
		}
		cli.dir, cli.bin = dir, filepath.Join(dir, "scru128")
		build := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "./cmd/scru128", "./cmd/scru128/scru128-etcd")
		build.Dir = filepath.Join("..", "..")
		if out, err := build.CombinedOutput(); err != nil {
			cli.err = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if cli.err != nil {
		t.Fatalf("building the command-line tool: %v", cli.err)
	}
	return cli.bin
}

// cli is the command-line tool buildCLI built.
var cli struct {
	once     sync.Once
	dir, bin string
	err      error
}

// TestMain removes the command-line tool buildCLI built, if any.
func TestMain(m *testing.M) {
	status := m.Run()
	if cli.dir != "" {
		os.RemoveAll(cli.dir)
	}
	os.Exit(status)
}

// runGen runs `scru128 gen -format scru64 -etcd endpoint` with args and
// returns the IDs it printed, or its exit status and stderr as an error.
func runGen(t *testing.T, bin, endpoint string, args ...string) ([]scru64.ID, error) {
	t.Helper()
	r := runCLI(t, bin, nil, append([]string{"gen", "-format", "scru64", "-etcd", endpoint}, args...)...)
	if r.status != 0 {
		return nil, fmt.Errorf("exit status %d: %s", r.status, strings.TrimSpace(r.stderr))
	}
	return r.ids(t), nil
}

// TestCLIMintsUnderLeasedNodeIDs runs the command-line tool's gen -etcd
// against a real etcd: runs at once take distinct node IDs, runs one after
// another continue after the last ID of the node ID they reuse, and no ID
// repeats.
func TestCLIMintsUnderLeasedNodeIDs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command-line tool")
	}
	bin := buildCLI(t)
	srv := startServer(t)

	var mu sync.Mutex
	var all []scru64.ID
	add := func(ids []scru64.ID) {
		mu.Lock()
		defer mu.Unlock()
		all = append(all, ids...)
	}
	checkRun := func(ids []scru64.ID, n int) {
		t.Helper()
		if len(ids) != n {
			t.Fatalf("printed %d IDs, want %d", len(ids), n)
		}
		for i := 1; i < len(ids); i++ {
			if ids[i] <= ids[i-1] {
				t.Fatalf("%s after %s within one run", ids[i], ids[i-1])
			}
		}
	}

	// Runs one after another reuse node ID 0 and continue after each other.
	var last scru64.ID
	for range 3 {
		ids, err := runGen(t, bin, srv.endpoint, "-n", "5000", "-etcd-size", "4")
		if err != nil {
			t.Fatal(err)
		}
		checkRun(ids, 5000)
		if got := ids[0].NodeCtr() >> 20; got != 0 {
			t.Fatalf("a lone run took node ID %d, want the lowest, 0", got)
		}
		if ids[0] <= last {
			t.Fatalf("a run started at %s, not after the previous run's last ID %s", ids[0], last)
		}
		last = ids[len(ids)-1]
		add(ids)
	}

	// Runs at once take distinct node IDs: streams, all printing before
	// any is stopped.
	const runs = 4
	var streams []*streamingGen
	for range runs {
		streams = append(streams, startStreamWith(t, bin, nil, "-etcd", srv.endpoint, "-etcd-prefix", "/cli-at-once/"))
	}
	nodeIDs := make([]uint32, runs)
	for i, g := range streams {
		g.waitUntil(t, 20*time.Second, "printing IDs", func() bool { return strings.Count(g.stdout.String(), "\n") >= 100 })
		id, err := scru64.Parse(strings.Fields(g.stdout.String())[0])
		if err != nil {
			t.Fatal(err)
		}
		nodeIDs[i] = id.NodeCtr() >> 8
	}
	for _, g := range streams {
		g.interrupt(t, syscall.SIGINT)
		g.checkIDs(t)
		var ids []scru64.ID
		for _, line := range strings.Fields(g.stdout.String()) {
			ids = append(ids, scru64.MustParse(line))
		}
		add(ids)
	}
	if slices.Sort(nodeIDs); len(slices.Compact(nodeIDs)) != runs {
		t.Fatalf("runs at once shared node IDs: %v", nodeIDs)
	}
	slices.Sort(all)
	if len(slices.Compact(slices.Clone(all))) != len(all) {
		t.Fatal("an ID was printed twice")
	}

	// The realm has node ID size 4: another size is a usage error (exit 2).
	cmd := exec.Command(bin, "gen", "-format", "scru64", "-etcd", srv.endpoint, "-etcd-size", "8")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(stderr.String(), "size") {
		t.Fatalf("another node ID size: %v, stderr %q; want exit status 2 naming the size", err, stderr.String())
	}
}

// TestCLISaysWhatItWaitsFor: gen -etcd takes a node ID whose record is a
// day ahead of the clock. It has to wait for the clock, and must say so
// on stderr, with how long, rather than wait silently.
func TestCLISaysWhatItWaitsFor(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command-line tool")
	}
	bin := buildCLI(t)
	srv := startServer(t)
	writeFarRecord(t, srv, "/cli-far/", 4, 24*time.Hour)
	g := startGenWith(t, bin, nil, "-etcd", srv.endpoint, "-etcd-prefix", "/cli-far/", "-etcd-size", "4", "-n", "1")
	g.waitUntil(t, 10*time.Second, "saying what it waits for", func() bool { return strings.Contains(g.stderr.String(), "\n") })
	line := g.stderr.String()
	if !strings.Contains(line, "wait") || !strings.Contains(line, "23h59m") {
		t.Fatalf("stderr: %q; want it to say that it waits, and for how long (23h59m...)", line)
	}
	t.Logf("stderr: %s", strings.TrimSpace(line))
}

// TestCLIKilledMidStreamKeepsOrder kills gen -etcd -stream with SIGKILL
// mid-stream, twice, and runs it again once a node ID is free: every ID
// printed by any run is unique, and the run that takes a killed run's node
// ID mints above every ID that run printed.
func TestCLIKilledMidStreamKeepsOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command-line tool")
	}
	bin := buildCLI(t)
	srv := startServer(t)
	var led ledger
	const size = 1 // two node IDs: both killed runs hold one until its lease expires
	args := []string{"-etcd-prefix", "/cli-kill/", "-etcd-size", strconv.Itoa(size), "-etcd-ttl", "3s"}
	for run := range 2 {
		g := startStreamWith(t, bin, nil, append([]string{"-etcd", srv.endpoint}, args...)...)
		g.waitUntil(t, 20*time.Second, "printing IDs", func() bool { return strings.Count(g.stdout.String(), "\n") >= 20_000 })
		if err := g.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		<-g.exited
		// Whole lines already written are printed IDs too; a partial
		// last line was not printed.
		out := g.stdout.String()
		var ids []scru64.ID
		for _, line := range strings.Fields(out[:strings.LastIndexByte(out, '\n')+1]) {
			id, err := scru64.Parse(line)
			if err != nil {
				t.Fatalf("run %d printed %q: %v", run, line, err)
			}
			ids = append(ids, id)
		}
		led.Holder("killed run "+strconv.Itoa(run), uint32(ids[0].NodeCtr()>>(24-size)), size).Add(ids...)
	}
	// Both node IDs stay held until the killed runs' leases expire (their
	// TTL is 3 s); a run then takes the first one freed.
	var ids []scru64.ID
	for deadline := time.Now().Add(20 * time.Second); ; {
		var err error
		ids, err = runGen(t, bin, srv.endpoint, append(args, "-n", "5000")...)
		if err == nil {
			break
		}
		if !strings.Contains(err.Error(), "no free node ID") || time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	led.Holder("run after the kills", uint32(ids[0].NodeCtr()>>(24-size)), size).Add(ids...)
	led.Check(t)
}
