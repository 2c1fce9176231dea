package lambda

import "syscall"

// setParentDeathSignal has the kernel SIGKILL a bootstrap when the thread
// that started it dies, so a crashed test binary leaves no process behind.
func setParentDeathSignal(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
