//go:build !unix

// Package procgroup: process groups are a Unix notion; elsewhere the process
// alone is killed.
package procgroup

import (
	"errors"
	"os"
	"syscall"
)

// Term and Kill are placeholders: Signal kills the process whatever sig is.
const (
	Term = syscall.Signal(0)
	Kill = syscall.Signal(0)
)

// Attr returns nil: no process groups.
func Attr() *syscall.SysProcAttr { return nil }

// Signal kills the process pid.
func Signal(pid int, _ syscall.Signal) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return errors.Join(errors.ErrUnsupported, err)
	}
	return p.Kill()
}
