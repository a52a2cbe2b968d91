package lazyheap

import (
	"math/rand"
	"sort"
	"testing"

	"github.com/diverse-select/diverse-select/selectors"
)

// TestPopOrder checks that pops come out by key, then higher relevance, then
// lower index, on random keys with many ties.
func TestPopOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 200; trial++ {
		n := 1 + rng.Intn(40)
		c := make([]selectors.Candidate, n)
		for i := range c {
			c[i].Relevance = float64(rng.Intn(3))
		}
		h := New(c, 0)
		var want []Entry
		for i := 0; i < n; i++ {
			e := Entry{Key: float64(rng.Intn(4)), Gain: rng.Float64(), Index: i}
			h.Push(e)
			want = append(want, e)
		}
		sort.SliceStable(want, func(a, b int) bool {
			if want[a].Key != want[b].Key {
				return want[a].Key > want[b].Key
			}
			return selectors.Better(c, want[a].Index, want[b].Index)
		})
		for i, w := range want {
			if got := h.Pop(); got != w {
				t.Fatalf("trial %d pop %d: got %+v, want %+v", trial, i, got, w)
			}
		}
		if h.Len() != 0 {
			t.Fatalf("heap not empty")
		}
	}
}
