//go:build (unix && !aix) || windows

package cli

// The -state file: found through symbolic links, locked for the whole run,
// read strictly, and replaced atomically and durably. docs/cli.md ("Who
// else can touch a state file") says what this holds against and what
// voids it.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fastid/scru128/scru64"
)

// stateFile is a -state file, locked by this run until close.
//
// The lock is on a sibling file, the target's name with ".lock" added,
// not on the state file itself: each write replaces the state file with a
// new one (a rename), and a lock on the old file would not stop a run that
// opened the new one. The lock file is never replaced or removed, so every
// run that reaches the state file, by whatever path, locks the same file:
// its name is the target's, in the target's directory. Removing it would
// let a run that opened it just before lock a file no later run sees.
type stateFile struct {
	path   string   // as given to -state
	target string   // path with every symbolic link resolved: the file read and replaced
	lock   *os.File // open, and locked, until close
}

// errStateInUse is the error of a lock another run holds.
var errStateInUse = errors.New("in use by another run")

// maxStateFile bounds what is read of a -state file: a node spec is at
// most 16 bytes and a newline.
const maxStateFile = 1 << 10

// maxLinkHops bounds the symbolic links followed from a -state path, as
// the kernel bounds them (40 on Linux).
const maxLinkHops = 40

// newFileMode is the mode a new state or lock file is created with, less
// the umask, which the kernel applies: the mode os.Create and a shell's >
// give. A state file holds no secret (its node ID and last ID are in every
// ID the node mints); who may read new files is the umask's to say.
const newFileMode fs.FileMode = 0o666

// openStateFile resolves path and locks the state file there for this
// run. It fails at once, with an error matching errStateInUse, if another
// run holds the lock.
func openStateFile(path string) (*stateFile, error) {
	s := &stateFile{path: path}
	target, err := resolveLinks(path)
	if err != nil {
		return nil, fmt.Errorf("the state file %s: %w", path, err)
	}
	s.target = target
	// What is no state file is refused before a lock file is made for it.
	if info, err := os.Lstat(target); err == nil {
		if err := checkStateFileInfo(info); err != nil {
			return nil, fmt.Errorf("the state file %s %w", s.name(), err)
		}
	}
	lockPath := target + ".lock"
	s.lock, err = lockFile(lockPath)
	switch {
	case errors.Is(err, errStateInUse):
		return nil, fmt.Errorf("the state file %s is %w (which holds the lock on %s)", s.name(), err, lockPath)
	case err != nil:
		return nil, fmt.Errorf("the state file %s: locking %s: %w", s.name(), lockPath, bareError(err))
	}
	s.removeStaleTemps()
	return s, nil
}

// name is the state file as messages name it: as given, and where a link
// led elsewhere, the file it led to.
func (s *stateFile) name() string {
	if s.target == filepath.Clean(s.path) {
		return s.path
	}
	return s.path + " (" + s.target + ")"
}

// close releases the lock.
func (s *stateFile) close() { s.lock.Close() }

// resolveLinks returns path with every symbolic link resolved, the last
// component included; unlike filepath.EvalSymlinks it accepts a last
// component that does not exist (a new state file, or a link to one),
// and then returns the path it would have.
func resolveLinks(path string) (string, error) {
	p := path
	for hops := 0; ; hops++ {
		// Split leaves the directory as it is, "..", links and all, for
		// EvalSymlinks to resolve in order, as the kernel does.
		dir, base := filepath.Split(p)
		if dir == "" {
			dir = "."
		}
		if base == "" || base == "." || base == ".." {
			return "", errors.New("it names a directory")
		}
		dir, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return "", err // naming the part of dir it could not resolve
		}
		p = filepath.Join(dir, base)
		info, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) || err == nil && info.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		if err != nil {
			return "", bareError(err)
		}
		if hops == maxLinkHops {
			return "", fmt.Errorf("more than %d symbolic links", maxLinkHops)
		}
		to, err := os.Readlink(p)
		if err != nil {
			return "", bareError(err)
		}
		if filepath.IsAbs(to) {
			p = to
		} else {
			// Not filepath.Join, which would clean a ".." in to against
			// the link's name; the kernel takes it after resolving what
			// comes before it.
			p = dir + string(filepath.Separator) + to
		}
	}
}

// bareError returns the error inside a *fs.PathError or *os.LinkError,
// whose path a message names already.
func bareError(err error) error {
	var pathErr *fs.PathError
	var linkErr *os.LinkError
	switch {
	case errors.As(err, &pathErr):
		return pathErr.Err
	case errors.As(err, &linkErr):
		return linkErr.Err
	}
	return err
}

