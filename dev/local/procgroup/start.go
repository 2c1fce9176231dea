package procgroup

import (
	"os/exec"
	"runtime"
)

// Start starts cmd (whose SysProcAttr is Attr()) on a goroutine locked to
// its OS thread and returns cmd.Start's error. After a successful start
// that goroutine stays on its thread and blocks in cmd.Wait until the
// process exits, then calls exited with Wait's error: Linux's parent-death
// signal follows the forking thread, so the thread must outlive the
// process, and the wait reaps it, so no zombie is left.
func Start(cmd *exec.Cmd, exited func(error)) error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		exited(cmd.Wait())
	}()
	return <-started
}
