//go:build unix && !aix

package cli

import (
	"fmt"
	"os"
	"syscall"
)

// runHelper makes this process the program at path, with argv and env:
// the same pid, so that signals, the standard streams and the exit status
// are its own. It returns only when exec fails.
func runHelper(path string, argv, env []string) (int, error) {
	return 0, syscall.Exec(path, argv, env)
}

// untrustedHelper returns why the scru128-etcd at path may hold what a
// user who cannot change this scru128's executable wrote, or "": on Unix,
// when another user owns it, when others may write it and not scru128, or
// when its group may write it and not scru128's (under a umask of 002,
// go install leaves both group-writable, by the same group). Such a user
// would otherwise run code of their choice as whoever runs gen -etcd. (Its
// directory is scru128's own, whose safety is the installer's, as for
// scru128 itself.)
func untrustedHelper(path string) string {
	var helper, self syscall.Stat_t
	if err := syscall.Stat(path, &helper); err != nil {
		return "cannot be examined: " + err.Error()
	}
	exe, err := os.Executable()
	if err == nil {
		err = syscall.Stat(exe, &self)
	}
	if err != nil {
		return "cannot be compared with this scru128: " + err.Error()
	}
	mode, selfMode := os.FileMode(helper.Mode&0o777), os.FileMode(self.Mode&0o777)
	switch {
	case helper.Uid != self.Uid:
		return fmt.Sprintf("another user owns (uid %d; this scru128's owner has uid %d)", helper.Uid, self.Uid)
	case mode&0o002 != 0 && selfMode&0o002 == 0:
		return fmt.Sprintf("any user may write (mode %v; this scru128's is %v)", mode, selfMode)
	case mode&0o020 != 0 && (selfMode&0o020 == 0 || helper.Gid != self.Gid):
		return fmt.Sprintf("its group may write (mode %v, gid %d; this scru128's is %v, gid %d)", mode, helper.Gid, selfMode, self.Gid)
	}
	return ""
}
