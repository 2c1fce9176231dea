//go:build !unix

package moto

import (
	"errors"
	"os"
	"syscall"
)

// The local stack runs on Linux and macOS; process groups are a Unix notion.
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
