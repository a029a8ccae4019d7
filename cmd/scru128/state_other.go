//go:build (!unix && !windows) || aix

package main

import (
	"io/fs"
	"os"
)

// lockFile fails: gen locks a state file with flock or LockFileEx, which
// this platform lacks, and a state file it cannot lock it does not use.
func lockFile(string) (*os.File, error) { return nil, errLockUnsupported }

// replaceFile renames tmp over target.
func replaceFile(tmp, target string) error { return os.Rename(tmp, target) }

// linkCount returns 1: hard links are not looked for.
func linkCount(fs.FileInfo) uint64 { return 1 }
