//go:build unix && !aix

package cli

import "syscall"

// runHelper makes this process the program at path, with argv and env:
// the same pid, so that signals, the standard streams and the exit status
// are its own. It returns only when exec fails.
func runHelper(path string, argv, env []string) (int, error) {
	return 0, syscall.Exec(path, argv, env)
}
