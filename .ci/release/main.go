// Command release prepares a release of the repository's modules and
// checks, as a user of the release would, that it resolves and builds:
//
//	cd .ci/release && GOWORK=off go run . [-dry-run] vX.Y.Z
//	cd .ci/release && GOWORK=off go run . -check
//	cd .ci/release && GOWORK=off go run . -dry-run -proxy DIR vX.Y.Z
//
// (The root's go.work leaves this module out, as it needs golang.org/x/mod,
// hence GOWORK=off; the tool finds the tree with git, and the go commands
// it runs there use the tree's go.work again.)
//
// With a version, it sets every requirement of one module of the
// repository by another (in every go.mod, the unreleased modules' too) and
// every replace line of the go.work to that version; builds a file-based
// module proxy holding each released module at that version (proxy.go);
// and then, in a temporary directory outside the repository, with that
// proxy first in GOPROXY, runs the consumer check (consumers.go): a scratch
// module imports every package of each library module and builds, one go
// install of each module's path/...@version installs its commands (the
// tool's scru128 and scru128-etcd), and each released go.mod
// must be what go mod tidy makes of it there. Last it prints the tags to
// push: vX.Y.Z for the root, DIR/vX.Y.Z for the module in DIR.
//
// -dry-run does all of it in a temporary copy of the tree (the files git
// tracks and the untracked ones it does not ignore) and changes nothing in
// the tree. -proxy DIR writes the module proxy to DIR and stops there (a
// test installs the tool from it). -check runs the consumer check alone,
// at the version the go.mod files name, in a copy too: CI's check of what
// a user can require.
//
// A module whose go.mod begins with "// Not released" is not published,
// but its requirements of the others are rewritten like theirs.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/mod/semver"
)

func main() {
	dryRun := flag.Bool("dry-run", false, "do everything in a temporary copy of the tree, and change nothing in it")
	check := flag.Bool("check", false, "run only the consumer check, at the version the go.mod files name")
	proxyOut := flag.String("proxy", "", "write the module proxy to this directory and stop, without the consumer check (with -dry-run: a proxy of the tree at a test version, for a test to build from)")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: go run . [-dry-run] [-proxy DIR] vX.Y.Z  (in .ci/release, with GOWORK=off)\n       go run . -check")
		flag.PrintDefaults()
	}
	flag.Parse()
	version := flag.Arg(0)
	switch {
	case *check && flag.NArg() == 0:
	case !*check && flag.NArg() == 1:
		if err := checkVersion(version); err != nil {
			fail(err)
		}
	default:
		flag.Usage()
		os.Exit(2)
	}
	// go run of this module needs GOWORK=off (the go.work leaves it out);
	// the go commands it runs in the tree need the tree's go.work.
	os.Unsetenv("GOWORK")
	if err := useThisGo(); err != nil {
		fail(err)
	}
	if err := run(version, *dryRun || *check, *proxyOut); err != nil {
		fail(err)
	}
}

// useThisGo puts first on PATH the go of the toolchain that GOTOOLCHAIN
// (or the go on PATH) selects, and pins it: the go commands this process
// runs, the consumer check's included, are then that version's, and with
// an empty module cache and GOSUMDB=off none has to fetch a toolchain.
func useThisGo() error {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("go env GOROOT: %w", err)
	}
	bin := filepath.Join(strings.TrimSpace(string(out)), "bin")
	os.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	os.Setenv("GOTOOLCHAIN", "local")
	return nil
}

// checkVersion refuses what is not a release version the modules' paths
// can take: vMAJOR.MINOR.PATCH, no pre-release, and a major version of 0
// or 1, since from 2 on Go wants each module path to end in /vMAJOR.
func checkVersion(version string) error {
	switch {
	case semver.Canonical(version) != version || semver.Prerelease(version) != "":
		return fmt.Errorf("%q is not a release version: want vMAJOR.MINOR.PATCH, such as v0.2.0", version)
	case semver.Major(version) != "v0" && semver.Major(version) != "v1":
		return fmt.Errorf("%s: a major version of 2 or more needs every module path to end in /%s (Go's semantic import versioning), which this script does not do",
			version, semver.Major(version))
	}
	return nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "release:", err)
	os.Exit(1)
}

