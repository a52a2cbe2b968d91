package stack

import "syscall"

// procAttr makes the kernel kill a started process when the process that
// started it dies, so a crashed test binary or demo (a panic, a SIGKILL)
// does not leave an embedder and a Weaviate server running.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
