// Package workshare runs numbered units of work on the calling goroutine
// and helpers on other cores, the units handed out one at a time from a
// shared counter. A helper that starts late - waking an idle core took
// 80-100 us on the development machine, about what a whole small job takes
// - simply takes fewer units, where a fixed share per worker would hold the
// call up until it ran.
package workshare

import (
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// Panic is a panic of a helper goroutine, raised again on the goroutine that
// waits for it: a panic on a goroutine of its own would end the process, out
// of reach of the recover that guards the caller's query.
type Panic struct {
	Value any
	Stack []byte // the helper's
}

func (p *Panic) String() string {
	return fmt.Sprintf("%v (on a helper goroutine)\n%s", p.Value, p.Stack)
}

// catch records the first panic of a goroutine into first.
func catch(first *atomic.Pointer[Panic]) {
	if v := recover(); v != nil {
		p, ok := v.(*Panic)
		if !ok {
			p = &Panic{Value: v, Stack: debug.Stack()}
		}
		first.CompareAndSwap(nil, p)
	}
}

// Go runs f on another goroutine; wait blocks until f has returned and
// raises f's panic, if any, on the waiting goroutine.
func Go(f func()) (wait func()) {
	var first atomic.Pointer[Panic]
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer catch(&first)
		f()
	}()
	return func() {
		<-done
		if p := first.Load(); p != nil {
			panic(p)
		}
	}
}

// Run calls unit(u) for every u < units, each once, on the calling
// goroutine and up to workers-1 helpers; it returns when all are done. A
// panic of a unit stops the handing out of units and is raised on the
// caller (as a *Panic) once every helper has stopped.
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
	var first atomic.Pointer[Panic]
	work := func() {
		defer catch(&first)
		for u := int(next.Add(1) - 1); u < units && first.Load() == nil; u = int(next.Add(1) - 1) {
			unit(u)
		}
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait() // a panic of any unit, the caller's too, is raised once no helper touches the work
	if p := first.Load(); p != nil {
		panic(p)
	}
}

// Ranges runs f over [0, n) cut into consecutive ranges of size items (the
// last one shorter), as Run's units: f(u, from, to) for the u-th range
// [from, to).
func Ranges(workers, n, size int, f func(u, from, to int)) {
	Run(workers, (n+size-1)/size, func(u int) { f(u, u*size, min(n, (u+1)*size)) })
}
