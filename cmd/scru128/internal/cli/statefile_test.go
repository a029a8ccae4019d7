//go:build (unix && !aix) || windows

package cli

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/fastid/scru128/scru64"
)

// symlink makes a symbolic link, or skips the test where the platform or
// the user may not.
func symlink(t *testing.T, to, at string) {
	t.Helper()
	if err := os.Symlink(to, at); err != nil {
		t.Skip("cannot make a symbolic link here:", err)
	}
}

// TestStateLockIsExclusiveByAnyPath: the lock is on the file a path
// leads to, not on the path: while one stateFile holds it, opening the
// same file by its name, through a link, or through a linked directory
// fails at once with errStateInUse; another state file in the same
// directory is free; and close frees the lock.
func TestStateLockIsExclusiveByAnyPath(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "node.spec")
	symlink(t, "node.spec", filepath.Join(dir, "link.spec"))
	symlink(t, ".", filepath.Join(dir, "here"))
	held, err := openStateFile(real)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{real, filepath.Join(dir, "link.spec"), filepath.Join(dir, "here", "here", "node.spec")} {
		s, err := openStateFile(path)
		if !errors.Is(err, errStateInUse) {
			if s != nil {
				s.close()
			}
			t.Fatalf("opening %s while it is held: %v", path, err)
		}
		if want := "the state file " + path; !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), real+".lock") {
			t.Errorf("the error %q does not name %s and its lock file", err, path)
		}
	}
	other, err := openStateFile(filepath.Join(dir, "other.spec"))
	if err != nil {
		t.Fatalf("another state file in the directory: %v", err)
	}
	other.close()
	held.close()
	again, err := openStateFile(filepath.Join(dir, "link.spec"))
	if err != nil {
		t.Fatalf("after close: %v", err)
	}
	again.close()
}

// TestResolveLinksAsTheKernelDoes: a ".." in a link's text is taken after
// what comes before it is resolved, as the kernel takes it, not cleaned
// away against the name before it; a missing last component is allowed.
func TestResolveLinksAsTheKernelDoes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows takes a link's .. lexically, and a link needs a privilege there")
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(root, "x", "y"), 0o755)
	os.WriteFile(filepath.Join(root, "x", "f.spec"), []byte("42/8\n"), 0o644)
	symlink(t, filepath.Join("x", "y"), filepath.Join(root, "l"))
	symlink(t, "l/../f.spec", filepath.Join(root, "up.spec")) // x/y/.. is x
	symlink(t, "l/../new.spec", filepath.Join(root, "dangling.spec"))
	symlink(t, "up.spec", filepath.Join(root, "chain.spec"))
	symlink(t, "loop.spec", filepath.Join(root, "loop.spec"))
	// Paths joined by hand: filepath.Join would clean l/.. away.
	p := func(parts ...string) string {
		return strings.Join(append([]string{root}, parts...), string(filepath.Separator))
	}
	for path, want := range map[string]string{
		p("up.spec"):                   p("x", "f.spec"),
		p("chain.spec"):                p("x", "f.spec"),
		p("dangling.spec"):             p("x", "new.spec"),
		p("l", "..", "f.spec"):         p("x", "f.spec"),
		p("l", "..", "up.spec"):        p("x", "up.spec"), // no link there: x/up.spec is new
		p("x", "f.spec"):               p("x", "f.spec"),
		p("l", "..", "..", "x", "new"): p("x", "new"),
	} {
		got, err := resolveLinks(path)
		if err != nil || got != want {
			t.Errorf("resolveLinks(%s) = %s, %v; want %s", path, got, err, want)
		}
		if err == nil {
			if a, err := os.Stat(path); err == nil {
				if b, err := os.Stat(got); err != nil || !os.SameFile(a, b) {
					t.Errorf("%s and %s are not the same file as the kernel sees them", path, got)
				}
			}
		}
	}
	for _, path := range []string{p("loop.spec"), p("x", ""), p("x", ".."), p("none", "f.spec")} {
		if got, err := resolveLinks(path); err == nil {
			t.Errorf("resolveLinks(%s) = %s, no error", path, got)
		}
	}
}

func TestParseStateFile(t *testing.T) {
	for in, want := range map[string]string{
		"42/8\n":                  "42/8",
		"42/8\r\n":                "42/8",
		" 42/8\t\n":               "42/8",
		"0w6rx8czyhhb/16\n":       "0w6rx8czyhhb/16",
		"0w6rx8czyhhb/1\n":        "0w6rx8czyhhb/1", // as written
		"0xb00/12\n":              "2816/12",
		"":                        "is empty: ",
		"\n":                      "is empty: ",
		" \r\n":                   "is empty: ",
		"42/8":                    "is cut short: ",
		"0w6rx8czyhhb/1":          "is cut short: ",
		"42/8\n\n":                "holds more than one line",
		"42/8\n43/8\n":            "holds more than one line",
		"garbage\n":               `invalid node spec "garbage": `,
		strings.Repeat(" ", 1025): "is not a node spec: it is over 1024 bytes",
	} {
		spec, err := parseStateFile([]byte(in))
		switch {
		case err == nil && spec.String() != want:
			t.Errorf("parseStateFile(%q) = %v, want %s", in, spec, want)
		case err != nil && !strings.HasPrefix(Reason(err), want):
			t.Errorf("parseStateFile(%q): %v, want %q", in, Reason(err), want)
		}
	}
}

