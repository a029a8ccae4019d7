package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"
)

// notReleased begins the go.mod of a module that is not published.
const notReleased = "// Not released"

// A treeModule is a module of the tree, as findModules finds it.
type treeModule struct {
	dir      string // absolute
	path     string // its module path
	released bool   // its go.mod does not begin with notReleased
}

// findModules returns the modules of the tree at root: every go.mod among
// its files (treeFiles), the root's first.
func findModules(root string, files []string) ([]treeModule, error) {
	var mods []treeModule
	for _, f := range files {
		if f != "go.mod" && !strings.HasSuffix(f, "/go.mod") {
			continue
		}
		name := filepath.Join(root, filepath.FromSlash(f))
		data, err := os.ReadFile(name)
		if os.IsNotExist(err) {
			continue
		} else if err != nil {
			return nil, err
		}
		path := modfile.ModulePath(data)
		if path == "" {
			return nil, fmt.Errorf("%s names no module", name)
		}
		m := treeModule{dir: filepath.Dir(name), path: path, released: !bytes.HasPrefix(data, []byte(notReleased))}
		if f == "go.mod" {
			mods = append([]treeModule{m}, mods...)
		} else {
			mods = append(mods, m)
		}
	}
	if len(mods) == 0 || mods[0].dir != filepath.Clean(root) {
		return nil, fmt.Errorf("%s holds no go.mod at its root", root)
	}
	return mods, nil
}

// setVersion rewrites, in the tree at root, every requirement of a
// released module by another module of the tree, and every replace line
// of the go.work whose old version is a released module's, to version. It
// returns the files it changed.
func setVersion(root string, mods []treeModule, version string) ([]string, error) {
	released := map[string]bool{}
	for _, m := range mods {
		if m.released {
			released[m.path] = true
		}
	}
	var changed []string
	for _, m := range mods {
		name := filepath.Join(m.dir, "go.mod")
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		out, err := setRequirements(name, data, released, version)
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(out, data) {
			if err := os.WriteFile(name, out, 0o644); err != nil {
				return nil, err
			}
			changed = append(changed, name)
		}
	}
	work := filepath.Join(root, "go.work")
	data, err := os.ReadFile(work)
	if os.IsNotExist(err) {
		return changed, nil
	} else if err != nil {
		return nil, err
	}
	out, err := setWorkReplaces(work, data, released, version)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(out, data) {
		if err := os.WriteFile(work, out, 0o644); err != nil {
			return nil, err
		}
		changed = append(changed, work)
	}
	return changed, nil
}

// setRequirements returns the go.mod data (read from name) with each
// requirement of a module in released at version, its comments and
// layout kept. A replace directive of a released module is an error: a
// user's build ignores it (proxy.go's load says more).
func setRequirements(name string, data []byte, released map[string]bool, version string) ([]byte, error) {
	f, err := modfile.Parse(name, data, nil)
	if err != nil {
		return nil, err
	}
	for _, r := range f.Replace {
		if released[r.Old.Path] {
			return nil, fmt.Errorf("%s:%d: replace %s: a user's build ignores a dependency's replace directives; the go.work points the siblings at the tree",
				name, r.Syntax.Start.Line, r.Old.Path)
		}
	}
	for _, r := range f.Require {
		if released[r.Mod.Path] && r.Mod.Version != version {
			// AddRequire edits the line in place, keeping // indirect.
			if err := f.AddRequire(r.Mod.Path, version); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
	}
	f.Cleanup()
	return modfile.Format(f.Syntax), nil
}

// setWorkReplaces returns the go.work data (read from name) with each
// replace of a released module at a version replacing that module at
// version instead, to the same directory.
func setWorkReplaces(name string, data []byte, released map[string]bool, version string) ([]byte, error) {
	w, err := modfile.ParseWork(name, data, nil)
	if err != nil {
		return nil, err
	}
	for _, r := range w.Replace {
		if !released[r.Old.Path] || r.Old.Version == "" || r.Old.Version == version {
			continue
		}
		// The version token follows the path, on a line of its own or in
		// a block; edited in place, the line keeps its comments and place.
		tok := r.Syntax.Token
		for i := 0; i+1 < len(tok); i++ {
			if tok[i] == r.Old.Path && tok[i+1] == r.Old.Version {
				tok[i+1] = version
				break
			}
		}
		r.Old.Version = version
	}
	w.Cleanup()
	return modfile.Format(w.Syntax), nil
}
