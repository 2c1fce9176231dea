//go:build unix

package moto

import (
	"errors"
	"syscall"
)

const (
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)

// sysProcAttr puts the server in its own process group, so a signal to the
// group reaches moto and anything it spawns, and the terminal's Ctrl-C to
// the test's group does not.
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