// FuzzParseStateFile holds parseStateFile to what a state file is: the
// spec a content reads as is the one ParseNodeSpec reads on its one line,
// and every content it takes ends with a newline, so that no proper
// prefix of what gen writes (spec.String() and a newline) is taken.
func FuzzParseStateFile(f *testing.F) {
	for _, s := range []string{"42/8\n", "0w6rx8czyhhb/16\n", "0w6rx8czyhhb/1", "", "\n", " 42/8 \r\n", "42/8\n43/8\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		spec, err := parseStateFile(data)
		if err != nil {
			if len(data) > 0 && data[len(data)-1] == '\n' && strings.Count(string(data), "\n") == 1 && len(data) <= maxStateFile {
				// One line, whole: refused only if it is no spec.
				if want, werr := scru64.ParseNodeSpec(strings.TrimSpace(string(data))); werr == nil {
					t.Fatalf("parseStateFile(%q): %v, but the line reads as %v", data, err, want)
				}
			}
			return
		}
		line := string(data)
		if len(data) > maxStateFile || !strings.HasSuffix(line, "\n") || strings.Count(line, "\n") != 1 {
			t.Fatalf("parseStateFile(%q) = %v: not one whole line", data, spec)
		}
		if want, err := scru64.ParseNodeSpec(strings.TrimSpace(line)); err != nil || want != spec {
			t.Fatalf("parseStateFile(%q) = %v; ParseNodeSpec of its line gives %v, %v", data, spec, want, err)
		}
		written := spec.String() + "\n"
		if again, err := parseStateFile([]byte(written)); err != nil || again != spec {
			t.Fatalf("what gen writes of %v, %q, reads as %v, %v", spec, written, again, err)
		}
		for k := range len(written) {
			if cut, err := parseStateFile([]byte(written[:k])); err == nil {
				t.Fatalf("%q, cut to %q, reads as %v", written, written[:k], cut)
			}
		}
	})
}

// TestStateFileRemovesOnlyItsOwnStaleTemps: once it holds the lock, a run
// removes the temporary files a killed run on the same state file left,
// and no other file: not another state file's temporary files, which that
// file's own run may be writing.
func TestStateFileRemovesOnlyItsOwnStaleTemps(t *testing.T) {
	dir := t.TempDir()
	stale := []string{".node.spec.1.tmp", ".node.spec.18446744073709551615.tmp"}
	kept := []string{".node.spec.x.1.tmp", ".node.spec.1.1.tmp", ".node.spec..tmp", ".node.spec.1.tmp.old", "node.spec.1.tmp", ".node.spec.1"}
	for _, name := range append(stale, kept...) {
		os.WriteFile(filepath.Join(dir, name), nil, 0o644)
	}
	s, err := openStateFile(filepath.Join(dir, "node.spec"))
	if err != nil {
		t.Fatal(err)
	}
	s.close()
	for _, name := range stale {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s was left", name)
		}
	}
	for _, name := range kept {
		if _, err := os.Lstat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s was removed: %v", name, err)
		}
	}
}

// TestStateFileSpecIsUsedAsWritten: without -node the file's spec is the
// node, and $SCRU64_NODE_SPEC, -node's default, is held to it as -node is:
// never used instead of it.
func TestStateFileSpecIsUsedAsWritten(t *testing.T) {
	state := filepath.Join(t.TempDir(), "node.spec")
	os.WriteFile(state, []byte("0w6rx8czyhhb/1\n"), 0o644)
	e, out, errOut := testEnv("", map[string]string{"SCRU64_NODE_SPEC": "42/8"})
	if status := run([]string{"gen", "-format", "scru64", "-state", state}, e); status != 2 || out.Len() != 0 ||
		!strings.Contains(errOut.String(), "the state file "+state+" continues node 0/1, but SCRU64_NODE_SPEC names node 42/8") {
		t.Errorf("with SCRU64_NODE_SPEC=42/8: status %d, stdout %q, stderr %q", status, out, errOut)
	}
	stdout, stderr, status := runCLI(t, "", "gen", "-format", "scru64", "-state", state)
	if status != 0 || stderr != "" || scru64.MustParse(strings.TrimSpace(stdout)).NodeCtr()>>23 != 0 {
		t.Errorf("without -node: status %d, stdout %q, stderr %q", status, stdout, stderr)
	}
	if data, _ := os.ReadFile(state); !strings.HasSuffix(string(data), "/1\n") {
		t.Errorf("the file now holds %q", data)
	}
}
