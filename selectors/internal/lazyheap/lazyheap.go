// Package lazyheap is the priority queue of the lazy greedy algorithms
// (facility, coverage): a binary max-heap of candidates keyed by a possibly
// stale score. For a submodular objective a stale key is an upper bound of
// the current one, so only the top needs re-evaluating.
//
// It is typed, not built on container/heap, to avoid boxing every entry in
// an interface in the selection's inner loop.
package lazyheap

import "github.com/diverse-select/diverse-select/selectors"

// Entry is a candidate with its key (the score the heap orders by) and the
// gain that key came from.
type Entry struct {
	Key, Gain float64
	Index     int
}

// Heap orders entries by larger key, then the shared tie rule
// (selectors.Better: higher relevance, then lower original index), so a lazy
// greedy breaks ties exactly as the naive one.
type Heap struct {
	c []selectors.Candidate
	e []Entry
}

// New returns an empty heap over the problem's candidates.
func New(c []selectors.Candidate, capacity int) *Heap {
	return &Heap{c: c, e: make([]Entry, 0, capacity)}
}

// Len is the number of entries.
func (h *Heap) Len() int { return len(h.e) }

func (h *Heap) above(a, b Entry) bool {
	if a.Key != b.Key {
		return a.Key > b.Key
	}
	return selectors.Better(h.c, a.Index, b.Index)
}

// Push adds an entry.
func (h *Heap) Push(x Entry) {
	h.e = append(h.e, x)
	i := len(h.e) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !h.above(h.e[i], h.e[parent]) {
			break
		}
		h.e[i], h.e[parent] = h.e[parent], h.e[i]
		i = parent
	}
}

// Pop removes and returns the top entry; the heap must not be empty.
func (h *Heap) Pop() Entry {
	top := h.e[0]
	last := len(h.e) - 1
	h.e[0] = h.e[last]
	h.e = h.e[:last]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < last && h.above(h.e[l], h.e[m]) {
			m = l
		}
		if r < last && h.above(h.e[r], h.e[m]) {
			m = r
		}
		if m == i {
			return top
		}
		h.e[i], h.e[m] = h.e[m], h.e[i]
		i = m
	}
}