// read returns the node spec in the file; found is false if there is no
// file. Anything else that is not one whole spec is an error: an empty
// file, or one cut short (without the newline every spec gen writes ends
// with), is never taken for no state, since a run with -node would then
// start from the clock, perhaps among IDs the file covered.
func (s *stateFile) read() (spec scru64.NodeSpec, found bool, err error) {
	info, err := os.Lstat(s.target)
	if errors.Is(err, fs.ErrNotExist) {
		return spec, false, nil
	}
	if err == nil {
		err = checkStateFileInfo(info)
	}
	if err != nil {
		return spec, false, fmt.Errorf("the state file %s %w", s.name(), err)
	}
	// Opened so that it cannot block, and checked again once open: a
	// named pipe put in its place since the Lstat is refused, not waited on.
	f, err := openNonBlocking(s.target)
	if err != nil {
		return spec, false, fmt.Errorf("reading the state file %s: %w", s.name(), bareError(err))
	}
	defer f.Close()
	if info, err = f.Stat(); err == nil {
		err = checkStateFileInfo(info)
	}
	if err != nil {
		return spec, false, fmt.Errorf("the state file %s %w", s.name(), err)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxStateFile+1))
	if err != nil {
		return spec, false, fmt.Errorf("reading the state file %s: %w", s.name(), bareError(err))
	}
	spec, err = parseStateFile(data)
	if specErr := (*scru64.NodeSpecError)(nil); errors.As(err, &specErr) {
		return spec, false, fmt.Errorf("the state file %s: %s", s.name(), Reason(err))
	}
	if err != nil {
		return spec, false, fmt.Errorf("the state file %s %w", s.name(), err)
	}
	return spec, true, nil
}

// checkStateFileInfo returns why a file is no state file, worded to
// follow "the state file F", or nil.
func checkStateFileInfo(info fs.FileInfo) error {
	mode := info.Mode()
	if !mode.IsRegular() {
		return fmt.Errorf("is not a regular file (%s)", fileKind(mode))
	}
	if n := linkCount(info); n > 1 {
		return fmt.Errorf("has %d hard links: replacing it would part them (keep one name; a symbolic link is followed)", n)
	}
	return nil
}

// parseStateFile reads a state file's content: one node spec on one line,
// which ends with a newline (CRLF too); spaces around the spec are
// ignored. Its error is a *scru64.NodeSpecError, or worded to follow "the
// state file F".
func parseStateFile(data []byte) (scru64.NodeSpec, error) {
	line, ok := strings.CutSuffix(string(data), "\n")
	switch {
	case len(data) > maxStateFile:
		return scru64.NodeSpec{}, fmt.Errorf("is not a node spec: it is over %d bytes", maxStateFile)
	case strings.TrimSpace(string(data)) == "":
		return scru64.NodeSpec{}, errors.New("is empty: gen never leaves it so, and without the spec it kept a run may repeat IDs " +
			"(delete the file only once the clock is past every ID of the node)")
	case !ok:
		return scru64.NodeSpec{}, errors.New("is cut short: it does not end with a newline, as every spec gen writes does")
	case strings.Contains(line, "\n"):
		return scru64.NodeSpec{}, errors.New("holds more than one line: want one node spec")
	}
	return scru64.ParseNodeSpec(strings.TrimSpace(line))
}

// write replaces the state file's content with data, atomically and
// durably: a temporary file in the target's directory, synced, renamed
// over the target, and the directory synced, so that a crash leaves the
// old spec or the new one, never a mix, and a spec once written survives
// a power loss. A link to the file stays a link. The new file keeps the
// old one's mode; a new state file gets newFileMode less the umask.
func (s *stateFile) write(data string) error {
	if err := s.replace(data); err != nil {
		return fmt.Errorf("writing the state file %s: %w", s.name(), err)
	}
	return nil
}

func (s *stateFile) replace(data string) (err error) {
	// A new file is made with newFileMode for the kernel to apply the
	// umask (and a directory's default ACL); an old file's mode is set
	// after, exactly, on a file no one else could open meanwhile.
	createMode, keep := newFileMode, fs.FileMode(0)
	if info, err := os.Lstat(s.target); err == nil && info.Mode().IsRegular() {
		createMode, keep = 0o600, info.Mode().Perm()
	}
	dir, base := filepath.Split(s.target)
	var tmp *os.File
	for range 100 {
		name := filepath.Join(dir, tempPrefix(base)+strconv.FormatUint(rand.Uint64(), 10)+tempSuffix)
		tmp, err = os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, createMode)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return bareError(err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			err = bareError(err)
		}
	}()
	if _, err := tmp.WriteString(data); err != nil {
		return err
	}
	if keep != 0 {
		if err := tmp.Chmod(keep); err != nil {
			return err
		}
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	// A hard link made to the file since the run began would keep the
	// file replaced here, with its older mark, under the other name: a run
	// on that name would take another lock and repeat the IDs since. So
	// the run stops here instead, with the file as it is (its mark still
	// covers every ID printed), and a run on either name is refused for
	// the two links, as at the start.
	if info, err := os.Lstat(s.target); err == nil && linkCount(info) > 1 {
		return fmt.Errorf("it has %d hard links: another name was linked to it during the run, and replacing it would leave that name an older mark (remove the other name)", linkCount(info))
	}
	return replaceFile(tmp.Name(), s.target)
}

// The temporary files of a state file F are named .F.<decimal>.tmp.
const tempSuffix = ".tmp"

func tempPrefix(base string) string { return "." + base + "." }

// removeStaleTemps removes the temporary files a killed run left beside
// the state file. With the lock held no other run writes one: a name of
// the pattern that is another file's (.F.x.1.tmp is not F's, F.x's) does
// not match, since only decimal digits come between prefix and suffix.
func (s *stateFile) removeStaleTemps() {
	dir, base := filepath.Split(s.target)
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return // harmless: they stay
	}
	prefix := tempPrefix(base)
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		if middle, ok := strings.CutSuffix(rest, tempSuffix); ok && middle != "" && strings.Trim(middle, "0123456789") == "" {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
