//go:build unix && !aix

package cli

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// nonBlockingOpen makes an open of a named pipe return at once, not wait
// for a writer; it does not change how a regular file is read.
const nonBlockingOpen = unix.O_NONBLOCK

// lockFile opens the lock file at path, making it if need be, and takes
// an exclusive flock on it, without waiting: if another open file holds
// one, it fails with errStateInUse. The lock lasts until the file is
// closed, or the process ends, however it ends.
func lockFile(path string) (*os.File, error) {
	// Read-only is enough to lock. O_NOFOLLOW: a link planted where the
	// lock file goes is refused, not followed to some other file.
	// O_NONBLOCK: a named pipe planted there opens at once, to be refused,
	// where a plain open would wait for a writer.
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE|unix.O_NOFOLLOW|nonBlockingOpen, newFileMode)
	if err != nil {
		return nil, err
	}
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = fmt.Errorf("it is %s, not a regular file", fileKind(info.Mode()))
		}
		return nil, err
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		if err == unix.EWOULDBLOCK {
			return nil, errStateInUse
		}
		return nil, err
	}
	return f, nil
}

// replaceFile renames tmp over target and syncs the directory, which makes
// the rename durable.
func replaceFile(tmp, target string) error {
	if err := os.Rename(tmp, target); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(target))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// linkCount returns the number of hard links to the file of info.
func linkCount(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
