// Package relcost is the relevance-per-token baseline of S-RAG
// (Submodular-RAG; docs/strategies-text.md).
//
// Objective: the sum of relevance of the selection, approached by the
// knapsack density heuristic. Candidates are taken in decreasing order of
// r_i / t_i (ties: higher relevance, then earlier retrieval rank); an item
// that does not fit the remaining budget is skipped; selection stops at
// maxResults. Item.Gain is r_i (the item's contribution to the objective),
// Result.Objective the sum of r_i, Redundancy is always 0.
//
// Guarantee: none (density order alone can be arbitrarily far from the
// knapsack optimum; the knapsack strategy adds the best-single guard).
// Complexity: O(N log N).
package relcost

import (
	"context"
	"slices"

	"github.com/diverse-select/diverse-select/selectors"
)

// Name is the strategy's registry name.
const Name = "relcost"

func init() {
	selectors.Register(selectors.Definition{
		Name: Name,
		Doc:  "baseline: highest relevance per token first, skipping what does not fit the budget",
		New:  func(selectors.Params) (selectors.Strategy, error) { return strategy{}, nil },
	})
}

type strategy struct{}

// Select implements selectors.Strategy.
func (strategy) Select(ctx context.Context, p *selectors.Problem) (*selectors.Result, error) {
	c := p.Candidates
	order := make([]int, len(c))
	for i := range order {
		order[i] = i
	}
	// One precomputed key per item keeps the comparison transitive; the
	// stable sort plus selectors.Better breaks ties.
	density := make([]float64, len(c))
	for i := range c {
		density[i] = c[i].Relevance / float64(c[i].Tokens)
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case density[a] > density[b]:
			return -1
		case density[a] < density[b]:
			return 1
		case selectors.Better(c, a, b):
			return -1
		case selectors.Better(c, b, a):
			return 1
		}
		return 0
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return selectors.FillInOrder(p, order, false), nil
}
