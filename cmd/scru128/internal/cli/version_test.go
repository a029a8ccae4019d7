//go:build (unix && !aix) || windows

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVersionBuiltBothWays builds the tool's two binaries, scru128 and
// scru128-etcd, as its two kinds of user do and holds the version command
// of each to what go version -m shows of it:
//
//   - from a clone: a git repository of the tree as it stands, built with
//     -buildvcs=true (which a go.work needs for go to stamp it): the
//     revision, its time, clean, and the pseudo-version go derives;
//   - installed from a module proxy, as go install .../cmd/scru128/...@v1.99.0
//     does: the release script's dry run writes a proxy of the tree at
//     v1.99.0 (every sibling requirement set to it), from which a go
//     command outside the repository, without go.work, installs both
//     binaries. version then names v1.99.0 as the tool's version and as the
//     library's it links, and no unknown revision (before issue 33,
//     "revision: unknown (built by go run, ...)", and no library version at
//     all).
//
// Only scru128-etcd links etcdnode. Each way, scru128 gen -etcd hands the
// run over to the scru128-etcd beside it (whose words for an unreachable
// etcd come out), which refuses a run handed over by another version.
func TestVersionBuiltBothWays(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the tool twice, once from a module proxy")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	root, err := filepath.Abs("../../../..")
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
		binDir := t.TempDir()
		build := exec.Command("go", "build", "-buildvcs=true", "-o", binDir+string(filepath.Separator), ".", "./scru128-etcd")
		build.Dir = filepath.Join(clone, "cmd", "scru128")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		var version string
		for _, name := range []string{"scru128", helperName} {
			bin := filepath.Join(binDir, name)
			got := binaryOutput(t, bin, "version")
			meta := binaryOutput(t, "go", "version", "-m", bin)
			mod := metaField(t, meta, "mod\tgithub.com/fastid/scru128/cmd/scru128\t")
			version = mod
			for _, want := range []string{
				"scru128 " + mod + "\n",
				"module:   github.com/fastid/scru128/cmd/scru128 " + mod + "\n",
				"revision: " + head + " (",
				"links:    github.com/fastid/scru128 ",
			} {
				if !strings.Contains(got, want) {
					t.Errorf("version of a clone's build of %s lacks %q:\n%s\ngo version -m:\n%s", name, want, got, meta)
				}
			}
			if !strings.Contains(mod, head[:12]) || strings.Contains(got, "modified") {
				t.Errorf("version of %s of a clean clone at %s:\n%s", name, head, got)
			}
			checkLinksEtcdnode(t, name, got)
		}
		checkHandOver(t, binDir, version, head)
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
		install := exec.Command("go", "install", "github.com/fastid/scru128/cmd/scru128/...@v1.99.0")
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
		for _, name := range []string{"scru128", helperName} {
			bin := filepath.Join(tmp, "bin", name)
			got := binaryOutput(t, bin, "version")
			meta := binaryOutput(t, "go", "version", "-m", bin)
			metaField(t, meta, "mod\tgithub.com/fastid/scru128/cmd/scru128\tv1.99.0\t")
			metaField(t, meta, "dep\tgithub.com/fastid/scru128\tv1.99.0\t")
			for _, want := range []string{
				"scru128 v1.99.0\n",
				"module:   github.com/fastid/scru128/cmd/scru128 v1.99.0\n",
				"links:    github.com/fastid/scru128 v1.99.0\n",
			} {
				if !strings.Contains(got, want) {
					t.Errorf("version of %s of go install ...@v1.99.0 lacks %q:\n%s", name, want, got)
				}
			}
			if strings.Contains(got, "revision") {
				t.Errorf("version of %s of a release names a revision:\n%s", name, got)
			}
			checkLinksEtcdnode(t, name, got)
		}
		checkHandOver(t, filepath.Join(tmp, "bin"), "v1.99.0", "")
	})
}

// checkLinksEtcdnode fails the test unless the version text got of the
// binary name lists etcdnode for scru128-etcd, and not for scru128.
func checkLinksEtcdnode(t *testing.T, name, got string) {
	t.Helper()
	const etcdnode = "links:    github.com/fastid/scru128/scru64/etcdnode "
	if links := strings.Contains(got, etcdnode); links != (name == helperName) {
		t.Errorf("version of %s lists etcdnode: %v, want %v:\n%s", name, links, name == helperName, got)
	}
}

// checkHandOver runs scru128 gen -etcd, in binDir, against an endpoint
// where nothing listens: the run is handed over, and scru128-etcd's words
// for it come out, even with the variables that tell scru128-etcd the
// version of the scru128 handing over already set to another (scru128
// passes its own). Then scru128-etcd itself, told that a scru128 of
// another version handed it the run (another release than version, or for
// a build that has none, another revision than revision), refuses it with
// status 2.
func checkHandOver(t *testing.T, binDir, version, revision string) {
	t.Helper()
	other := []string{handOffVersionEnv + "=v1.98.0"}
	if !isKnownVersion(version) {
		other = []string{handOffVersionEnv + "=(devel)", handOffRevisionEnv + "=0123456789abcdef"}
	}
	cmd := exec.Command(filepath.Join(binDir, "scru128"), "gen", "-format", "scru64", "-etcd", "http://127.0.0.1:1")
	cmd.Env = append(os.Environ(), other...)
	out, err := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != ExitFailure || !strings.Contains(string(out), "leasing a node ID from etcd: ") {
		t.Errorf("scru128 gen -etcd, handed over: %v\n%s", err, out)
	}
	cmd = exec.Command(filepath.Join(binDir, helperName), "gen", "-format", "scru64", "-etcd", "http://127.0.0.1:1")
	cmd.Env = append(os.Environ(), other...)
	out, err = cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != ExitUsage || !strings.Contains(string(out), "handed gen -etcd to scru128-etcd") ||
		strings.Contains(string(out), "leasing") {
		t.Errorf("scru128-etcd handed a run by another version (%q), itself %s %s: %v\n%s", other, version, revision, err, out)
	}
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
