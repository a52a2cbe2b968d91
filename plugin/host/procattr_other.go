//go:build !linux

package host

import "syscall"

// procAttr: outside Linux there is no parent-death signal; plugins end with
// Close (Weaviate's shutdown) or when they notice their stdin closing.
func procAttr() *syscall.SysProcAttr { return nil }
