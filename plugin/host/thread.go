package host

import "runtime"

// lockThread pins the calling goroutine to its OS thread for good.
func lockThread() { runtime.LockOSThread() }
