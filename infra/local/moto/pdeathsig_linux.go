package moto

import "syscall"

// setParentDeathSignal has the kernel SIGKILL the server when the thread
// that started it dies, so a test binary that panics or times out (and so
// never reaches Stop) leaves no moto_server behind.
func setParentDeathSignal(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
