//go:build (unix && !aix) || windows

package cli

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// MaxFlagFile bounds what gen reads of a file a flag names (a CA bundle,
// a client certificate or key): the system's whole CA bundle is some
// 200 KiB.
const MaxFlagFile = 1 << 20

// ReadFlagFile reads the file that flag names: a regular file of at most
// limit bytes. It opens the file so that the open cannot block (a named
// pipe with no writer, a terminal) and refuses anything but a regular
// file, so that the tool never waits on a pipe before its first request,
// and never reads without end (a device, a file that keeps growing). The
// error names the flag and what is wrong.
func ReadFlagFile(flag, path string, limit int64) ([]byte, error) {
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, fmt.Errorf("%s %q: cannot be read: %w", flag, path, bareError(err))
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s %q: cannot be read: %w", flag, path, bareError(err))
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s %q: is %s, not a regular file", flag, path, fileKind(info.Mode()))
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s %q: cannot be read: %w", flag, path, bareError(err))
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s %q: is over %s, more than any such file holds", flag, path, byteSize(limit))
	}
	return data, nil
}

// openNonBlocking opens path for reading without waiting on it: a named
// pipe with no writer opens at once (and is then refused as no regular
// file), where a plain open would wait for a writer.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|nonBlockingOpen, 0)
}

// fileKind names the kind of a file that is not a regular one, worded to
// follow "is".
func fileKind(mode fs.FileMode) string {
	switch {
	case mode.IsDir():
		return "a directory"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a device"
	case mode&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a special file"
}

// byteSize words a size of whole KiB or MiB.
func byteSize(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	if n >= 1<<10 && n%(1<<10) == 0 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
