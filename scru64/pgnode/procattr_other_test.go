//go:build !linux

package pgnode_test

import "syscall"

// procAttr runs a server program as the current user: only Linux has a
// parent-death signal, so elsewhere a test process that dies may leave
// its servers running. Running as another user is left to Linux too.
func procAttr(u *serverUser, _ syscall.Signal) *syscall.SysProcAttr {
	if u != nil {
		panic("running the servers as another user is supported on Linux only")
	}
	return nil
}
