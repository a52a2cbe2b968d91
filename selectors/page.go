package selectors

import (
	"context"
	"slices"
)

// Pages. A paged selection shows the pool a page at a time: each page is a
// selection under the problem's Budget and MaxResults, made with the pages
// before it counted as already shown (Problem.Preselected). A strategy that
// Continues treats them as selected, so for a greedy strategy the pages are
// one greedy run cut into pieces; the others select from the rest of the
// pool. Pages never overlap, and the same problem and offset always give the
// same page: nothing is remembered between calls, the earlier pages are
// selected again (the cost of a deep page, docs/performance.md).

// Page is one page of a paged selection.
type Page struct {
	*Result
	// Shown is how many items the pages before this one hold: offset, or
	// fewer when the pool was spent before offset.
	Shown int
	// Exhausted reports, when RunPage was asked, that the page after this
	// one is empty: the pool holds nothing more the strategy would select.
	// For the default (coverage) under a budget that prices tokens that is
	// nothing relevant left: no unshown candidate that is not a near-copy
	// of a shown one, is at least a fifth of the pool's best relevance
	// and fits the budget (selectors/coverage/precision.go); for the others, and
	// for coverage without the price, the pool is spent.
	Exhausted bool
}

// RunPage returns the page that follows the first offset items of the
// paged selection of p (offset 0: the first page, the same items Run
// selects). Offset counts items, not pages: pass the number of items the
// earlier pages returned. Items carry their rank in the whole paged
// selection (offset+1, ...). With checkExhausted it also selects the next
// page to tell whether the pool is spent. p.Preselected, if set, counts as
// shown before the first page.
func (s *Selector) RunPage(ctx context.Context, p *Problem, offset int, checkExhausted bool) (*Page, error) {
	if offset < 0 {
		return nil, invalid("offset must be >= 0 (the number of items the earlier pages showed), got %d", offset)
	}
	base := len(p.Preselected)
	shown := slices.Clone(p.Preselected)
	page := func() (*Result, error) {
		q := *p
		q.Preselected = shown
		return s.Run(ctx, &q)
	}
	for len(shown)-base < offset {
		res, err := page()
		if err != nil {
			return nil, err
		}
		if len(res.Items) == 0 {
			break // the pool is spent before offset
		}
		shown = appendBySelection(shown, res.Items, base+offset-len(shown))
	}
	res, err := page()
	if err != nil {
		return nil, err
	}
	out := &Page{Result: res, Shown: len(shown) - base, Exhausted: len(res.Items) == 0}
	for i := range res.Items {
		res.Items[i].Rank += out.Shown
	}
	if checkExhausted && len(res.Items) > 0 {
		shown = appendBySelection(shown, res.Items, len(res.Items))
		next, err := page()
		if err != nil {
			return nil, err
		}
		out.Exhausted = len(next.Items) == 0
	}
	return out, nil
}

// appendBySelection appends the indices of up to n items, in the order
// they were selected (Rank), whatever order the result was given in.
func appendBySelection(shown []int, items []Item, n int) []int {
	byRank := slices.Clone(items)
	slices.SortFunc(byRank, func(a, b Item) int { return a.Rank - b.Rank })
	for _, it := range byRank[:min(n, len(byRank))] {
		shown = append(shown, it.Index)
	}
	return shown
}
