//go:build windows

package cli

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
)

// runHelper runs the program at path with argv and env and the standard
// streams, and returns its exit status. Windows has no exec: the console's
// Ctrl+C and Ctrl+Break reach both processes. This one takes them on a
// channel it never reads (signal.Ignore would leave them to the default
// handler, which ends the process), so that it waits for the program to
// end, as the program decides, and returns the program's status.
func runHelper(path string, argv, env []string) (int, error) {
	signal.Notify(make(chan os.Signal, 1), os.Interrupt)
	cmd := exec.Command(path, argv[1:]...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if exit := (*exec.ExitError)(nil); errors.As(err, &exit) {
		return exit.ExitCode(), nil
	}
	if err != nil {
		return 0, err
	}
	return 0, nil
}

// untrustedHelper returns "": on Windows, who may change scru128-etcd is
// the directory's access control list's to say, as for scru128 itself.
func untrustedHelper(string) string { return "" }
