package simcache

import (
	"syscall"
	"time"
)

// threadCPU is the calling thread's CPU time (RUSAGE_THREAD): on a shared
// machine it excludes the time other processes held the core, so a rate
// over it shows what the kernel does when it runs.
func threadCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
