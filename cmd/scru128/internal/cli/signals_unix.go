//go:build unix && !aix

package cli

import (
	"os"
	"syscall"
)

// endingSignals are the signals that end a Go program unless it catches
// them: SIGHUP (a closed terminal, a dropped ssh session), SIGINT, SIGTERM,
// and those after which the runtime exits with a stack dump (SIGQUIT, and
// SIGILL, SIGTRAP, SIGABRT and SIGSYS when another process sends them).
// gen catches them all, so that none ends a run without its state saved or
// its continuation printed. (SIGSTKFLT and SIGEMT, which exist on some
// systems only and nothing sends, are left to the runtime.)
var endingSignals = []os.Signal{
	syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGILL,
	syscall.SIGTRAP, syscall.SIGABRT, syscall.SIGTERM, syscall.SIGSYS,
}

// keepIgnored are the signals that gen leaves ignored if it was started
// with them ignored: nohup starts a program with SIGHUP ignored, so that a
// closed terminal does not end it, and gen must not undo that.
var keepIgnored = []os.Signal{syscall.SIGHUP}
