//go:build (unix && !aix) || windows

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVersionBuiltBothWays builds the tool as its two kinds of user do and
// holds scru128 version to what go version -m shows of each binary:
//
//   - from a clone: a git repository of the tree as it stands, built with
//     -buildvcs=true (which a go.work needs for go to stamp it): the
//     revision, its time, clean, and the pseudo-version go derives;
//   - installed from a module proxy, as go install ...@v1.99.0 does: the
//     release script's dry run writes a proxy of the tree at v1.99.0 (every
//     sibling requirement set to it), from which a go command outside the
//     repository, without go.work, installs the tool. version then names
//     v1.99.0 as the tool's version and as the library's it links, and no
//     unknown revision (before issue 33, "revision: unknown (built by go
//     run, ...)", and no library version at all).
func TestVersionBuiltBothWays(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the tool twice, once from a module proxy")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if err := exec.Command("git", "-C", root, "rev-parse", "--show-toplevel").Run(); err != nil {
		// A copy or an archive of the tree, as the README's quick start may
		// run in: both builds start from git's list of the tree's files.
		t.Skipf("the tree is not a git work tree: %v", err)
	}

	t.Run("from a clone", func(t *testing.T) {
		clone := t.TempDir()
		files := gitOutput(t, root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
		for _, f := range strings.Split(files, "\x00") {
			if f == "" {
				continue
			}
			data, err := os.ReadFile(filepath.Join(root, f))
			if os.IsNotExist(err) {
				continue // deleted, not yet committed
			} else if err != nil {
				t.Fatal(err)
			}
			to := filepath.Join(clone, f)
			if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(to, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		gitOutput(t, clone, "init", "-q")
		gitOutput(t, clone, "add", "-A")
		gitOutput(t, clone, "-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "-q", "-m", "the tree")
		head := gitOutput(t, clone, "rev-parse", "HEAD")
		bin := filepath.Join(t.TempDir(), "scru128")
		build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".")
		build.Dir = filepath.Join(clone, "cmd", "scru128")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		got := binaryOutput(t, bin, "version")
		meta := binaryOutput(t, "go", "version", "-m", bin)
		mod := metaField(t, meta, "mod\tgithub.com/fastid/scru128/cmd/scru128\t")
		for _, want := range []string{
			"scru128 " + mod + "\n",
			"module:   github.com/fastid/scru128/cmd/scru128 " + mod + "\n",
			"revision: " + head + " (",
			"links:    github.com/fastid/scru128 ",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("version of a clone's build lacks %q:\n%s\ngo version -m:\n%s", want, got, meta)
			}
		}
		if !strings.Contains(mod, head[:12]) || strings.Contains(got, "modified") {
			t.Errorf("version of a clean clone at %s:\n%s", head, got)
		}
	})

	t.Run("installed from a module proxy", func(t *testing.T) {
		tmp := t.TempDir()
		proxy := filepath.Join(tmp, "proxy")
		release := exec.Command("go", "run", ".", "-dry-run", "-proxy", proxy, "v1.99.0")
		release.Dir = filepath.Join(root, ".ci", "release")
		release.Env = append(os.Environ(), "GOWORK=off")
		if out, err := release.CombinedOutput(); err != nil {
			t.Fatalf("the release script: %v\n%s", err, out)
		}
		modcache := strings.TrimSpace(binaryOutput(t, "go", "env", "GOMODCACHE"))
		install := exec.Command("go", "install", "github.com/fastid/scru128/cmd/scru128@v1.99.0")
		install.Dir = tmp
		install.Env = append(os.Environ(),
			"GOWORK=off", "GOSUMDB=off", "GOTOOLCHAIN=local", "GOBIN="+filepath.Join(tmp, "bin"),
			"GOMODCACHE="+filepath.Join(tmp, "modcache"), "GOFLAGS=-modcacherw -trimpath",
			// The proxy of the tree, then the module cache's downloads for
			// the third-party modules: nothing from the network.
			"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(filepath.Join(modcache, "cache", "download"))+",off")
		if out, err := install.CombinedOutput(); err != nil {
			t.Fatalf("go install ...@v1.99.0: %v\n%s", err, out)
		}
		bin := filepath.Join(tmp, "bin", "scru128")
		got := binaryOutput(t, bin, "version")
		meta := binaryOutput(t, "go", "version", "-m", bin)
		metaField(t, meta, "mod\tgithub.com/fastid/scru128/cmd/scru128\tv1.99.0\t")
		metaField(t, meta, "dep\tgithub.com/fastid/scru128\tv1.99.0\t")
		for _, want := range []string{
			"scru128 v1.99.0\n",
			"module:   github.com/fastid/scru128/cmd/scru128 v1.99.0\n",
			"links:    github.com/fastid/scru128 v1.99.0\n",
			"links:    github.com/fastid/scru128/scru64/etcdnode v1.99.0\n",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("version of go install ...@v1.99.0 lacks %q:\n%s", want, got)
			}
		}
		if strings.Contains(got, "revision") {
			t.Errorf("version of a release names a revision:\n%s", got)
		}
	})
}

func gitOutput(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

func binaryOutput(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return string(out)
}

// metaField returns the rest of the line of go version -m's output that
// begins, after its tab, with prefix (up to the next tab).
func metaField(t *testing.T, meta, prefix string) string {
	t.Helper()
	_, rest, ok := strings.Cut(meta, "\n\t"+prefix)
	if !ok && strings.HasSuffix(prefix, "\t") {
		_, rest, ok = strings.Cut(meta, "\n\t"+strings.TrimSuffix(prefix, "\t")+"\n")
	}
	if !ok {
		t.Fatalf("go version -m shows no %q:\n%s", prefix, meta)
	}
	field, _, _ := strings.Cut(rest, "\t")
	field, _, _ = strings.Cut(field, "\n")
	return field
}
