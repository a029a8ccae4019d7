//go:build (unix && !aix) || windows

package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

const versionUsage = `Usage: scru128 version, or scru128 -V

Print what go version -m shows of this binary, in short: the tool's module
version (the tag of go install ...@v1.2.3; for a build from a clone, the
pseudo-version go stamps, or (devel)), the version control revision of a
build from a clone, with its time and whether the tree had changes (go
stamps it in a clone's go.work only with -buildvcs=true), the
version of each module of this repository it links (the library, which a
clone's go.work replaces with its own tree), and the Go version and platform.

Examples:
  scru128 version                     this binary's versions
  scru128 -V                          the same
  go version -m "$(command -v scru128)"
                                      every module it links, from Go itself
`

// repoModule is the library's module path; the tool's and the other
// sub-modules' paths begin with it and a slash.
const repoModule = "github.com/fastid/scru128"

func runVersion(args []string, e *Env) int {
	rest, status, ok := parseCommandFlags(e, "version", versionUsage, newFlagSet("version"), args)
	if !ok {
		return status
	}
	if len(rest) > 0 {
		return UsageFailure(e, "version", fmt.Sprintf("unexpected argument %q", rest[0]))
	}
	info, _ := debug.ReadBuildInfo()
	return printUsage(e, versionText(info))
}

// versionText describes the build from info, which may be nil: the lines
// name what go version -m shows as mod, dep (this repository's modules
// only) and the vcs settings.
func versionText(info *debug.BuildInfo) string {
	version, module := "(unknown)", repoModule+"/cmd/scru128"
	settings := map[string]string{}
	var deps []*debug.Module
	if info != nil {
		if info.Main.Version != "" {
			version = info.Main.Version
		}
		if info.Main.Path != "" {
			module = info.Main.Path
		}
		for _, s := range info.Settings {
			settings[s.Key] = s.Value
		}
		for _, d := range info.Deps {
			if d.Path == repoModule || strings.HasPrefix(d.Path, repoModule+"/") {
				deps = append(deps, d)
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "scru128 %s\n", version)
	fmt.Fprintf(&b, "module:   %s %s\n", module, version)
	switch rev := settings["vcs.revision"]; {
	case rev != "":
		fmt.Fprintf(&b, "revision: %s", rev)
		if t := settings["vcs.time"]; t != "" {
			fmt.Fprintf(&b, " (%s)", t)
		}
		if settings["vcs.modified"] == "true" {
			b.WriteString(", modified")
		}
		b.WriteString("\n")
	case version == "(devel)" || version == "(unknown)":
		// A release's version names its source; a build without one
		// and without a revision names nothing.
		b.WriteString("revision: unknown (built by go run, in a go.work without -buildvcs=true, with -buildvcs=false, or outside a repository)\n")
	}
	for _, d := range deps {
		fmt.Fprintf(&b, "links:    %s\n", moduleText(d))
	}
	fmt.Fprintf(&b, "go:       %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return b.String()
}

// moduleText is a module as go version -m shows a dep: its path and
// version, and what replaced it (a clone's go.work, a directory).
func moduleText(m *debug.Module) string {
	s := m.Path + " " + m.Version
	if r := m.Replace; r != nil {
		s += " => " + r.Path
		if r.Version != "" {
			s += " " + r.Version
		} else {
			s += " (a directory: the version above is not what it holds)"
		}
	}
	return s
}
