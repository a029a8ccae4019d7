//go:build (unix && !aix) || windows

package cli

// gen -etcd in scru128, which links no etcd client: the run is handed over
// whole to scru128-etcd, installed beside it, so that every other run
// starts without etcd's client, gRPC and crypto/tls.

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
)

// helperName is the binary that runs gen -etcd: scru128-etcd, in the same
// directory as scru128 (cmd/scru128/scru128-etcd, which one go install of
// cmd/scru128/... installs with it). It is not looked for on $PATH, where
// another version may come first.
const helperName = "scru128-etcd"

// The variables by which scru128 tells scru128-etcd its own version and
// revision, so that scru128-etcd refuses a run handed over by another
// release (see handOffMismatch).
const (
	handOffVersionEnv  = "SCRU128_HANDOFF_VERSION"
	handOffRevisionEnv = "SCRU128_HANDOFF_REVISION"
)

// handOverRun hands a gen -etcd run over to scru128-etcd through e, or
// fails when e cannot (a run in-process, by Run or a test).
func handOverRun(e *Env) int {
	if e.handOver == nil {
		Warn(e, "gen -etcd: this build leases no node ID from etcd, and cannot hand the run to "+helperName)
		return ExitUsage
	}
	return e.handOver()
}

// handOver runs args, the process's arguments, in scru128-etcd beside this
// executable, with the same arguments and environment, and the version of
// this build in handOffVersionEnv and handOffRevisionEnv. On Unix the
// process becomes scru128-etcd (its pid, signals, streams and exit status
// are scru128-etcd's) and handOver returns only if that fails; on Windows
// it runs scru128-etcd and returns its exit status. Without scru128-etcd
// it says where it looked and how to install it, and returns ExitUsage,
// having opened and written nothing else; likewise, saying why, for a
// scru128-etcd that untrustedHelper refuses.
func handOver(e *Env, args []string) int {
	path, err := helperPath()
	if err == nil {
		var stat os.FileInfo
		if stat, err = os.Stat(path); err == nil && stat.IsDir() {
			err = fmt.Errorf("%s is a directory", path)
		}
	}
	info, _ := debug.ReadBuildInfo()
	version, revision := buildVersion(info)
	if err != nil {
		Warn(e, missingHelper(path, version, revision))
		return ExitUsage
	}
	if why := untrustedHelper(path); why != "" {
		Warn(e, fmt.Sprintf("gen -etcd runs in %s, which %s: not run (it must be as safe from others as this scru128)", path, why))
		return ExitUsage
	}
	// Go's getenv takes a variable's first value: one already set (by a
	// user, or by a scru128 that ran this one) goes, not to win.
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, handOffVersionEnv+"=") && !strings.HasPrefix(kv, handOffRevisionEnv+"=") {
			env = append(env, kv)
		}
	}
	env = append(env, handOffVersionEnv+"="+version, handOffRevisionEnv+"="+revision)
	status, err := runHelper(path, append([]string{path}, args[1:]...), env)
	if err != nil {
		Warn(e, fmt.Sprintf("gen -etcd runs in %s, which could not be started: %v", path, err))
		return ExitFailure
	}
	return status
}

// helperPath returns where scru128-etcd should be: beside this executable,
// symbolic links resolved.
func helperPath() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return helperName, err
	}
	if resolved, err := filepath.EvalSymlinks(self); err == nil {
		self = resolved
	}
	return filepath.Join(filepath.Dir(self), helperName+filepath.Ext(self)), nil
}

// missingHelper is the message for a gen -etcd run of a scru128 of version
// and revision (as buildVersion gives them) without scru128-etcd at path:
// the command that installs both, at this version, and for a build from a
// clone (go run, which stamps no version, or go build, which stamps a
// revision), the command that runs scru128-etcd there.
func missingHelper(path, version, revision string) string {
	at, clone := "@"+version, ""
	if !isKnownVersion(version) {
		at = "@latest"
	}
	if !isKnownVersion(version) || revision != "" {
		clone = "; in a clone of the repository, go run ./cmd/scru128/" + helperName + " gen ... runs it"
	}
	return fmt.Sprintf("gen -etcd runs in %s, which is not beside this scru128 (looked for %s): go install %s/cmd/scru128/...%s installs both%s",
		helperName, path, repoModule, at, clone)
}

// buildVersion returns the module version and the version control revision
// of a build from info, which may be nil: "(devel)" or "(unknown)" for a
// version go did not stamp, "" for no revision.
func buildVersion(info *debug.BuildInfo) (version, revision string) {
	if info == nil {
		return "(unknown)", ""
	}
	version = info.Main.Version
	if version == "" {
		version = "(unknown)"
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" {
			revision = s.Value
		}
	}
	return version, revision
}

// isKnownVersion reports whether version names a release or a
// pseudo-version, not a build go did not stamp.
func isKnownVersion(version string) bool {
	return version != "" && version != "(devel)" && version != "(unknown)"
}

// checkHandedOver refuses, in scru128-etcd, a run that a scru128 of another
// version handed over: it reports it and returns ExitUsage and false. A
// run not handed over, or handed over by the same version, returns true.
func checkHandedOver(e *Env) (int, bool) {
	toolVersion := e.getenv(handOffVersionEnv)
	if toolVersion == "" {
		return ExitOK, true
	}
	info, _ := debug.ReadBuildInfo()
	version, revision := buildVersion(info)
	if msg := handOffMismatch(toolVersion, e.getenv(handOffRevisionEnv), version, revision); msg != "" {
		Warn(e, msg)
		return ExitUsage, false
	}
	return ExitOK, true
}

// handOffMismatch returns why scru128-etcd of version and revision refuses
// a run handed over by a scru128 of toolVersion and toolRevision, or "" when
// they agree. Two known versions must be equal; where either is a build go
// did not stamp, two revisions, where both are known, must be equal; with
// less known than that, the run goes on.
func handOffMismatch(toolVersion, toolRevision, version, revision string) string {
	install := "go install " + repoModule + "/cmd/scru128/...@" + toolVersion + " installs both at one version"
	switch {
	case isKnownVersion(toolVersion) && isKnownVersion(version):
		if toolVersion != version {
			return fmt.Sprintf("scru128 %s handed gen -etcd to %s %s, another version: %s", toolVersion, helperName, version, install)
		}
	case toolRevision != "" && revision != "" && toolRevision != revision:
		if !isKnownVersion(toolVersion) {
			install = "build both from one tree"
		}
		return fmt.Sprintf("scru128 of revision %s handed gen -etcd to %s of revision %s, another build: %s", toolRevision, helperName, revision, install)
	}
	return ""
}
