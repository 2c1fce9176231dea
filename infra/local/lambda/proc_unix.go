//go:build unix

package lambda

import (
	"errors"
	"syscall"
)

const (
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)

// sysProcAttr puts a bootstrap in its own process group, so a signal to the
// group reaches anything it spawns and the terminal's Ctrl-C does not reach
// it before Close does.
func sysProcAttr() *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(attr)
	return attr
}

// killGroup signals the process group pgid. A group that no longer exists
// is not an error.
func killGroup(pgid int, sig syscall.Signal) error {
	if pgid <= 1 {
		return errors.New("refusing to signal process group <= 1")
	}
	if err := syscall.Kill(-pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}
