package coverage

import (
	"context"
	"math"
	"slices"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/internal/lazyheap"
)

// lazyGreedy maximises F by lazy greedy (Minoux 1978): F is submodular, so
// a stale gain is an upper bound and only the top of the queue needs
// re-evaluating. With a budget the key is gain/tokens (density greedy) and
// items that no longer fit are dropped for good. The selection equals the
// naive greedy's, ties included: the queue orders by key, then higher
// relevance, then lower index, and an item is taken only once it reaches
// the top with a gain computed for the current selection.
//
// It also returns single[d] = F({d}) (NaN for items that never fit), for
// minNovelty and the redundancy explanation, and first[d], the gains of the
// first round, for the best-single guard: single without earlier pages,
// else the gains given them (NaN also for their near-copies).
//
// Earlier pages (p.Preselected) are added to the state before the first
// round, so the greedy continues from them.
func (o *objective) lazyGreedy(ctx context.Context, p *selectors.Problem) (items []selectors.Item, single, first []float64, err error) {
	return o.lazyGreedyBy(ctx, p, p.Budget > 0, false)
}

// lazyGreedyBy is lazyGreedy keyed by gain per token (density) or by plain
// gain; with inWindow it takes no candidate outside the relevance window
// (precision.go), which otherwise pays for its tokens with query terms alone.
func (o *objective) lazyGreedyBy(ctx context.Context, p *selectors.Problem, density, inWindow bool) (items []selectors.Item, single, first []float64, err error) {
	c := p.Candidates
	n, k := len(c), p.K()
	key := func(d int, g float64) float64 {
		if density {
			return g / float64(c[d].Tokens)
		}
		return g
	}
	fresh := make([]int, n) // fresh[d] == len(items)+1 when d's queue entry is current
	q := lazyheap.New(c, n)
	single = make([]float64, n)
	latest := make([]float64, n) // the gain of d's newest queue entry
	out := make([]bool, n)       // selected or dropped: entries left in the queue are ignored
	for d := range c {
		single[d] = math.NaN()
		if p.Fits(0, c[d].Tokens) {
			single[d] = o.firstGain(d)
		}
	}
	first = single
	if len(p.Preselected) > 0 {
		for _, d := range p.Preselected {
			o.add(d)
			out[d] = true
		}
		first = make([]float64, n)
		for d := range c {
			first[d] = math.NaN()
			if !o.shown[d] && !math.IsNaN(single[d]) {
				first[d] = o.gain(d)
			}
		}
	}
	if inWindow && o.outside != nil {
		for d, outside := range o.outside {
			out[d] = out[d] || outside // never queued, nor by a link
		}
	}
	for d := range c {
		if g := first[d]; !out[d] && !math.IsNaN(g) {
			latest[d] = g
			q.Push(lazyheap.Entry{Key: key(d, g), Gain: g, Index: d})
			fresh[d] = 1
		}
	}
	items = make([]selectors.Item, 0, min(k, 64))
	used := 0
	for len(items) < k && q.Len() > 0 {
		if err := ctx.Err(); err != nil {
			return nil, nil, nil, err
		}
		top := q.Pop()
		d := top.Index
		if out[d] || top.Gain != latest[d] {
			continue // selected, dropped, or superseded by a later entry of d
		}
		if !p.Fits(used, c[d].Tokens) {
			out[d] = true
			continue // the budget only shrinks: it never fits again
		}
		if fresh[d] != len(items)+1 {
			fresh[d] = len(items) + 1
			g := o.gain(d)
			latest[d] = g
			q.Push(lazyheap.Entry{Key: key(d, g), Gain: g, Index: d})
			continue
		}
		if !(top.Gain > 0) {
			break // nothing left to gain; fill may still use the budget
		}
		if o.redundant(items, d, top.Gain, single[d]) {
			out[d] = true
			continue // dropped for good: see redundant
		}
		items = append(items, selectors.Item{Index: d, Gain: top.Gain, Relevance: c[d].Relevance,
			Redundancy: max(0, single[d]-top.Gain), Tokens: c[d].Tokens})
		used += c[d].Tokens
		out[d] = true
		o.add(d)
		// The second-hop demand is the one part of the gain that can grow:
		// the candidates d is linked to get a fresh entry, so no stale
		// bound understates them.
		if o.links != nil {
			for _, u := range o.links[d] {
				if !out[u] && p.Fits(used, c[u].Tokens) {
					g := o.gain(int(u))
					latest[u] = g
					q.Push(lazyheap.Entry{Key: key(int(u), g), Gain: g, Index: int(u)})
					fresh[u] = len(items) + 1
				}
			}
		}
	}
	return items, single, first, nil
}

// plainGainGreedy runs the greedy again from an empty selection, keyed by
// plain gain, and returns its items when their F is larger than items'
// (greedy "both": the cost-benefit and the unit-cost greedy of Leskovec et
// al., KDD 2007, the better of which is within (1-1/e)/2 of the optimum).
// The density greedy passes over a long chunk for the short ones that gain
// more per token, even where the long one is what the query needs; the
// plain-gain greedy takes it first. With inWindow it takes only candidates
// inside the relevance window. The objective's state is left as the second
// run's: fill, the only later reader, rebuilds it from the items.
func (o *objective) plainGainGreedy(ctx context.Context, p *selectors.Problem, items []selectors.Item, inWindow bool) ([]selectors.Item, bool, error) {
	o.reset()
	alt, _, _, err := o.lazyGreedyBy(ctx, p, false, inWindow)
	if err != nil {
		return nil, false, err
	}
	if !(objectiveOf(alt) > objectiveOf(items)) {
		return items, false, nil
	}
	return alt, true, nil
}

