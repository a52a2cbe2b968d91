// Package facility implements DRAG's selection objective: a feature-based
// relevance term plus facility location over the candidate pool
// (DRAG thesis; facility location as in apricot and
// submodlib), written up in docs/strategies-vector.md.
//
// Objective: f(S) = w1 * sum_{i in S} q_i*log(1 + gamma*max(0, r_i))
// + w2 * sum_{u in V} max_{a in S} k(a,u), V = all candidates, w1 = 1-w2.
// r is clamped at 0 inside the logarithm (log(1+gamma*r) is undefined for
// r <= -1/gamma, and a negative relevance should add nothing, not subtract).
// Kernels: cosine clipped at 0; euclidean 1/(1+||a-u||) and sqeuclidean
// 1/(1+||a-u||^2) on the raw vectors, with ||a-u||^2 derived from the
// cosine matrix as ||a||^2 + ||u||^2 - 2||a||*||u||*cos(a,u) (clamped at 0).
// nnz > 0 keeps, for each u, only its nnz largest kernel values (ties: lower
// index). Weights q: none, onehot (relevance-rank bins: top ceil(5% N), next
// ceil(10% N) - ceil(5% N), rest), decay (30 equal-width relevance bins).
//
// Algorithm: without a token budget, lazy greedy on the marginal gain up to
// maxResults; with a budget, lazy density greedy (gain / tokens) and the
// best single fitting item if that alone has a larger f. Both stop when the
// best gain is <= 0. Item.Redundancy is the part of the item's own coverage
// already covered: w2 * sum_u min(k(a,u), max_{s in S} k(s,u)).
//
// Pages (Problem.Preselected): the earlier pages' items are in the
// coverage state before the first round, so the greedy continues from them
// (the best-single guard compares gains given them).
//
// Guarantee: f is monotone submodular (a modular non-negative term plus
// facility location with a non-negative kernel): greedy under a cardinality
// constraint reaches >= (1-1/e) OPT (Nemhauser, Wolsey, Fisher 1978); density
// greedy with the best-single guard >= (1-1/e)/2 OPT under a knapsack
// (Leskovec et al. 2007; Khuller, Moss, Naor 1999).
//
// Complexity: the N x N kernel (O(N^2 d) from the similarity engine, O(N^2)
// memory), then O(N^2) for the initial gains and O(N) per lazy re-evaluation
// (O(nnz) per item on average when sparse).
package facility

import (
	"context"
	"fmt"
	"math"

	"github.com/diverse-select/diverse-select/selectors"
)

// Name is the strategy's registry name.
const Name = "facility"

// MaxPool caps the pool: the kernel is N x N float32 (1 GiB at the cap).
const MaxPool = 16384

func init() {
	inf := math.Inf(1)
	selectors.Register(selectors.Definition{
		Name:         Name,
		Continues:    true,
		Doc:          "DRAG: weighted relevance + facility location coverage of the pool, lazy (density) greedy",
		NeedsVectors: true,
		Params: []selectors.ParamSpec{
			{Name: "w2", Kind: selectors.KindFloat, Default: 0.1, Min: 0, Max: 1,
				Doc: "weight of the facility-location term; the relevance term gets 1-w2"},
			{Name: "gamma", Kind: selectors.KindFloat, Default: 1.0, Min: 0, Max: inf,
				Doc: "relevance scale inside log(1 + gamma*r)"},
			{Name: "kernel", Kind: selectors.KindString, Default: "cosine", Enum: []string{"cosine", "euclidean", "sqeuclidean"},
				Doc: "k(a,u): cosine clipped at 0, 1/(1+||a-u||) or 1/(1+||a-u||^2)"},
			{Name: "nnz", Kind: selectors.KindInt, Default: 0, Min: 0, Max: selectors.MaxCandidates,
				Doc: "keep for each u only its nnz largest kernel values; 0 = dense"},
			{Name: "weights", Kind: selectors.KindString, Default: "none", Enum: []string{"none", "onehot", "decay"},
				Doc: "relevance weights q_i"},
			{Name: "bottomWeight", Kind: selectors.KindFloat, Default: 1.0, Min: 0, Max: 1e6,
				Doc: "onehot: weight of the bottom 90% by relevance rank"},
			{Name: "multiplier", Kind: selectors.KindFloat, Default: 10.0, Min: 0, Max: 1e6,
				Doc: "onehot: the next 5% get multiplier*power"},
			{Name: "power", Kind: selectors.KindFloat, Default: 3.0, Min: 0, Max: 1e6,
				Doc: "onehot: the next 5% get multiplier*power"},
			{Name: "squared", Kind: selectors.KindBool, Default: false,
				Doc: "onehot: the top 5% get (multiplier*power)^2 instead of (multiplier*power)*2"},
			{Name: "base", Kind: selectors.KindFloat, Default: 3.0, Min: 0, MinOpen: true, Max: 1000,
				Doc: "decay: bin at distance d from the top gets base^max(0, powerIterations-d)"},
			{Name: "powerIterations", Kind: selectors.KindInt, Default: 8, Min: 0, Max: 64,
				Doc: "decay: exponent of the top bin"},
		},
		New: func(p selectors.Params) (selectors.Strategy, error) {
			return strategy{
				w2: p.Float("w2"), gamma: p.Float("gamma"), kernel: p.String("kernel"), nnz: p.Int("nnz"),
				weights: weightOpts{kind: p.String("weights"), bottomWeight: p.Float("bottomWeight"),
					multiplier: p.Float("multiplier"), power: p.Float("power"), squared: p.Bool("squared"),
					base: p.Float("base"), powerIterations: p.Int("powerIterations")},
			}, nil
		},
	})
}

