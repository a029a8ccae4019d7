package etcdnode_test

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fastid/scru128/scru64"
)

// buildCLI builds the command-line tool in the root module, as a user of
// the repository builds it, into a temporary directory.
func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "scru128")
	build := exec.Command("go", "build", "-o", bin, "./cmd/scru128")
	build.Dir = filepath.Join("..", "..")
	out, err := build.CombinedOutput()
	if err != nil {
		t.Fatalf("building the command-line tool: %v\n%s", err, out)
	}
	return bin
}

// runGen runs `scru128 gen -format scru64 -etcd endpoint` with args and
// returns the IDs it printed.
func runGen(t *testing.T, bin, endpoint string, args ...string) ([]scru64.ID, error) {
	cmd := exec.Command(bin, append([]string{"gen", "-format", "scru64", "-etcd", endpoint}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, errors.New(err.Error() + ": " + strings.TrimSpace(stderr.String()))
	}
	var ids []scru64.ID
	for line := range strings.Lines(stdout.String()) {
		id, err := scru64.Parse(strings.TrimSpace(line))
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
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

	// Runs at once take distinct node IDs.
	const runs = 4
	var wg sync.WaitGroup
	nodeIDs := make([]uint32, runs)
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids, err := runGen(t, bin, srv.endpoint, "-n", "20000", "-etcd-size", "4")
			if err != nil {
				t.Error(err)
				return
			}
			if len(ids) != 20000 {
				t.Errorf("a concurrent run printed %d IDs", len(ids))
				return
			}
			nodeIDs[i] = ids[0].NodeCtr() >> 20
			add(ids)
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	if slices.Sort(nodeIDs); len(slices.Compact(nodeIDs)) != runs {
		t.Fatalf("concurrent runs shared node IDs: %v", nodeIDs)
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
