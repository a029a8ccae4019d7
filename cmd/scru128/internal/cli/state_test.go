//go:build unix && !aix

package cli

// Tests of the -state file against what else can touch it: other runs at
// once (through other paths to it), SIGKILL, symbolic links, a file emptied
// or cut short, the umask, files that are not regular. They run the built
// binary, as separate processes.

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fastid/scru128/scru64"
	"golang.org/x/sys/unix"
)

// genRun is a gen process started by startGen.
type genRun struct {
	cmd         *exec.Cmd
	path        string // the -state path it was given
	out, errOut bytes.Buffer
}

// startGen starts gen -format scru64 -state path with args.
func startGen(t *testing.T, path string, args ...string) *genRun {
	t.Helper()
	r := &genRun{path: path}
	r.cmd = exec.Command(builtBinary(t), append([]string{"gen", "-format", "scru64", "-state", path}, args...)...)
	r.cmd.Stdout, r.cmd.Stderr = &r.out, &r.errOut
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return r
}

// wait waits for the run to end (killing it after 20 s) and returns the
// IDs it printed whole: a line a kill cut short has no newline.
func (r *genRun) wait(t *testing.T) []string {
	t.Helper()
	waitFor(t, r.cmd, 20*time.Second)
	out := r.out.String()
	if i := strings.LastIndexByte(out, '\n'); i >= 0 {
		return strings.Fields(out[:i+1])
	}
	return nil
}

