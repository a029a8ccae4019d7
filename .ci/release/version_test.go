package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var siblings = map[string]bool{"github.com/fastid/scru128": true, "github.com/fastid/scru128/scru64/etcdnode": true}

// TestSetRequirementsRewritesSiblingsOnly: every requirement of a released
// sibling, in either block and with its comment, takes the version; other
// requirements and the file's comments stay as they were.
func TestSetRequirementsRewritesSiblingsOnly(t *testing.T) {
	in := `// A comment kept.
module github.com/fastid/scru128/cmd/scru128

go 1.26.0

require (
	github.com/fastid/scru128 v0.1.0
	github.com/fastid/scru128/scru64/etcdnode v0.1.0 // the fleet
	go.etcd.io/etcd/client/v3 v3.7.3
)

require github.com/fastid/scru128/pgxscru128 v0.1.0 // indirect
`
	want := `// A comment kept.
module github.com/fastid/scru128/cmd/scru128

go 1.26.0

require (
	github.com/fastid/scru128 v0.2.0
	github.com/fastid/scru128/scru64/etcdnode v0.2.0 // the fleet
	go.etcd.io/etcd/client/v3 v3.7.3
)

require github.com/fastid/scru128/pgxscru128 v0.2.0 // indirect
`
	released := map[string]bool{"github.com/fastid/scru128/pgxscru128": true}
	for k := range siblings {
		released[k] = true
	}
	got, err := setRequirements("go.mod", []byte(in), released, "v0.2.0")
	if err != nil || string(got) != want {
		t.Errorf("got %v\n%s\nwant\n%s", err, got, want)
	}
	// Run again: nothing more to change.
	again, err := setRequirements("go.mod", got, released, "v0.2.0")
	if err != nil || string(again) != want {
		t.Errorf("a second run changed it: %v\n%s", err, again)
	}
}

// TestSetRequirementsRefusesReplace: a released sibling replaced in a
// go.mod is an error that names the line (a user's build ignores it).
func TestSetRequirementsRefusesReplace(t *testing.T) {
	in := "module example.com/m\n\ngo 1.26.0\n\nrequire github.com/fastid/scru128 v0.1.0\n\nreplace github.com/fastid/scru128 => ../\n"
	_, err := setRequirements("x/go.mod", []byte(in), siblings, "v0.2.0")
	if err == nil || !strings.Contains(err.Error(), "x/go.mod:7: replace github.com/fastid/scru128") {
		t.Errorf("err = %v", err)
	}
}

// TestSetWorkReplaces: the go.work's replace lines of the siblings move to
// the version, to the same directories; others stay.
func TestSetWorkReplaces(t *testing.T) {
	in := `go 1.26.0

use (
	.
	./cmd/scru128
)

// Until that version is published, these point them here.
replace github.com/fastid/scru128 v0.1.0 => ./

replace github.com/fastid/scru128/scru64/etcdnode v0.1.0 => ./scru64/etcdnode

replace example.com/other v1.0.0 => ../other
`
	got, err := setWorkReplaces("go.work", []byte(in), siblings, "v1.99.0")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"replace github.com/fastid/scru128 v1.99.0 => ./\n",
		"github.com/fastid/scru128/scru64/etcdnode v1.99.0 => ./scru64/etcdnode\n",
		"replace example.com/other v1.0.0 => ../other\n",
		"// Until that version is published, these point them here.\n",
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if strings.Contains(string(got), "v0.1.0") {
		t.Errorf("v0.1.0 left in\n%s", got)
	}
}

// TestTagsRootFirst: the root's tag is the version, a sub-module's is
// prefixed with its directory.
func TestTagsRootFirst(t *testing.T) {
	tree := filepath.FromSlash("/r")
	mods := []treeModule{{dir: filepath.FromSlash("/r/pgxscru128")}, {dir: tree}, {dir: filepath.FromSlash("/r/scru64/etcdnode")}}
	got := tags(tree, mods, "v0.2.0")
	want := []string{"v0.2.0", "pgxscru128/v0.2.0", "scru64/etcdnode/v0.2.0"}
	if !slices.Equal(got, want) {
		t.Errorf("tags = %q, want %q", got, want)
	}
}

// TestDryRunLeavesTheTreeAlone: a dry run's rewriting happens in a copy:
// findModules, copyTree and setVersion on a git repository of two modules
// change the copy's go.mod and go.work and not the original's.
func TestDryRunLeavesTheTreeAlone(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		name = filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module github.com/fastid/scru128\n\ngo 1.26.0\n")
	write("sub/go.mod", "module github.com/fastid/scru128/sub\n\ngo 1.26.0\n\nrequire github.com/fastid/scru128 v0.1.0\n")
	write("bench/go.mod", notReleased+"\nmodule bench\n\ngo 1.26.0\n\nrequire github.com/fastid/scru128/sub v0.1.0\n")
	write("go.work", "go 1.26.0\n\nuse (\n\t.\n\t./sub\n\t./bench\n)\n\nreplace github.com/fastid/scru128 v0.1.0 => ./\n")
	if out, err := exec.Command("git", "-C", root, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	files, err := treeFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(t.TempDir(), "tree")
	if err := copyTree(root, cp, files); err != nil {
		t.Fatal(err)
	}
	mods, err := findModules(cp, files)
	if err != nil {
		t.Fatal(err)
	}
	if len(mods) != 3 || mods[0].dir != cp || !mods[0].released || mods[1].released == mods[2].released {
		t.Fatalf("modules %+v", mods)
	}
	changed, err := setVersion(cp, mods, "v0.2.0")
	if err != nil || len(changed) != 3 {
		t.Fatalf("changed %q, %v; want sub/go.mod, bench/go.mod, go.work", changed, err)
	}
	for _, name := range []string{"sub/go.mod", "bench/go.mod", "go.work"} {
		orig, _ := os.ReadFile(filepath.Join(root, name))
		copied, _ := os.ReadFile(filepath.Join(cp, name))
		if !strings.Contains(string(orig), "v0.1.0") || strings.Contains(string(copied), "v0.1.0") || !strings.Contains(string(copied), "v0.2.0") {
			t.Errorf("%s: the tree has\n%s\nthe copy\n%s", name, orig, copied)
		}
	}
}

// TestCheckVersion: only a release version a module path without a /vN
// suffix can take.
func TestCheckVersion(t *testing.T) {
	for _, v := range []string{"v0.2.0", "v1.0.0", "v1.999.0"} {
		if err := checkVersion(v); err != nil {
			t.Errorf("%s: %v", v, err)
		}
	}
	for v, want := range map[string]string{
		"v0.2":         "not a release version",
		"0.2.0":        "not a release version",
		"v0.2.0-rc.1":  "not a release version",
		"v2.0.0":       "end in /v2",
		"v99.0.0":      "end in /v99",
		"v0.2.0+build": "not a release version",
	} {
		if err := checkVersion(v); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", v, err, want)
		}
	}
}
