//go:build !amd64 || purego

package simcache

// availableKernels lists the kernel sets this CPU runs: pure Go only.
func availableKernels() []kernelSet { return []kernelSet{goKernels} }
