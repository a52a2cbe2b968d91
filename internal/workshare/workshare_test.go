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