type strategy struct {
	w2, gamma float64
	kernel    string
	nnz       int
	weights   weightOpts
}

// objective holds one problem's precomputed pieces of f.
type objective struct {
	rel []float64 // w1*q_i*log(1+gamma*max(0,r_i))
	w2  float64
	k   *kernel
}

func (s strategy) objective(p *selectors.Problem) *objective {
	c := p.Candidates
	q := weights(c, s.weights)
	w1 := 1 - s.w2
	rel := make([]float64, len(c))
	for i := range c {
		if f := w1 * q[i]; f != 0 { // avoid 0*Inf when gamma*r overflows
			rel[i] = f * math.Log1p(s.gamma*max(0, c[i].Relevance))
		}
	}
	return &objective{rel: rel, w2: s.w2, k: buildKernel(p, s.kernel, s.nnz)}
}

// MatrixBytes implements selectors.MatrixUser: the N x N float32 cosine
// matrix, plus a second N x N kernel for the distance kernels, plus the
// sparse kernel's CSR arrays when nnz is set.
func (s strategy) MatrixBytes(n int) int64 {
	nn := int64(n) * int64(n) * 4
	need := nn
	if s.kernel != "cosine" {
		need += nn
	}
	if s.nnz > 0 && s.nnz < n {
		need += int64(n) * int64(s.nnz) * 16 // kept a, u, value triples and the CSR copy
	}
	return need
}

// gain is f(S+a) - f(S) given cur[u] = max_{s in S} k(s,u).
func (o *objective) gain(a int, cur []float32) float64 {
	return o.rel[a] + o.w2*o.k.coverGain(a, cur)
}

// Select implements selectors.Strategy.
func (s strategy) Select(ctx context.Context, p *selectors.Problem) (*selectors.Result, error) {
	if len(p.Candidates) > MaxPool {
		return nil, fmt.Errorf("%w: facility needs an N x N kernel; %d candidates exceed its maximum of %d",
			selectors.ErrInvalidProblem, len(p.Candidates), MaxPool)
	}
	o := s.objective(p)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	items, single, err := lazyGreedy(ctx, p, o)
	if err != nil {
		return nil, err
	}
	if p.Budget > 0 {
		items = guardBestSingle(p.Candidates, single, items)
	}
	res := &selectors.Result{Items: items}
	for _, it := range items {
		res.Objective += it.Gain // the marginal gains telescope to f(S)
	}
	return res, nil
}

// guardBestSingle returns the best single fitting item instead of the
// greedy selection when it alone has the larger f; single[i] = f({i}), NaN
// for items that do not fit.
func guardBestSingle(c []selectors.Candidate, single []float64, items []selectors.Item) []selectors.Item {
	best, bestF := -1, 0.0
	for i, f := range single {
		if math.IsNaN(f) {
			continue
		}
		if best < 0 || f > bestF || (f == bestF && selectors.Better(c, i, best)) {
			best, bestF = i, f
		}
	}
	var greedyF float64
	for _, it := range items {
		greedyF += it.Gain
	}
	if best < 0 || !(bestF > greedyF) {
		return items
	}
	return []selectors.Item{{Index: best, Gain: bestF, Relevance: c[best].Relevance, Tokens: c[best].Tokens}}
}