// killed reports whether SIGKILL ended the run.
func (r *genRun) killed() bool {
	ws, ok := r.cmd.ProcessState.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// refusedAsInUse reports whether the run ended as a run must that finds
// its state file locked: status 1, nothing on stdout, one line on stderr
// naming the file as it was given.
func (r *genRun) refusedAsInUse() bool {
	msg := r.errOut.String()
	return r.cmd.ProcessState.ExitCode() == 1 && r.out.Len() == 0 && strings.Count(msg, "\n") == 1 &&
		strings.HasPrefix(msg, "scru128: the state file "+r.path+" ") && strings.Contains(msg, " is in use by another run")
}

// statePaths makes a directory a/ for a state file node.spec and returns
// four paths to it: the file's own, a symbolic link to it beside a/, the
// file through a link to its directory, and a path through "..".
func statePaths(t *testing.T) (real string, paths []string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	real = filepath.Join(dir, "a", "node.spec")
	if err := os.Symlink(filepath.Join("a", "node.spec"), filepath.Join(dir, "link.spec")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a", filepath.Join(dir, "b")); err != nil {
		t.Fatal(err)
	}
	return real, []string{
		real,
		filepath.Join(dir, "link.spec"),
		filepath.Join(dir, "b", "node.spec"),
		dir + "/a/../a/node.spec",
	}
}

// addUnique adds ids to seen, failing the test on one seen before.
func addUnique(t *testing.T, seen map[string]string, ids []string, by string) {
	t.Helper()
	for _, id := range ids {
		if _, err := scru64.Parse(id); err != nil {
			t.Fatalf("%s printed %q: %v", by, id, err)
		}
		if prev, dup := seen[id]; dup {
			t.Fatalf("%s repeats %s, which %s printed", by, id, prev)
		}
		seen[id] = by
	}
}

// TestBinaryStateSecondRunFailsAtOnce: while one run holds the state file,
// another on it, by any path, fails at once with status 1 and a message
// naming the file; the holder goes on undisturbed.
func TestBinaryStateSecondRunFailsAtOnce(t *testing.T) {
	real, paths := statePaths(t)
	holder := exec.Command(builtBinary(t), "gen", "-format", "scru64", "-state", real, "-node", "42/8", "-stream")
	stdout, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var holderErr bytes.Buffer
	holder.Stderr = &holderErr
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer holder.Process.Kill()
	// Its first line shows it holds the file; then it is drained, so that
	// it is not held up writing.
	out := bufio.NewReader(stdout)
	if _, err := out.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	go out.WriteTo(io.Discard)
	for _, path := range paths {
		start := time.Now()
		second := startGen(t, path, "-node", "42/8", "-n", "10")
		second.wait(t)
		took := time.Since(start)
		if !second.refusedAsInUse() || took > 5*time.Second {
			t.Errorf("a second run through %s: status %d after %v, stdout %.60q, stderr %q",
				path, second.cmd.ProcessState.ExitCode(), took, second.out.String(), second.errOut.String())
		}
	}
	holder.Process.Signal(syscall.SIGINT)
	waitFor(t, holder, 10*time.Second)
	if status := holder.ProcessState.ExitCode(); status != 130 || holderErr.Len() != 0 {
		t.Errorf("the holder: status %d, stderr %q", status, holderErr.String())
	}
}

// TestBinaryStateConcurrentRunsNeverRepeat: runs started at once on one
// state file, through its four paths, several rounds: every ID printed is
// unique, and each run either prints all its IDs or is refused.
func TestBinaryStateConcurrentRunsNeverRepeat(t *testing.T) {
	const rounds, n = 4, 20000
	_, paths := statePaths(t)
	seen := make(map[string]string)
	refused := 0
	for round := range rounds {
		var runs []*genRun
		for _, path := range paths {
			runs = append(runs, startGen(t, path, "-node", "42/8", "-n", fmt.Sprint(n)))
		}
		for i, r := range runs {
			ids := r.wait(t)
			switch {
			case r.cmd.ProcessState.ExitCode() == 0 && len(ids) == n && r.errOut.Len() == 0:
				addUnique(t, seen, ids, fmt.Sprintf("round %d run %d (%s)", round, i, r.path))
			case r.refusedAsInUse():
				refused++
			default:
				t.Fatalf("round %d run %d (%s): status %d, %d IDs, stderr %q",
					round, i, r.path, r.cmd.ProcessState.ExitCode(), len(ids), r.errOut.String())
			}
		}
	}
	t.Logf("%d IDs, %d of %d runs refused", len(seen), refused, rounds*len(paths))
}

// TestBinaryStateKilledAtRandomPoints: rounds of runs started at once on
// one state file through its paths, each killed with SIGKILL at a random
// point, then a clean run: no ID is printed twice, a kill never leaves the
// file locked, and the runs not killed succeed or are refused as in use.
// The 12-bit counter runs the IDs ahead of the clock, so a run that
// started from the clock instead of the file would land among them.
func TestBinaryStateKilledAtRandomPoints(t *testing.T) {
	const rounds = 10
	real, paths := statePaths(t)
	seen := make(map[string]string)
	kills := 0
	for round := range rounds {
		var runs []*genRun
		for _, path := range paths {
			runs = append(runs, startGen(t, path, "-node", "42/12", "-n", "5000000"))
		}
		for _, r := range runs {
			go func(p *os.Process, after time.Duration) {
				time.Sleep(after)
				p.Signal(syscall.SIGKILL)
			}(r.cmd.Process, rand.N(400*time.Millisecond))
		}
		for i, r := range runs {
			ids := r.wait(t)
			by := fmt.Sprintf("round %d run %d (%s)", round, i, r.path)
			switch {
			case r.killed():
				kills++
				addUnique(t, seen, ids, by)
			case r.refusedAsInUse():
			default:
				t.Fatalf("%s: %v, %d IDs, stderr %q", by, r.cmd.ProcessState, len(ids), r.errOut.String())
			}
		}
	}
	last := startGen(t, paths[1], "-n", "3000")
	ids := last.wait(t)
	if last.cmd.ProcessState.ExitCode() != 0 || len(ids) != 3000 || last.errOut.Len() != 0 {
		t.Fatalf("the run after the kills: status %d, %d IDs, stderr %q", last.cmd.ProcessState.ExitCode(), len(ids), last.errOut.String())
	}
	addUnique(t, seen, ids, "the run after the kills")
	if spec := readSpec(t, real); spec.NodeID() != 42 || spec.NodeIDSize() != 12 || spec.NodePrev().String() != ids[len(ids)-1] {
		t.Errorf("the state file holds %v after %s", spec, ids[len(ids)-1])
	}
	// What killed runs left behind of their writes is gone too.
	entries, _ := os.ReadDir(filepath.Dir(real))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"node.spec", "node.spec.lock"}) {
		t.Errorf("the directory holds %q", names)
	}
	t.Logf("%d IDs from %d killed runs", len(seen), kills)
}

