package facility

import (
	"context"
	"math"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/internal/lazyheap"
)

// lazyGreedy maximises f by lazy greedy (Minoux 1978): stale gains are upper
// bounds since f is submodular, so only the top of the queue is re-evaluated.
// With a budget the key is gain/tokens (density greedy) and items that no
// longer fit are dropped. The selection is identical to naive greedy's,
// ties included: the queue orders by key, then higher relevance, then lower
// index, and an item is taken only when it reaches the top with a gain
// computed for the current selection, so it beats every other bound under
// that order. Floating-point gains are monotone too (each term
// max(0, k-cur) only shrinks as cur grows), so bounds stay valid.
//
// It also returns the first-round gains (NaN for items that never fit),
// which the best-single guard needs: f({i}), or, after earlier pages
// (p.Preselected, added to the state before the first round so the greedy
// continues from them), the gains given those.
func lazyGreedy(ctx context.Context, p *selectors.Problem, o *objective) ([]selectors.Item, []float64, error) {
	c := p.Candidates
	n, k := len(c), p.K()
	density := p.Budget > 0
	key := func(i int, g float64) float64 {
		if density {
			return g / float64(c[i].Tokens)
		}
		return g
	}
	cur := make([]float32, n)
	fresh := make([]int, n) // fresh[i] == len(items)+1 when i's entry is current
	h := lazyheap.New(c, n)
	single := make([]float64, n)
	taken := make([]bool, n)
	for _, i := range p.Preselected {
		o.k.update(i, cur)
		taken[i] = true
	}
	for i := range c {
		single[i] = math.NaN()
		if !taken[i] && p.Fits(0, c[i].Tokens) {
			g := o.gain(i, cur)
			single[i] = g
			h.Push(lazyheap.Entry{Key: key(i, g), Gain: g, Index: i})
			fresh[i] = 1
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	items := make([]selectors.Item, 0, min(k, 64))
	used := 0
	for len(items) < k && h.Len() > 0 {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		top := h.Pop()
		i := top.Index
		if !p.Fits(used, c[i].Tokens) {
			continue // the budget only shrinks: it never fits again
		}
		if fresh[i] != len(items)+1 {
			fresh[i] = len(items) + 1
			g := o.gain(i, cur)
			h.Push(lazyheap.Entry{Key: key(i, g), Gain: g, Index: i})
			continue
		}
		g := top.Gain
		if !(g > 0) {
			break // nothing left to gain
		}
		items = append(items, selectors.Item{Index: i, Gain: g, Relevance: c[i].Relevance,
			Redundancy: o.w2 * o.k.covered(i, cur), Tokens: c[i].Tokens})
		used += c[i].Tokens
		o.k.update(i, cur)
	}
	return items, single, nil
}
