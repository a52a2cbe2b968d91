package selectors

import (
	"context"
	"fmt"
	"runtime/debug"
	"sort"
)

// Run validates p, applies the dedupThreshold pre-pass, runs the strategy,
// checks its selection against the constraints, and returns the items in the
// requested order. A strategy bug surfaces as an error, never as a panic.
func (s *Selector) Run(ctx context.Context, p *Problem) (res *Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, &PanicError{Strategy: s.Def.Name, Value: r, Stack: debug.Stack()}
		}
	}()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if (s.Def.NeedsVectors || p.DedupThreshold > 0) && len(p.Candidates) > 0 && !p.HasVectors() {
		return nil, invalid("strategy %q needs a vector for every candidate", s.Def.Name)
	}
	if p.MaxMatrixBytes > 0 {
		if need := s.MatrixBytes(len(p.Candidates)); need > p.MaxMatrixBytes {
			return nil, fmt.Errorf("%w: strategy %q needs %s of N x N matrices for %d candidates, above the cap of %s; "+
				"use fewer candidates or a strategy that reads only similarity rows (adagres, mmr, dpp)",
				ErrMatrixTooLarge, s.Def.Name, MiB(need), len(p.Candidates), MiB(p.MaxMatrixBytes))
		}
	}
	if b, ok := p.Similarities.(ContextBinder); ok {
		b.BindContext(ctx)
		defer func() {
			if err == nil && ctx.Err() != nil {
				res, err = nil, fmt.Errorf("similarities cut short: %w", context.Cause(ctx))
			}
		}()
	}
	work, kept, removed := p, []int(nil), 0
	if p.DedupThreshold > 0 {
		work, kept = dedup(p)
		removed = len(p.Candidates) - len(kept)
	}
	if len(work.Preselected) > 0 && !s.Def.Continues {
		// The strategy knows nothing of earlier pages: it selects from the rest.
		var rest []int
		work, rest = work.without(work.Preselected)
		kept = compose(kept, rest)
	}
	if len(work.Candidates) == 0 {
		return &Result{Strategy: s.Def.Name, Items: []Item{}, Budget: p.Budget, Removed: removed, Stats: map[string]float64{},
			Stop: StopPool}, nil
	}
	res, err = s.impl.Select(ctx, work)
	if err != nil {
		return nil, err
	}
	if err := CheckSelection(work, res); err != nil {
		return nil, fmt.Errorf("strategy %q: %w", s.Def.Name, err)
	}
	if res.Stop == "" {
		res.Stop = stopReason(work, res)
	}
	if kept != nil {
		for i := range res.Items {
			res.Items[i].Index = kept[res.Items[i].Index]
		}
	}
	res.Removed = removed
	res.Strategy = s.Def.Name
	res.Budget = p.Budget
	res.TokensUsed = 0
	for i := range res.Items {
		res.Items[i].Rank = i + 1
		res.TokensUsed += res.Items[i].Tokens
	}
	if res.Stats == nil {
		res.Stats = map[string]float64{}
	}
	applyOrder(p.Order, res.Items)
	return res, nil
}

// PanicError is a strategy's panic, turned into an error by Run. Its message
// leaves out the stack, which a server logs rather than sends to a client.
type PanicError struct {
	Strategy string
	Value    any
	Stack    []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("strategy %q panicked: %v", e.Strategy, e.Value)
}

