package pgnode_test

import "syscall"

// procAttr runs a server program as u (if not nil), and has the kernel
// send it sig when the thread that started it exits (see spawn).
func procAttr(u *serverUser, sig syscall.Signal) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Pdeathsig: sig}
	if u != nil {
		a.Credential = &syscall.Credential{Uid: u.uid, Gid: u.gid}
	}
	return a
}