// longChunk is the share of the budget from which the most relevant chunk
// is long enough for the density greedy to pass it over (greedy "auto").
// make eval-check and make eval-tune, three encoders (issue 42): running
// the plain-gain greedy whenever the density greedy leaves out the most
// relevant chunk lost GloVe-SIF's HotpotQA both-gold at B = 600 (about
// three questions: short top chunks traded for longer ones further down);
// from a fifth of the budget, inside the relevance window, every floor
// holds and the held-out margins over the best baseline rise (MiniLM +4.0
// to +5.0, USE-Lite +11.9 to +13.6). 0.18 lost those HotpotQA questions
// again, 0.22 one MuSiQue question, and without the window a fifth lost a
// GloVe-SIF mixed pool's token margin: the threshold is measured, not
// derived, and sits between losses on both sides.
const longChunk = 0.2

// passedOverLong reports whether the density greedy's items leave out the
// most relevant candidate with a first-round gain (first, as lazyGreedy
// returns it: NaN for a candidate that does not fit the budget on its own
// or was shown on an earlier page, as for guardBestSingle), and that
// candidate is long: at least longChunk of the budget.
func passedOverLong(c []selectors.Candidate, budget int, first []float64, items []selectors.Item) bool {
	top := -1
	for d, f := range first {
		if !math.IsNaN(f) && (top < 0 || selectors.Better(c, d, top)) {
			top = d
		}
	}
	if top < 0 || float64(c[top].Tokens) < longChunk*float64(budget) {
		return false
	}
	return !slices.ContainsFunc(items, func(it selectors.Item) bool { return it.Index == top })
}

// objectiveOf is F of a greedy's selection: its marginal gains telescope.
func objectiveOf(items []selectors.Item) float64 {
	var f float64
	for _, it := range items {
		f += it.Gain
	}
	return f
}

// guardBestSingle returns the best single fitting item instead of the
// greedy selection when it alone has the larger F (the guard that gives
// density greedy its (1-1/e)/2 bound), and whether it did.
func guardBestSingle(c []selectors.Candidate, single []float64, items []selectors.Item) ([]selectors.Item, bool) {
	best, bestF := -1, 0.0
	for d, f := range single {
		if math.IsNaN(f) {
			continue
		}
		if best < 0 || f > bestF || (f == bestF && selectors.Better(c, d, best)) {
			best, bestF = d, f
		}
	}
	if best < 0 || !(bestF > objectiveOf(items)) {
		return items, false
	}
	return []selectors.Item{{Index: best, Gain: bestF, Relevance: c[best].Relevance, Tokens: c[best].Tokens}}, true
}

// redundant reports whether d, with marginal gain g and stand-alone value
// single, adds too little to be worth its tokens: a near-copy of a selected
// item (selectors.CopyGuard), or a gain below minNovelty of its stand-alone
// value (most of what it says is already selected). Both only become more
// true as the selection grows, so a dropped item never comes back.
func (o *objective) redundant(items []selectors.Item, d int, g, single float64) bool {
	return g < o.minNovelty*single || o.guard.CopyOfItems(items, d)
}

// fill adds the remaining fitting candidates by relevance per token (by
// relevance without a budget; ties by the shared rule) until K, recording
// each one's true marginal gain and skipping the redundant ones. The state is rebuilt from items first,
// since the guard may have replaced the greedy selection.
func (o *objective) fill(p *selectors.Problem, items []selectors.Item, single []float64) []selectors.Item {
	c := p.Candidates
	if len(items) >= p.K() {
		return items
	}
	o.reset()
	in := make([]bool, len(c))
	for _, d := range p.Preselected { // earlier pages
		o.add(d)
		in[d] = true
	}
	used := 0
	for _, it := range items {
		o.add(it.Index)
		in[it.Index] = true
		used += it.Tokens
	}
	order := make([]int, 0, len(c))
	for d := range c {
		if !in[d] {
			order = append(order, d)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ka, kb := c[a].Relevance, c[b].Relevance
		if p.Budget > 0 {
			ka, kb = ka/float64(c[a].Tokens), kb/float64(c[b].Tokens)
		}
		switch {
		case ka > kb:
			return -1
		case ka < kb:
			return 1
		case selectors.Better(c, a, b):
			return -1
		case selectors.Better(c, b, a):
			return 1
		}
		return 0
	})
	for _, d := range order {
		if len(items) >= p.K() {
			break
		}
		if !p.Fits(used, c[d].Tokens) {
			continue
		}
		g := o.gain(d)
		if o.redundant(items, d, g, single[d]) {
			continue
		}
		items = append(items, selectors.Item{Index: d, Gain: g, Relevance: c[d].Relevance,
			Redundancy: max(0, single[d]-g), Tokens: c[d].Tokens})
		used += c[d].Tokens
		o.add(d)
	}
	return items
}
