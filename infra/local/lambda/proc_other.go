//go:build !unix

package lambda

import (
	"errors"
	"os"
	"syscall"
)

// Process groups are a Unix notion; elsewhere the process alone is killed.
const (
	sigTerm = syscall.Signal(0)
	sigKill = syscall.Signal(0)
)

func sysProcAttr() *syscall.SysProcAttr { return nil }

func killGroup(pid int, _ syscall.Signal) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return errors.Join(errors.ErrUnsupported, err)
	}
	return p.Kill()
}
