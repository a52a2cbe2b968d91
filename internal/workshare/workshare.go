// Package workshare runs numbered units of work on the calling goroutine
// and helpers on other cores, the units handed out one at a time from a
// shared counter. A helper that starts late - waking an idle core took
// 80-100 us on the development machine, about what a whole small job takes
// - simply takes fewer units, where a fixed share per worker would hold the
// call up until it ran.
package workshare

import (
	"sync"
	"sync/atomic"
)

// Run calls unit(u) for every u < units, each once, on the calling
// goroutine and up to workers-1 helpers; it returns when all are done.
// With workers <= 1 the units run in order on the caller.
func Run(workers, units int, unit func(u int)) {
	workers = min(workers, units)
	if workers <= 1 {
		for u := range units {
			unit(u)
		}
		return
	}
	var next atomic.Int64
	work := func() {
		for u := int(next.Add(1) - 1); u < units; u = int(next.Add(1) - 1) {
			unit(u)
		}
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
}

// Ranges runs f over [0, n) cut into consecutive ranges of size items (the
// last one shorter), as Run's units: f(u, from, to) for the u-th range
// [from, to).
func Ranges(workers, n, size int, f func(u, from, to int)) {
	Run(workers, (n+size-1)/size, func(u int) { f(u, u*size, min(n, (u+1)*size)) })
}
