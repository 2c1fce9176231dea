//go:build unix

// Package procgroup starts local servers and function runtimes in their own
// process group and signals exactly that group: a signal reaches the process
// and anything it spawns, the terminal's Ctrl-C to the parent's group does
// not, and nothing outside the group is ever signalled. On Linux the kernel
// also kills the process when the thread that started it dies, so a test
// binary that panics or times out leaves nothing behind.
package procgroup

import (
	"errors"
	"syscall"
)

// Term and Kill are the signals Stop-style code sends: Term first, Kill
// after a grace period.
const (
	Term = syscall.SIGTERM
	Kill = syscall.SIGKILL
)

// Attr returns the SysProcAttr for exec.Cmd: a new process group, and on
// Linux a parent-death SIGKILL.
func Attr() *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(attr)
	return attr
}

// Signal sends sig to the process group pgid (a process started with Attr
// leads a group whose id is its pid). A group that no longer exists is not
// an error; pgid 0 or 1 is refused.
func Signal(pgid int, sig syscall.Signal) error {
	if pgid <= 1 {
		return errors.New("refusing to signal process group <= 1")
	}
	if err := syscall.Kill(-pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}