// TestBinaryStateThroughSymlinks: a state file given as a symbolic link is
// the link's target, replaced in its own directory; the link stays a link,
// and a run through the target continues after the IDs printed through
// the link. A link to a file not there yet makes the file.
func TestBinaryStateThroughSymlinks(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"data", "conf"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	target := filepath.Join(dir, "data", "node.spec")
	link := filepath.Join(dir, "conf", "node.spec")
	chain := filepath.Join(dir, "chain.spec") // a link to the link
	if err := os.Symlink("../data/node.spec", link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("conf", "node.spec"), chain); err != nil {
		t.Fatal(err)
	}
	seen := make(map[string]string)
	for i, path := range []string{link, chain, target, link} {
		args := []string{"-n", "1000"}
		if i == 0 { // the target does not exist yet
			args = append(args, "-node", "42/8")
		}
		r := startGen(t, path, args...)
		ids := r.wait(t)
		if r.cmd.ProcessState.ExitCode() != 0 || len(ids) != 1000 || r.errOut.Len() != 0 {
			t.Fatalf("run %d through %s: status %d, %d IDs, stderr %q", i, path, r.cmd.ProcessState.ExitCode(), len(ids), r.errOut.String())
		}
		addUnique(t, seen, ids, fmt.Sprintf("run %d through %s", i, path))
		if to, err := os.Readlink(link); err != nil || to != "../data/node.spec" {
			t.Fatalf("after run %d the link %s reads %q, %v", i, link, to, err)
		}
		if to, err := os.Readlink(chain); err != nil || to != filepath.Join("conf", "node.spec") {
			t.Fatalf("after run %d the link %s reads %q, %v", i, chain, to, err)
		}
		if info, err := os.Lstat(target); err != nil || !info.Mode().IsRegular() {
			t.Fatalf("after run %d the target is %v, %v", i, info, err)
		}
		if spec := readSpec(t, target); spec.NodePrev().String() != ids[len(ids)-1] {
			t.Fatalf("after run %d the target holds %v, the last ID was %s", i, spec, ids[len(ids)-1])
		}
	}
	// Nothing was made beside the links: the temporary files and the
	// lock file are the target's.
	for _, d := range []string{"conf", "data"} {
		entries, _ := os.ReadDir(filepath.Join(dir, d))
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		want := map[string][]string{"conf": {"node.spec"}, "data": {"node.spec", "node.spec.lock"}}[d]
		if !slices.Equal(names, want) {
			t.Errorf("%s/ holds %q, want %q", d, names, want)
		}
	}
	// A loop of links is no state file.
	loop := filepath.Join(dir, "loop.spec")
	os.Symlink("loop.spec", loop)
	r := startGen(t, loop, "-node", "42/8", "-n", "1")
	r.wait(t)
	if r.cmd.ProcessState.ExitCode() != 1 || r.out.Len() != 0 || !strings.HasPrefix(r.errOut.String(), "scru128: the state file "+loop+": ") {
		t.Errorf("a loop of links: status %d, stdout %q, stderr %q", r.cmd.ProcessState.ExitCode(), r.out.String(), r.errOut.String())
	}
}

// TestBinaryEmptiedStateFile: a state file emptied (by an editor, a full
// disk, a hand) after a run that burst ahead of the clock is an error,
// with -node or without; read as no state, a run with -node would start
// from the clock among the IDs already printed.
func TestBinaryEmptiedStateFile(t *testing.T) {
	state := filepath.Join(t.TempDir(), "node.spec")
	first := startGen(t, state, "-node", "42/12", "-n", "60000")
	firstIDs := first.wait(t)
	if first.cmd.ProcessState.ExitCode() != 0 || len(firstIDs) != 60000 {
		t.Fatalf("the first run: status %d, %d IDs, stderr %q", first.cmd.ProcessState.ExitCode(), len(firstIDs), first.errOut.String())
	}
	printed := make(map[string]bool, len(firstIDs))
	for _, id := range firstIDs {
		printed[id] = true
	}
	for _, content := range []string{"", "\n", " \n"} {
		if err := os.WriteFile(state, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"-node", "42/12", "-n", "60000"}, {"-n", "60000"}} {
			r := startGen(t, state, args...)
			ids := r.wait(t)
			repeats := 0
			for _, id := range ids {
				if printed[id] {
					repeats++
				}
			}
			if r.cmd.ProcessState.ExitCode() != 1 || len(ids) != 0 || r.errOut.String() != "scru128: the state file "+state+" is empty"+emptyAdvice+"\n" {
				t.Errorf("a state file holding %q, %q: status %d, %d IDs (%d repeated), stderr %q",
					content, args, r.cmd.ProcessState.ExitCode(), len(ids), repeats, r.errOut.String())
			}
		}
	}
}

