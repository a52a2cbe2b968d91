//go:build !linux

package simcache

import "time"

func threadCPU() (time.Duration, bool) { return 0, false }