// MiB formats a byte count as the memory caps' messages give it, in MiB
// with one decimal.
func MiB(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// CheckSelection verifies a selection against its problem: indices in range
// and distinct, at most p.K() items, within p.Budget. Run applies it to every
// strategy's result; the plugin host to what a plugin returns.
func CheckSelection(p *Problem, res *Result) error {
	if res == nil {
		return fmt.Errorf("returned no result")
	}
	n := len(p.Candidates)
	if len(res.Items) > p.K() {
		return fmt.Errorf("%d items selected, more than maxResults %d", len(res.Items), p.K())
	}
	seen := make(map[int]bool, len(res.Items)+len(p.Preselected))
	for _, i := range p.Preselected {
		seen[i] = true
	}
	used := 0
	for _, it := range res.Items {
		if it.Index < 0 || it.Index >= n {
			return fmt.Errorf("index %d is out of range: %d candidates, indices 0 to %d", it.Index, n, n-1)
		}
		if seen[it.Index] {
			return fmt.Errorf("index %d selected twice (or preselected)", it.Index)
		}
		seen[it.Index] = true
		used += p.Candidates[it.Index].Tokens
	}
	if p.Budget > 0 && used > p.Budget {
		return fmt.Errorf("the selection uses %d tokens, over the token budget of %d", used, p.Budget)
	}
	return nil
}

// dedup removes every candidate whose cosine to a more relevant candidate
// (ties: earlier retrieval rank) is >= the threshold. It returns the reduced
// problem and the original indices of the kept candidates.
func dedup(p *Problem) (*Problem, []int) {
	sims := similaritiesFor(p)
	order := ByRelevance(p.Candidates)
	row := make([]float32, len(p.Candidates))
	removed := make([]bool, len(p.Candidates))
	for pos, i := range order {
		sims.Row(i, row)
		for _, j := range order[pos+1:] {
			if float64(row[j]) >= p.DedupThreshold {
				removed[j] = true
			}
		}
	}
	var kept []int
	for i := range p.Candidates {
		if !removed[i] {
			kept = append(kept, i)
		}
	}
	return p.subset(kept, sims), kept
}

// subset is the problem restricted to the candidates kept (ascending
// indices), reusing sims when it can be subset; Preselected is mapped onto
// the kept indices (a preselected candidate not kept is dropped).
func (p *Problem) subset(kept []int, sims Similarities) *Problem {
	q := *p
	q.Candidates = make([]Candidate, len(kept))
	pos := make(map[int]int, len(kept))
	for k, i := range kept {
		q.Candidates[k] = p.Candidates[i]
		pos[i] = k
	}
	q.Similarities = nil
	if sub, ok := sims.(Subsetter); ok {
		q.Similarities = sub.Subset(kept)
	}
	q.Preselected = nil
	for _, i := range p.Preselected {
		if k, ok := pos[i]; ok {
			q.Preselected = append(q.Preselected, k)
		}
	}
	return &q
}

// without is the problem without the candidates drop, and the original
// indices of the rest.
func (p *Problem) without(drop []int) (*Problem, []int) {
	out := make([]bool, len(p.Candidates))
	for _, i := range drop {
		out[i] = true
	}
	rest := make([]int, 0, len(p.Candidates)-len(drop))
	for i := range p.Candidates {
		if !out[i] {
			rest = append(rest, i)
		}
	}
	q := p.subset(rest, p.Similarities)
	q.Preselected = nil
	return q, rest
}

// compose maps indices through two successive subsets (outer nil = identity).
func compose(outer, inner []int) []int {
	if outer == nil {
		return inner
	}
	out := make([]int, len(inner))
	for k, i := range inner {
		out[k] = outer[i]
	}
	return out
}

// ByRelevance returns candidate indices by decreasing relevance, ties broken
// by lower original index: the tie rule every strategy follows.
func ByRelevance(c []Candidate) []int {
	idx := make([]int, len(c))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return c[idx[a]].Relevance > c[idx[b]].Relevance })
	return idx
}

// Better reports whether candidate a beats candidate b at equal score: higher
// relevance first, then lower original index.
func Better(c []Candidate, a, b int) bool {
	if c[a].Relevance != c[b].Relevance {
		return c[a].Relevance > c[b].Relevance
	}
	return a < b
}

// applyOrder reorders items (given in selection order) as requested.
func applyOrder(o Order, items []Item) {
	switch o {
	case OrderRelevance:
		sort.SliceStable(items, func(a, b int) bool {
			if items[a].Relevance != items[b].Relevance {
				return items[a].Relevance > items[b].Relevance
			}
			return items[a].Index < items[b].Index
		})
	case OrderEdges:
		// Selection order is usefulness order: ranks 1,3,5,... fill the list
		// from the front, ranks 2,4,6,... from the back.
		src := append([]Item(nil), items...)
		front, back := 0, len(items)-1
		for k, it := range src {
			if k%2 == 0 {
				items[front] = it
				front++
			} else {
				items[back] = it
				back--
			}
		}
	}
}

// FillInOrder walks the candidates in the given order and adds each one that
// fits the remaining budget, until p.K() items are selected; with
// stopAtMisfit the walk ends at the first item that does not fit. Gain and
// objective are relevance: the walk of the baselines topk and relcost.
func FillInOrder(p *Problem, order []int, stopAtMisfit bool) *Result {
	res := &Result{}
	used := 0
	for _, i := range order {
		if len(res.Items) == p.K() {
			break
		}
		c := p.Candidates[i]
		if !p.Fits(used, c.Tokens) {
			if stopAtMisfit {
				break
			}
			continue
		}
		used += c.Tokens
		res.Objective += c.Relevance
		res.Items = append(res.Items, Item{Index: i, Gain: c.Relevance, Relevance: c.Relevance, Tokens: c.Tokens})
	}
	return res
}
