//go:build unix && !linux

package moto

import "syscall"

// setParentDeathSignal is Linux-only; elsewhere Stop (via localtest.Main)
// is the only cleanup.
func setParentDeathSignal(*syscall.SysProcAttr) {}
