// Package knapsack is the Submodular-RAG / S-RAG strategy: weighted concept
// coverage under a token knapsack (docs/strategies-text.md).
//
// Objective: f(S) = sum of w(u) over the concepts u covered by S, where the
// concept universe U comes from the top conceptPool candidates by relevance,
// a candidate d covers U(d) (its concepts that are in U), and w(u) is the
// largest max(0, r_d) over the candidates d containing u. Concepts
// ("concepts"): "terms" (text.Terms: Unicode words, lower-cased, English
// stopwords removed, length >= 2, Snowball stem; the paper's noun/verb
// lemmas need a POS tagger, stems are our stand-in), "ngrams" (terms plus
// adjacent-term bigrams), or "clusters" (deterministic k-means of the
// normalised vectors into clamp(round(sqrt(N)), 2, 32) clusters; a candidate
// covers its own cluster). f is monotone submodular.
//
// Algorithm (the paper's Algorithm 1, fast variant): lazy density greedy.
// Take the fitting item with the largest gain(d|S)/t_d (ties: higher
// relevance, then earlier rank), stop when nothing fits, maxResults is
// reached or the best gain is 0; then return the best single fitting item
// instead if its f is larger. Without a token budget the constraint is the
// cardinality K alone and the greedy ranks by plain gain (dividing by t_d
// would penalise long chunks for a constraint that does not exist). Stale
// priority-queue keys are upper bounds by submodularity, so the lazy greedy
// returns exactly the naive greedy's selection (tested). "enumerate: 3" is
// the theoretical variant: the best of all feasible sets of size <= 2 and of
// the greedy completions of every feasible 3-item seed (N <= 30 only).
//
// Pages (Problem.Preselected): the concepts of the earlier pages' items
// count as covered, the lazy greedy continues from them and the best-single
// guard compares gains given them; Result.Objective is then f(S0+S) - f(S0).
// enumerate 3 cannot page (an error names it).
//
// Guarantee: density greedy with the best-single guard >= (1-1/e)/2 of the
// knapsack optimum; plain greedy without a budget >= 1-1/e of the
// cardinality optimum; enumerate 3 >= 1-1/e (Sviridenko 2004).
// Complexity: O(total text) extraction; O(N log N) queue operations plus one
// O(|U(d)|) gain evaluation per stale pop; enumerate 3 runs O(N^3) greedy
// completions. Clusters add O(20 * N * m * dim).
//
// Explanation: Item.Gain is the marginal coverage gain when the item was
// selected; Item.Redundancy is the weight of the item's concepts that were
// already covered then (so Gain + Redundancy = f({d})); Result.Objective is
// f(S). Stats: "universe" |U|, "clusters" m (clusters only), "singleGuard"
// 1 when the best single item replaced the greedy set, "seeds" the number
// of 3-item seeds completed (enumerate 3).
package knapsack

import (
	"context"
	"fmt"
	"slices"

	"github.com/diverse-select/diverse-select/selectors"
)

// Name is the strategy's registry name.
const Name = "knapsack"

// MaxEnumerate is the largest pool enumerate 3 accepts.
const MaxEnumerate = 30

func init() {
	selectors.Register(selectors.Definition{
		Name: Name,
		Doc:  "S-RAG: weighted concept coverage under the token budget (lazy density greedy, best-single guard)",
		Params: []selectors.ParamSpec{
			{Name: "concepts", Kind: selectors.KindString, Default: "terms", Enum: []string{"terms", "ngrams", "clusters"},
				Doc: "what a candidate covers: stemmed terms, terms plus bigrams, or its k-means cluster of vectors"},
			{Name: "conceptPool", Kind: selectors.KindInt, Default: 20, Min: 1, Max: selectors.MaxCandidates,
				Doc: "the concept universe comes from this many most relevant candidates"},
			{Name: "enumerate", Kind: selectors.KindInt, Default: 0, Min: 0, Max: 3,
				Doc: "0 = fast greedy; 3 = partial enumeration (1-1/e guarantee), pools of at most 30"},
		},
		// Texts for terms and ngrams; clusters checks its vectors in Select.
		NeedsText: true,
		Continues: true,
		New: func(p selectors.Params) (selectors.Strategy, error) {
			e := p.Int("enumerate")
			if e != 0 && e != 3 {
				return nil, &selectors.ParamError{Strategy: Name, Param: "enumerate", Msg: fmt.Sprintf("got %d, want 0 (off) or 3", e)}
			}
			return strategy{concepts: p.String("concepts"), pool: p.Int("conceptPool"), enumerate: e == 3}, nil
		},
	})
}

type strategy struct {
	concepts  string
	pool      int
	enumerate bool
}

// UsesTerms implements selectors.TermsUser: clusters compare vectors only.
func (s strategy) UsesTerms() bool { return s.concepts != "clusters" }

// UsesVectors implements selectors.VectorsUser: only clusters read vectors.
func (s strategy) UsesVectors() bool { return s.concepts == "clusters" }

// Select implements selectors.Strategy.
func (s strategy) Select(ctx context.Context, p *selectors.Problem) (*selectors.Result, error) {
	if len(p.Candidates) == 0 {
		return &selectors.Result{}, nil
	}
	if s.enumerate && len(p.Candidates) > MaxEnumerate {
		return nil, fmt.Errorf("%w: knapsack enumerate 3 allows at most %d candidates, got %d; use enumerate 0 or fewer candidates",
			selectors.ErrInvalidProblem, MaxEnumerate, len(p.Candidates))
	}
	in, stats, err := build(ctx, p, s.concepts, s.pool)
	if err != nil {
		return nil, err
	}
	if len(p.Preselected) > 0 {
		if s.enumerate {
			return nil, &selectors.ParamError{Strategy: Name, Param: "enumerate",
				Msg: "enumerate 3 searches whole sets and cannot continue earlier pages (offset); use enumerate 0 to page"}
		}
		pre := p.Preselected
		sel := in.continueWithGuard(ctx, pre, stats)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		all := append(slices.Clone(pre), sel...)
		res := &selectors.Result{Items: in.items(all)[len(pre):], Stats: stats}
		for _, it := range res.Items {
			res.Objective += it.Gain // f(S0+S) - f(S0)
		}
		return res, nil
	}
	sel := in.greedyWithGuard(ctx, stats)
	if s.enumerate {
		sel = in.enumerate3(ctx, sel, stats)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &selectors.Result{Items: in.items(sel), Objective: in.value(sel), Stats: stats}, nil
}
