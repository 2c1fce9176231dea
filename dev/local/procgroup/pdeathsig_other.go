//go:build unix && !linux

package procgroup

import "syscall"

// setParentDeathSignal is Linux-only; elsewhere the caller's Stop or Close is
// the only cleanup.
func setParentDeathSignal(*syscall.SysProcAttr) {}
