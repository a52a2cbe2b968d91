// Package topk is the baseline: the most relevant candidates that fit.
//
// Objective: none beyond relevance order. Candidates are taken by decreasing
// relevance (ties: earlier retrieval rank); an item that does not fit the
// remaining token budget is skipped (fit "skip", default) or ends the
// selection (fit "stop"); selection stops at maxResults.
//
// Guarantee: exactly what a top-k retriever returns, truncated to the budget.
// Complexity: O(N log N). Paper: the top-k baseline of every seed paper.
package topk

import (
	"context"

	"github.com/diverse-select/diverse-select/selectors"
)

// Name is the strategy's registry name.
const Name = "topk"

func init() {
	selectors.Register(selectors.Definition{
		Name: Name,
		Doc:  "baseline: most relevant first, skipping what does not fit the budget",
		Params: []selectors.ParamSpec{{
			Name: "fit", Kind: selectors.KindString, Default: "skip", Enum: []string{"skip", "stop"},
			Doc: "what to do with an item that does not fit the remaining budget: skip it or stop",
		}},
		New: func(p selectors.Params) (selectors.Strategy, error) {
			return topK{stopAtMisfit: p.String("fit") == "stop"}, nil
		},
	})
}

type topK struct{ stopAtMisfit bool }

func (t topK) Select(ctx context.Context, p *selectors.Problem) (*selectors.Result, error) {
	return selectors.FillInOrder(p, selectors.ByRelevance(p.Candidates), t.stopAtMisfit), ctx.Err()
}
