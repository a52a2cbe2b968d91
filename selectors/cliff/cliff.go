// Package cliff is the SAGE gradient-based dynamic cutoff as written up
// in docs/strategies-text.md: keep the chunks before a sharp drop in relevance.
//
// Objective: none global; a cutoff of the relevance-sorted list. Candidates
// are walked by decreasing relevance s (ties: earlier retrieval rank). Until
// minK items are selected, every item that fits is taken. After that, item i
// is taken while the relative drop from its predecessor in the sorted list,
// (s_{i-1} - s_i) / s_{i-1}, is <= g; the walk stops at the first larger
// drop, at s_{i-1} <= 0, at maxResults, or when the budget is exhausted.
//
// Resolutions (docs/strategies-text.md): the paper's Algorithm 2 compares with
// score/g and its prose with "1/g times the predecessor", which cannot both
// hold for g < 1; we implement the prose's intent as the
// relative drop between neighbours. minK counts selected items (the SAGE
// client raises it to ask for more context). An item that does not fit the
// remaining budget is skipped, as in every strategy, but stays the
// predecessor of the next item: the cliff is a property of the score
// curve, not of the budget.
//
// Item.Gain and Relevance are s_i; Result.Objective is the sum of s_i.
// Stats: "cutoffDrop" is the relative drop that ended the walk (0 when it
// ended otherwise), "cutoffRank" the 1-based sorted position where it ended
// (0 when the list ran out).
//
// Guarantee: none (a heuristic cutoff). Complexity: O(N log N).
// Paper: SAGE (seed 002), precise retrieval by semantic chunking, gradient
// selection and LLM self-feedback; the feedback loop lives in the client.
package cliff

import (
	"context"
	"math"

	"github.com/diverse-select/diverse-select/selectors"
)

// Name is the strategy's registry name.
const Name = "cliff"

func init() {
	selectors.Register(selectors.Definition{
		Name: Name,
		Doc:  "SAGE: the most relevant chunks before the first sharp relative drop in relevance",
		Params: []selectors.ParamSpec{
			{Name: "minK", Kind: selectors.KindInt, Default: 1, Min: 1, Max: selectors.MaxCandidates,
				Doc: "items selected before the drop rule applies"},
			{Name: "g", Kind: selectors.KindFloat, Default: 0.3, Min: 0, Max: math.Inf(1),
				Doc: "largest relative drop (s_prev - s) / s_prev that still continues the list"},
		},
		New: func(p selectors.Params) (selectors.Strategy, error) {
			return strategy{minK: p.Int("minK"), g: p.Float("g")}, nil
		},
	})
}

type strategy struct {
	minK int
	g    float64
}

// Select implements selectors.Strategy.
func (s strategy) Select(ctx context.Context, p *selectors.Problem) (*selectors.Result, error) {
	c := p.Candidates
	res := &selectors.Result{Stats: map[string]float64{"cutoffDrop": 0, "cutoffRank": 0}}
	order := selectors.ByRelevance(c)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	used := 0
	for pos, i := range order {
		if len(res.Items) == p.K() || (p.Budget > 0 && used >= p.Budget) {
			break
		}
		if len(res.Items) >= s.minK && pos > 0 {
			prev := c[order[pos-1]].Relevance
			if prev <= 0 {
				res.Stats["cutoffRank"] = float64(pos + 1)
				break
			}
			if drop := (prev - c[i].Relevance) / prev; drop > s.g {
				res.Stats["cutoffDrop"] = drop
				res.Stats["cutoffRank"] = float64(pos + 1)
				break
			}
		}
		if !p.Fits(used, c[i].Tokens) {
			continue
		}
		used += c[i].Tokens
		res.Objective += c[i].Relevance
		res.Items = append(res.Items, selectors.Item{Index: i, Gain: c[i].Relevance, Relevance: c[i].Relevance, Tokens: c[i].Tokens})
	}
	return res, nil
}