// emptyAdvice follows "the state file F is empty" in gen's message.
const emptyAdvice = ": gen never leaves it so, and without the spec it kept a run may repeat IDs (delete the file only once the clock is past every ID of the node)"

// TestBinaryTruncatedStateFile: every spec gen writes ends with a newline,
// so a file cut short anywhere is told from a whole one, even where what
// is left still reads as a spec: 0w6rx8czyhhb/1 of 0w6rx8czyhhb/16 names
// node 0/1, which covers the IDs of every node of a longer node ID whose
// top bit is 0.
func TestBinaryTruncatedStateFile(t *testing.T) {
	state := filepath.Join(t.TempDir(), "node.spec")
	whole := "0w6rx8czyhhb/16\n"
	for k := 1; k < len(whole); k++ {
		if err := os.WriteFile(state, []byte(whole[:k]), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"-n", "5"}, {"-node", "0x2aff/16", "-n", "5"}} {
			r := startGen(t, state, args...)
			ids := r.wait(t)
			want := "scru128: the state file " + state + " is cut short: it does not end with a newline, as every spec gen writes does\n"
			if r.cmd.ProcessState.ExitCode() != 1 || len(ids) != 0 || r.errOut.String() != want {
				t.Errorf("a state file holding %q, %q: status %d, IDs %q, stderr %q",
					whole[:k], args, r.cmd.ProcessState.ExitCode(), ids, r.errOut.String())
			}
		}
	}
	// Whole, it is used as written, with no -node.
	os.WriteFile(state, []byte(whole), 0o644)
	r := startGen(t, state, "-n", "5")
	ids := r.wait(t)
	if r.cmd.ProcessState.ExitCode() != 0 || len(ids) != 5 || ids[0] <= "0w6rx8czyhhb" {
		t.Fatalf("the whole file: status %d, IDs %q, stderr %q", r.cmd.ProcessState.ExitCode(), ids, r.errOut.String())
	}
	if spec := readSpec(t, state); spec.NodeID() != 0x2aff || spec.NodeIDSize() != 16 {
		t.Errorf("the whole file now holds %v", spec)
	}
}

// TestBinaryStateFileModes: a new state file, and its lock file, get 0666
// less the umask, as a file made by os.Create or a shell's > does; a
// state file that exists keeps its mode.
func TestBinaryStateFileModes(t *testing.T) {
	for umask, want := range map[string]fs.FileMode{"077": 0o600, "022": 0o644, "002": 0o664, "027": 0o640} {
		state := filepath.Join(t.TempDir(), "node.spec")
		genUnderUmask(t, umask, state, "-node", "42/8", "-n", "3")
		for _, path := range []string{state, state + ".lock"} {
			if mode, err := fileMode(path); err != nil || mode != want {
				t.Errorf("umask %s: %s is %v, %v; want %v", umask, filepath.Base(path), mode, err, want)
			}
		}
		// Rewritten, under another umask, it keeps its mode.
		genUnderUmask(t, "000", state, "-n", "3")
		if mode, err := fileMode(state); err != nil || mode != want {
			t.Errorf("umask %s, rerun under umask 000: %v, %v; want %v", umask, mode, err, want)
		}
	}
	state := filepath.Join(t.TempDir(), "node.spec")
	os.WriteFile(state, []byte("42/8\n"), 0o600)
	os.Chmod(state, 0o604)
	genUnderUmask(t, "077", state, "-n", "3")
	if mode, err := fileMode(state); err != nil || mode != 0o604 {
		t.Errorf("a file of mode 0604 became %v, %v", mode, err)
	}
}

// fileMode returns the mode of the file at path, not following a link.
func fileMode(path string) (fs.FileMode, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return 0, err
	}
	return info.Mode(), nil
}

