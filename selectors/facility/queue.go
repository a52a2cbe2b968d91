package facility

import "github.com/diverse-select/diverse-select/selectors"

// entry is a candidate with its (possibly stale) key and gain.
type entry struct {
	key, gain float64
	idx       int
}

// queue is a binary max-heap of entries ordered by key, then the shared tie
// rule (higher relevance, then lower index).
type queue struct {
	c []selectors.Candidate
	e []entry
}

func newQueue(c []selectors.Candidate, capacity int) *queue {
	return &queue{c: c, e: make([]entry, 0, capacity)}
}

func (q *queue) len() int { return len(q.e) }

// above reports whether a is popped before b.
func (q *queue) above(a, b entry) bool {
	if a.key != b.key {
		return a.key > b.key
	}
	return selectors.Better(q.c, a.idx, b.idx)
}

func (q *queue) push(x entry) {
	q.e = append(q.e, x)
	i := len(q.e) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !q.above(q.e[i], q.e[parent]) {
			break
		}
		q.e[i], q.e[parent] = q.e[parent], q.e[i]
		i = parent
	}
}

func (q *queue) pop() entry {
	top := q.e[0]
	last := len(q.e) - 1
	q.e[0] = q.e[last]
	q.e = q.e[:last]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < last && q.above(q.e[l], q.e[m]) {
			m = l
		}
		if r < last && q.above(q.e[r], q.e[m]) {
			m = r
		}
		if m == i {
			return top
		}
		q.e[i], q.e[m] = q.e[m], q.e[i]
		i = m
	}
}
