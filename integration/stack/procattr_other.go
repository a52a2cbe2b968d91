//go:build !linux

package stack

import "syscall"

// procAttr is a no-op where the kernel has no parent-death signal.
func procAttr() *syscall.SysProcAttr { return nil }