// genUnderUmask runs gen -format scru64 -state path with args under the
// umask, through sh, and fails the test unless it succeeds.
func genUnderUmask(t *testing.T, umask, path string, args ...string) {
	t.Helper()
	cmd := exec.Command("sh", append([]string{"-c", `umask "$0" && exec "$@"`, umask, builtBinary(t),
		"gen", "-format", "scru64", "-state", path}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("umask %s: %v\n%s", umask, err, out)
	}
}

// TestBinaryStateFileNotARegularFile: a directory, a FIFO or a file with a
// second hard link (which replacing it would part) is no state file; gen
// says so at once, without blocking on the FIFO or touching any of them.
func TestBinaryStateFileNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	linked := filepath.Join(dir, "linked.spec")
	os.WriteFile(linked, []byte("42/8\n"), 0o644)
	if err := os.Link(linked, filepath.Join(dir, "other.spec")); err != nil {
		t.Fatal(err)
	}
	for path, why := range map[string]string{
		fifo:   "is not a regular file (a named pipe)",
		sub:    "is not a regular file (a directory)",
		linked: "has 2 hard links: replacing it would part them (keep one name; a symbolic link is followed)",
	} {
		r := startGen(t, path, "-node", "42/8", "-n", "3")
		r.wait(t)
		if want := "scru128: the state file " + path + " " + why + "\n"; r.cmd.ProcessState.ExitCode() != 1 || r.out.Len() != 0 || r.errOut.String() != want {
			t.Errorf("%s: status %d, stdout %q, stderr %q, want %q", path, r.cmd.ProcessState.ExitCode(), r.out.String(), r.errOut.String(), want)
		}
	}
	if locks, _ := filepath.Glob(filepath.Join(dir, "*.lock")); len(locks) != 0 {
		t.Errorf("lock files were made for files refused: %q", locks)
	}
	if info, err := os.Lstat(fifo); err != nil || info.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is now %v, %v", info, err)
	}
	if data, err := os.ReadFile(linked); err != nil || string(data) != "42/8\n" {
		t.Errorf("the hard-linked file now holds %q, %v", data, err)
	}
	if os.Geteuid() == 0 {
		t.Log("running as root: an unreadable file is not tried")
		return
	}
	unreadable := filepath.Join(dir, "unreadable.spec")
	os.WriteFile(unreadable, []byte("42/8\n"), 0o200)
	r := startGen(t, unreadable, "-n", "3")
	r.wait(t)
	if r.cmd.ProcessState.ExitCode() != 1 || r.out.Len() != 0 || !strings.HasPrefix(r.errOut.String(), "scru128: reading the state file "+unreadable+": ") {
		t.Errorf("an unreadable file: status %d, stdout %q, stderr %q", r.cmd.ProcessState.ExitCode(), r.out.String(), r.errOut.String())
	}
}

// TestBinaryStateFileLinkedDuringARun: a hard link made to the state file
// while a run holds it would keep, under the other name, the file the
// run's next write replaces, with its older mark; a run on that name takes
// another lock. So the run stops at its next write (status 1, naming the
// links) with the file unreplaced, whose mark covers every ID it printed:
// a run on either name is then refused for the two links, and once one
// name is removed, a run on the other repeats no ID. Before, the first run
// went on, and a run on the link repeated some 700,000 IDs.
func TestBinaryStateFileLinkedDuringARun(t *testing.T) {
	dir := t.TempDir()
	state, link := filepath.Join(dir, "node.spec"), filepath.Join(dir, "link.spec")
	first := startGen(t, state, "-node", "42/8", "-stream")
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := os.Stat(state); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := os.Link(state, link); err != nil {
		t.Fatal(err)
	}
	stop := time.AfterFunc(10*time.Second, func() { first.cmd.Process.Signal(syscall.SIGINT) })
	printed := first.wait(t)
	stop.Stop()
	if code := first.cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(first.errOut.String(), "has 2 hard links") || len(printed) == 0 {
		t.Fatalf("the run whose file was linked: status %d, %d IDs, stderr %q; want 1 and the links named", code, len(printed), first.errOut.String())
	}
	refused := startGen(t, link, "-n", "1")
	refused.wait(t)
	if code := refused.cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(refused.errOut.String(), "has 2 hard links") {
		t.Fatalf("a run on the link while both names stand: status %d, stderr %q", code, refused.errOut.String())
	}
	if err := os.Remove(state); err != nil {
		t.Fatal(err)
	}
	second := startGen(t, link, "-n", "100000")
	ids := second.wait(t)
	if code := second.cmd.ProcessState.ExitCode(); code != 0 || len(ids) != 100000 {
		t.Fatalf("the run on the link: status %d, %d IDs, stderr %q", code, len(ids), second.errOut.String())
	}
	last := slices.Max(printed)
	for _, id := range ids {
		if id <= last {
			t.Fatalf("the run on the link printed %s, not after the first run's last ID %s", id, last)
		}
	}
}
