//go:build unix && !linux

package lambda

import "syscall"

// setParentDeathSignal is Linux-only; elsewhere Close is the only cleanup.
func setParentDeathSignal(*syscall.SysProcAttr) {}
