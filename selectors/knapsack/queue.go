package knapsack

import "github.com/diverse-select/diverse-select/selectors"

// entry is a candidate in the lazy greedy's queue: key is its score
// (gain/t_d or gain) as of round; a key from an earlier round is an upper
// bound of the current one, because coverage gains only shrink.
type entry struct {
	key, gain float64
	d, round  int32
}

// queue is a binary max-heap of entries, typed to avoid container/heap's
// interface boxing. Order: larger key, then selectors.Better.
type queue struct {
	e []entry
	c []selectors.Candidate
}

func (q *queue) before(a, b entry) bool {
	if a.key != b.key {
		return a.key > b.key
	}
	return selectors.Better(q.c, int(a.d), int(b.d))
}

func (q *queue) init() {
	for i := len(q.e)/2 - 1; i >= 0; i-- {
		q.down(i)
	}
}

func (q *queue) down(i int) {
	n := len(q.e)
	for {
		best, l, r := i, 2*i+1, 2*i+2
		if l < n && q.before(q.e[l], q.e[best]) {
			best = l
		}
		if r < n && q.before(q.e[r], q.e[best]) {
			best = r
		}
		if best == i {
			return
		}
		q.e[i], q.e[best] = q.e[best], q.e[i]
		i = best
	}
}

func (q *queue) pop() {
	last := len(q.e) - 1
	q.e[0] = q.e[last]
	q.e = q.e[:last]
	if last > 0 {
		q.down(0)
	}
}
