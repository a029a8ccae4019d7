//go:build windows

package cli

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// nonBlockingOpen is what makes an open return at once rather than wait
// on a special file: nothing on Windows, where no path gen opens names a
// pipe that waits (pipes live under \\.\pipe\).
const nonBlockingOpen = 0

// lockFile opens the lock file at path, making it if need be, and locks
// its first byte exclusively with LockFileEx, without waiting: if another
// handle holds the lock, it fails with errStateInUse. The lock lasts until
// the file is closed, or the process ends, however it ends.
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, newFileMode)
	if err != nil {
		return nil, err
	}
	err = windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY,
		0, 1, 0, new(windows.Overlapped))
	if err != nil {
		f.Close()
		if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
			return nil, errStateInUse
		}
		return nil, err
	}
	return f, nil
}

// replaceFile moves tmp over target with MOVEFILE_WRITE_THROUGH, which
// returns once the move is on disk. (Windows cannot flush a directory, as
// a Unix rename is made durable.)
func replaceFile(tmp, target string) error {
	from, err := windows.UTF16PtrFromString(tmp)
	if err != nil {
		return err
	}
	to, err := windows.UTF16PtrFromString(target)
	if err != nil {
		return err
	}
	if err := windows.MoveFileEx(from, to, windows.MOVEFILE_REPLACE_EXISTING|windows.MOVEFILE_WRITE_THROUGH); err != nil {
		return &os.LinkError{Op: "rename", Old: tmp, New: target, Err: err}
	}
	return nil
}

// linkCount returns 1: the file information Windows gives through
// os.Lstat has no link count, and hard links to a state file there are
// not looked for.
func linkCount(fs.FileInfo) uint64 { return 1 }
