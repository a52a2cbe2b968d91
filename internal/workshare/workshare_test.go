package workshare

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRunEachUnitOnce: every unit runs exactly once, whatever the number of
// workers against the number of units.
func TestRunEachUnitOnce(t *testing.T) {
	for _, tc := range []struct{ workers, units int }{{0, 0}, {1, 5}, {2, 0}, {2, 1}, {2, 100}, {4, 3}, {8, 1000}} {
		counts := make([]atomic.Int32, tc.units)
		Run(tc.workers, tc.units, func(u int) { counts[u].Add(1) })
		for u := range counts {
			require.Equal(t, int32(1), counts[u].Load(), "workers=%d units=%d unit %d", tc.workers, tc.units, u)
		}
	}
}

// TestRunInOrderAlone: one worker runs the units in order on the caller.
func TestRunInOrderAlone(t *testing.T) {
	var order []int
	Run(1, 4, func(u int) { order = append(order, u) })
	require.Equal(t, []int{0, 1, 2, 3}, order)
}

// TestRanges: the ranges cover [0, n) once, in consecutive pieces of size
// (the last shorter), numbered in order.
func TestRanges(t *testing.T) {
	for _, tc := range []struct{ workers, n, size int }{{1, 0, 4}, {2, 1, 4}, {2, 8, 4}, {2, 9, 4}, {4, 1000, 64}} {
		counts := make([]atomic.Int32, tc.n)
		Ranges(tc.workers, tc.n, tc.size, func(u, from, to int) {
			require.Equal(t, u*tc.size, from)
			require.Equal(t, min(tc.n, from+tc.size), to)
			for i := from; i < to; i++ {
				counts[i].Add(1)
			}
		})
		for i := range counts {
			require.Equal(t, int32(1), counts[i].Load(), "n=%d size=%d item %d", tc.n, tc.size, i)
		}
	}
}

// TestPanicReachesCaller: a panic on a helper goroutine (or the caller) is
// raised on the caller, where its query's recover catches it, after every
// helper has stopped; the process lives on.
func TestPanicReachesCaller(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func()
	}{
		{"run, every unit", func() { Run(4, 100, func(int) { panic("boom") }) }},
		{"run, one unit", func() {
			Run(4, 1000, func(u int) {
				if u == 999 {
					panic("boom")
				}
			})
		}},
		{"go", func() { wait := Go(func() { panic("boom") }); wait() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := func() (p any) {
				defer func() { p = recover() }()
				tc.run()
				return nil
			}()
			wp, ok := got.(*Panic)
			require.True(t, ok, "recovered %v (%T), want a *Panic", got, got)
			require.Equal(t, "boom", wp.Value)
			require.NotEmpty(t, wp.Stack)
		})
	}
}
