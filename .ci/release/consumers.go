package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// checkConsumers builds, in tmp, as a user of the release would, against
// the module proxy at proxy holding the released modules at version:
// with that proxy first in GOPROXY, the module cache's downloads and the
// usual proxy after it for third-party modules, a module cache of its own,
// no go.work and no replace. For each module, a scratch module imports
// every package of it (but internal ones and commands), runs go mod tidy
// and go build, and must resolve the module at version; one go install
// of the module's path/...@version installs every command of it, as the
// docs tell users to install the tool (scru128 and scru128-etcd); and the
// module's go.mod must be what
// go mod tidy makes of it against the release (its go.sum too, but for the
// siblings' checksums, which it gains once they are published:
// docs/releasing.md).
//
// The builds use -trimpath, so that compiled third-party packages, which
// would otherwise carry the temporary module cache's paths, come from the
// build cache on the next run.
func checkConsumers(tmp, proxy string, released []treeModule, version string) error {
	env, err := consumerEnv(tmp, proxy)
	if err != nil {
		return err
	}
	for n, m := range released {
		fmt.Printf("--- %s@%s\n", m.path, version)
		pkgs, mains, err := packagesOf(m.dir)
		if err != nil {
			return err
		}
		if len(pkgs) > 0 {
			dir := filepath.Join(tmp, fmt.Sprintf("consumer%d", n))
			if err := os.Mkdir(dir, 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(importAll(pkgs)), 0o644); err != nil {
				return err
			}
			for _, args := range [][]string{{"mod", "init", "example.com/consumer"}, {"mod", "tidy"}, {"build", "-o", os.DevNull, "."}} {
				if _, err := goCommand(dir, env, args...); err != nil {
					return err
				}
			}
			got, err := goCommand(dir, env, "list", "-m", m.path)
			if err != nil {
				return err
			}
			if want := m.path + " " + version; strings.TrimSpace(got) != want {
				return fmt.Errorf("the scratch module resolved %s, want %s", strings.TrimSpace(got), want)
			}
		}
		if err := installCommands(tmp, env, m.path, mains, version); err != nil {
			return err
		}
		if err := checkTidy(tmp, env, m, n, version); err != nil {
			return err
		}
	}
	return nil
}

// installCommands runs, in tmp, go install modPath/...@version, as a user
// installs the commands of the module modPath (mains, as the tree lists
// them) at once, and checks that each of them is in the GOBIN it names.
// For a module without commands it does nothing.
func installCommands(tmp string, env []string, modPath string, mains []string, version string) error {
	if len(mains) == 0 {
		return nil
	}
	bin := filepath.Join(tmp, "bin")
	pattern := modPath + "/...@" + version
	if _, err := goCommand(tmp, append(env, "GOBIN="+bin), "install", pattern); err != nil {
		return err
	}
	exe, err := goCommand(tmp, env, "env", "GOEXE")
	if err != nil {
		return err
	}
	for _, pkg := range mains {
		name := path.Base(pkg) + strings.TrimSpace(exe)
		if _, err := os.Stat(filepath.Join(bin, name)); err != nil {
			return fmt.Errorf("go install %s installed no %s (of %s): %w", pattern, name, pkg, err)
		}
		fmt.Printf("installed %s@%s\n", pkg, version)
	}
	return nil
}

// consumerEnv returns the environment of a user's go command, beside the
// module proxy at proxy.
func consumerEnv(tmp, proxy string) ([]string, error) {
	settings := map[string]string{}
	out, err := goCommand("", nil, "env", "-json", "GOPROXY", "GOMODCACHE", "GOFLAGS")
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(out), &settings); err != nil {
		return nil, err
	}
	// PATH and GOTOOLCHAIN name this version's go already (useThisGo).
	return append(os.Environ(),
		"GOWORK=off", "GOSUMDB=off",
		"GOFLAGS="+strings.TrimSpace(settings["GOFLAGS"]+" -modcacherw -trimpath"),
		"GOMODCACHE="+filepath.Join(tmp, "modcache"),
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(filepath.Join(settings["GOMODCACHE"], "cache", "download"))+","+settings["GOPROXY"],
	), nil
}

// packagesOf lists the importable packages of the module in dir (not
// internal ones, not commands) and its commands, as the tree's go.work
// sees them.
func packagesOf(dir string) (pkgs, mains []string, err error) {
	list := func(filter string) ([]string, error) {
		out, err := goCommand(dir, nil, "list", "-e", "-f", "{{if and (not .Error) .GoFiles "+filter+"}}{{.ImportPath}}{{end}}", "./...")
		return strings.Fields(out), err
	}
	all, err := list(`(ne .Name "main")`)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range all {
		if !strings.Contains(p+"/", "/internal/") {
			pkgs = append(pkgs, p)
		}
	}
	mains, err = list(`(eq .Name "main")`)
	return pkgs, mains, err
}

// importAll is a main package that imports pkgs for their side effects.
func importAll(pkgs []string) string {
	var b strings.Builder
	b.WriteString("package main\n\nimport (\n")
	for _, p := range pkgs {
		fmt.Fprintf(&b, "\t_ %q\n", p)
	}
	b.WriteString(")\n\nfunc main() {}\n")
	return b.String()
}

// checkTidy holds the module m's go.mod and go.sum to what go mod tidy
// makes of the released module, downloaded from the proxy.
func checkTidy(tmp string, env []string, m treeModule, n int, version string) error {
	out, err := goCommand(tmp, env, "mod", "download", "-json", m.path+"@"+version)
	if err != nil {
		return err
	}
	var download struct{ Dir string }
	if err := json.Unmarshal([]byte(out), &download); err != nil {
		return err
	}
	dir := filepath.Join(tmp, fmt.Sprintf("tidy%d", n))
	if err := os.CopyFS(dir, os.DirFS(download.Dir)); err != nil {
		return err
	}
	// The module cache's files are read-only, and so are their copies.
	if err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if d.IsDir() {
			mode = 0o755
		}
		return os.Chmod(path, mode)
	}); err != nil {
		return err
	}
	if _, err := goCommand(dir, env, "mod", "tidy"); err != nil {
		return err
	}
	want, err := os.ReadFile(filepath.Join(m.dir, "go.mod"))
	if err != nil {
		return err
	}
	got, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return err
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("%s: go.mod is not what go mod tidy makes of it against the release:\n%s", m.path, got)
	}
	wantSum, gotSum := foreignSums(filepath.Join(m.dir, "go.sum")), foreignSums(filepath.Join(dir, "go.sum"))
	if !slices.Equal(wantSum, gotSum) {
		return fmt.Errorf("%s: go.sum is not what go mod tidy makes of it against the release:\n%s",
			m.path, strings.Join(gotSum, "\n"))
	}
	return nil
}

// foreignSums returns the lines of a go.sum, sorted, but those of this
// repository's modules; a missing file has none.
func foreignSums(name string) []string {
	data, _ := os.ReadFile(name)
	var lines []string
	for _, line := range strings.Split(string(data), "\n") {
		if line != "" && !strings.HasPrefix(line, "github.com/fastid/scru128 ") && !strings.HasPrefix(line, "github.com/fastid/scru128/") {
			lines = append(lines, line)
		}
	}
	slices.Sort(lines)
	return lines
}

// goCommand runs go with args in dir (the current directory if ""), with
// env (the process's if nil), and returns its standard output; its
// standard error goes to this process's, and a failure names the command.
func goCommand(dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Env, cmd.Stderr = dir, env, os.Stderr
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go %s (in %s): %w", strings.Join(args, " "), dir, err)
	}
	return out.String(), nil
}
