package main

// The module proxy of the tree: each released module's files as the GOPROXY
// protocol serves them (@v/list, .info, .mod and .zip), the zip made by
// golang.org/x/mod/zip from the directory as it stands, without its nested
// modules, as the go command makes one from a tag. A go command given
// GOPROXY=file://DIR (and GOSUMDB=off, since no checksum database knows
// these versions) then resolves the modules from there.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	"golang.org/x/mod/zip"
)

// A mod is one module of the tree.
type mod struct {
	dir   string
	goMod []byte
	file  *modfile.File
}

// load reads the go.mod of each directory and refuses replace directives.
func load(dirs []string) ([]mod, error) {
	var mods []mod
	for _, dir := range dirs {
		name := filepath.Join(dir, "go.mod")
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		f, err := modfile.Parse(name, data, nil)
		if err != nil {
			return nil, err
		}
		if f.Module == nil {
			return nil, fmt.Errorf("%s names no module", name)
		}
		if len(f.Replace) > 0 {
			r := f.Replace[0]
			return nil, fmt.Errorf("%s:%d: replace %s: a user's build ignores a dependency's replace directives, and go install refuses a module that has one",
				name, r.Syntax.Start.Line, r.Old.Path)
		}
		mods = append(mods, mod{dir: dir, goMod: data, file: f})
	}
	return mods, nil
}

// releaseVersion returns the version at which the modules require each
// other, which must be one.
func releaseVersion(mods []mod) (string, error) {
	paths := make(map[string]bool)
	for _, m := range mods {
		paths[m.file.Module.Mod.Path] = true
	}
	var version, first string
	for _, m := range mods {
		for _, r := range m.file.Require {
			if !paths[r.Mod.Path] {
				continue
			}
			at := fmt.Sprintf("%s requires %s %s", filepath.Join(m.dir, "go.mod"), r.Mod.Path, r.Mod.Version)
			switch {
			case semver.Canonical(r.Mod.Version) != r.Mod.Version || semver.Prerelease(r.Mod.Version) != "":
				return "", fmt.Errorf("%s, not a release version", at)
			case r.Mod.Version == "v0.0.0":
				return "", fmt.Errorf("%s, which no release has: only a replace directive could meet it", at)
			case version == "":
				version, first = r.Mod.Version, at
			case r.Mod.Version != version:
				return "", fmt.Errorf("the modules require each other at different versions: %s; %s", first, at)
			}
		}
	}
	if version == "" {
		return "", errors.New("no module requires another: no version to publish them at")
	}
	return version, nil
}

// publishAll writes every module to the proxy at out as version.
func publishAll(out string, mods []mod, version string) error {
	at := time.Now().UTC().Truncate(time.Second)
	for _, m := range mods {
		if err := publish(out, m, version, at); err != nil {
			return fmt.Errorf("%s: %w", m.dir, err)
		}
	}
	return nil
}

// publish writes the module m to the proxy at out as version.
func publish(out string, m mod, version string, at time.Time) error {
	mv := module.Version{Path: m.file.Module.Mod.Path, Version: version}
	if err := module.Check(mv.Path, mv.Version); err != nil {
		return err
	}
	escaped, err := module.EscapePath(mv.Path)
	if err != nil {
		return err
	}
	vdir := filepath.Join(out, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return err
	}
	var zipped bytes.Buffer
	if err := zip.CreateFromDir(&zipped, mv, m.dir); err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, at})
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{
		version + ".info": info,
		version + ".mod":  m.goMod,
		version + ".zip":  zipped.Bytes(),
	} {
		if err := os.WriteFile(filepath.Join(vdir, name), data, 0o644); err != nil {
			return err
		}
	}
	return addToList(filepath.Join(vdir, "list"), version)
}

// addToList adds version to the proxy's list of a module's versions, once.
func addToList(list, version string) error {
	data, err := os.ReadFile(list)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	versions := strings.Fields(string(data))
	if slices.Contains(versions, version) {
		return nil
	}
	versions = append(versions, version)
	semver.Sort(versions)
	return os.WriteFile(list, []byte(strings.Join(versions, "\n")+"\n"), 0o644)
}