// run prepares version ("" to keep the version the go.mod files name) in
// the tree, or in a copy of it, checks it and prints the tags.
func run(version string, inCopy bool, proxyOut string) error {
	root, err := gitOutput("", "rev-parse", "--show-toplevel")
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "scru128-release-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	files, err := treeFiles(root)
	if err != nil {
		return err
	}
	tree := root
	if inCopy {
		tree = filepath.Join(tmp, "tree")
		if err := copyTree(root, tree, files); err != nil {
			return err
		}
	}
	mods, err := findModules(tree, files)
	if err != nil {
		return err
	}
	if version != "" {
		changed, err := setVersion(tree, mods, version)
		if err != nil {
			return err
		}
		for _, name := range changed {
			rel, _ := filepath.Rel(tree, name)
			fmt.Printf("set the siblings to %s in %s\n", version, rel)
		}
	}

	var released []treeModule
	for _, m := range mods {
		if m.released {
			released = append(released, m)
		}
	}
	loaded, err := load(dirsOf(released))
	if err != nil {
		return err
	}
	at, err := releaseVersion(loaded)
	if err != nil {
		return err
	}
	proxy := filepath.Join(tmp, "proxy")
	if err := publishAll(proxy, loaded, at); err != nil {
		return err
	}
	fmt.Printf("released modules at %s: %s\n", at, strings.Join(relDirs(tree, released), " "))
	if proxyOut != "" {
		return publishAll(proxyOut, loaded, at)
	}
	if err := checkConsumers(tmp, proxy, released, at); err != nil {
		return err
	}
	if version == "" {
		return nil
	}
	fmt.Printf("\nthe tags to push, on the commit that holds these go.mod files:\n")
	for _, tag := range tags(tree, released, version) {
		fmt.Printf("  git tag -a %s -m %s\n", tag, tag)
	}
	fmt.Println("  git push origin --tags")
	if inCopy {
		fmt.Println("(a dry run: the tree is unchanged)")
	}
	return nil
}

// tags returns the tag of each released module at version: the root's is
// the version, a sub-module's its directory, a slash and the version.
func tags(tree string, released []treeModule, version string) []string {
	var out []string
	for _, dir := range relDirs(tree, released) {
		if dir == "." {
			out = append([]string{version}, out...)
		} else {
			out = append(out, dir+"/"+version)
		}
	}
	return out
}

func dirsOf(mods []treeModule) []string {
	dirs := make([]string, len(mods))
	for i, m := range mods {
		dirs[i] = m.dir
	}
	return dirs
}

// relDirs returns the modules' directories relative to tree, in slashes.
func relDirs(tree string, mods []treeModule) []string {
	dirs := make([]string, len(mods))
	for i, m := range mods {
		rel, err := filepath.Rel(tree, m.dir)
		if err != nil {
			rel = m.dir
		}
		dirs[i] = filepath.ToSlash(rel)
	}
	return dirs
}

// gitOutput runs git in dir and returns its output, trimmed.
func gitOutput(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// treeFiles lists the files of the tree at root that a release holds:
// those git tracks and the untracked ones it does not ignore.
func treeFiles(root string) ([]string, error) {
	out, err := gitOutput(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	if err != nil {
		return nil, err
	}
	var files []string
	for _, f := range strings.Split(out, "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files, nil
}

// copyTree copies files (treeFiles) from root to dst, keeping their
// modes; a file git lists but the tree no longer has (deleted, not yet
// committed) is left out, as a tag of the tree would leave it.
func copyTree(root, dst string, files []string) error {
	for _, f := range files {
		src := filepath.Join(root, filepath.FromSlash(f))
		info, err := os.Lstat(src)
		if os.IsNotExist(err) {
			continue
		} else if err != nil {
			return err
		}
		to := filepath.Join(dst, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if info.Mode()&os.ModeSymlink != 0 {
			target, err := os.Readlink(src)
			if err != nil {
				return err
			}
			if err := os.Symlink(target, to); err != nil {
				return err
			}
			continue
		}
		data, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		if err := os.WriteFile(to, data, info.Mode().Perm()); err != nil {
			return err
		}
	}
	return nil
}
