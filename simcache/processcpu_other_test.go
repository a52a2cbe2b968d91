//go:build !linux

package simcache_test

import "time"

// processCPU is unavailable here: BenchmarkStrategies reports no cpu-ns/op.
func processCPU() time.Duration { return 0 }
