package host

import "syscall"

// procAttr makes the kernel kill a plugin when the thread that started it
// dies: with Weaviate SIGKILLed, no plugin is left behind. The thread is a
// locked spawner thread that lives as long as the plugin (see spawner).
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
