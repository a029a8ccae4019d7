//go:build windows

package cli

import (
	"os"
	"syscall"
)

// endingSignals are the signals that end a Go program on Windows unless it
// catches them: Ctrl-C and Ctrl-Break arrive as SIGINT; closing the
// console, logging off and shutting down arrive as SIGTERM. gen catches
// them, so that none ends a run without its state saved or its
// continuation printed.
var endingSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// keepIgnored are the signals gen leaves ignored if it was started with
// them ignored: none on Windows.
var keepIgnored []os.Signal
