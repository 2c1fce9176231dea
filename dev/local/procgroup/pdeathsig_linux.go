package procgroup

import "syscall"

// setParentDeathSignal has the kernel SIGKILL the process when the thread
// that started it dies.
func setParentDeathSignal(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
