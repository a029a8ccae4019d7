//go:build (unix && !aix) || windows

package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

const versionUsage = `Usage: scru128 version

Print the module version of this binary (a tag for go install ...@v1.2.3,
(devel) for a build from a clone), the version control revision it was built
from, with its time and whether the tree had changes, and the Go version and
platform. A binary built by go run, or with -buildvcs=false, has no revision.
`

func runVersion(args []string, e *env) int {
	rest, status, ok := parseCommandFlags(e, "version", versionUsage, newFlagSet("version"), args)
	if !ok {
		return status
	}
	if len(rest) > 0 {
		return usageFailure(e, "version", fmt.Sprintf("unexpected argument %q", rest[0]))
	}
	info, _ := debug.ReadBuildInfo()
	return printUsage(e, versionText(info))
}

// versionText describes the build from info, which may be nil.
func versionText(info *debug.BuildInfo) string {
	version, module := "(unknown)", "github.com/fastid/scru128/cmd/scru128"
	settings := map[string]string{}
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
	}
	var b strings.Builder
	fmt.Fprintf(&b, "scru128 %s\n", version)
	fmt.Fprintf(&b, "module:   %s\n", module)
	if rev := settings["vcs.revision"]; rev != "" {
		fmt.Fprintf(&b, "revision: %s", rev)
		if t := settings["vcs.time"]; t != "" {
			fmt.Fprintf(&b, " (%s)", t)
		}
		if settings["vcs.modified"] == "true" {
			b.WriteString(", modified")
		}
		b.WriteString("\n")
	} else {
		b.WriteString("revision: unknown (built by go run, with -buildvcs=false, or outside a repository)\n")
	}
	fmt.Fprintf(&b, "go:       %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return b.String()
}
