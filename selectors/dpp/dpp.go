// Package dpp selects by greedy MAP inference of a determinantal point
// process (Chen, Zhang, Zhou, "Fast Greedy MAP Inference for Determinantal
// Point Process to Improve Recommendation Diversity", NeurIPS 2018), written
// up in docs/strategies-vector.md.
//
// Objective: log det L_S with L_ij = q_i * k(i,j) * q_j, k = sim+ (cosine
// clipped to [0,1]; k(i,i) = 1, also for a zero vector, which is then
// orthogonal to everything), q_i = exp(theta * r_i).
//
// Algorithm: fast greedy MAP with an incremental Cholesky factor. Greedy adds
// the fitting item of largest marginal d_i^2 = det L_{S+i} / det L_S and stops
// at maxResults, when nothing fits, or when the best d_i^2 < 1e-10. Since
// L = D K D with D = diag(q), the factor of L is D times the factor of K, so
// d_i^2 = q_i^2 * dk_i^2 where dk is the residual of K alone: we run the
// Cholesky updates on K and score log d_i^2 = 2*theta*r_i + log dk_i^2, which
// cannot overflow for any finite relevance. Item.Gain = log d_i^2 (so the
// gains sum to Result.Objective = log det L_S); Item.Redundancy = 1 - dk_i^2,
// the share of the item's unit self-similarity already spanned by S.
//
// Pages (Problem.Preselected): the earlier pages' items condition the
// process (their Cholesky columns come first), so a page is the greedy MAP
// continued: it maximises log det L_{S0+S} - log det L_{S0}.
//
// Guarantee: log det is submodular but not monotone, so greedy MAP has no
// constant-factor bound in general; it is the standard, effective heuristic.
//
// Complexity: one similarity row per selected item (O(K*N) similarity
// evaluations; the N x N kernel is never formed) and O(K^2 * N) for the
// Cholesky updates; O(K*N) memory.
package dpp

import (
	"context"
	"math"

	"github.com/diverse-select/diverse-select/selectors"
)

// Name is the strategy's registry name.
const Name = "dpp"

// minMarginal is the smallest d_i^2 greedy still accepts.
const minMarginal = 1e-10

var logMinMarginal = math.Log(minMarginal)

func init() {
	selectors.Register(selectors.Definition{
		Name:         Name,
		Doc:          "DPP: greedy MAP of a quality x diversity determinantal point process (fast incremental Cholesky)",
		NeedsVectors: true,
		Continues:    true,
		Params: []selectors.ParamSpec{{
			Name: "theta", Kind: selectors.KindFloat, Default: 1.0, Min: 0, Max: math.Inf(1),
			Doc: "quality sharpness: q_i = exp(theta * relevance); 0 = diversity only",
		}},
		New: func(p selectors.Params) (selectors.Strategy, error) {
			return strategy{theta: p.Float("theta")}, nil
		},
	})
}

type strategy struct{ theta float64 }

// Select implements selectors.Strategy.
func (s strategy) Select(ctx context.Context, p *selectors.Problem) (*selectors.Result, error) {
	c := p.Candidates
	n, k := len(c), p.K()
	sims := p.Sims()
	logq2 := make([]float64, n) // log q_i^2
	d2 := make([]float64, n)    // dk_i^2, residual of K_ii given S
	alive := make([]bool, n)
	for i := range c {
		logq2[i] = 2 * s.theta * c[i].Relevance
		d2[i] = 1
		alive[i] = true
	}
	row := make([]float32, n)
	guard := selectors.NewCopyGuard(p)
	var cols [][]float64 // Cholesky columns: cols[t][i] = c_i[t]
	// condition adds the selected item best to the Cholesky factor: the
	// residuals d2 of the live candidates shrink by what it spans.
	condition := func(best int) {
		// New Cholesky column: e_i = (K(best,i) - <c_best, c_i>) / dk_best.
		sims.Row(best, row)
		e := make([]float64, n)
		for i, a := range alive {
			if a {
				e[i] = float64(min(max(row[i], 0), 1))
			}
		}
		for _, col := range cols {
			cb := col[best]
			if cb == 0 {
				continue
			}
			for i, a := range alive {
				if a {
					e[i] -= cb * col[i]
				}
			}
		}
		inv := 1 / math.Sqrt(d2[best])
		for i, a := range alive {
			if a {
				e[i] *= inv
				d2[i] -= e[i] * e[i]
			}
		}
		cols = append(cols, e)
	}
	// Earlier pages (p.Preselected) condition the process, as if selected.
	for _, d := range p.Preselected {
		alive[d] = false // later ones stay alive until their turn: their column entries are needed
		if d2[d] > 0 {
			condition(d)
		}
	}
	res := &selectors.Result{Items: make([]selectors.Item, 0, min(k, 64))}
	used := 0
	for len(res.Items) < k {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		best, bestScore := -1, math.Inf(-1)
		for i := 0; i < n; i++ {
			if !alive[i] {
				continue
			}
			if !p.Fits(used, c[i].Tokens) {
				alive[i] = false // the budget only shrinks: it never fits again
				continue
			}
			if !(d2[i] > 0) {
				continue // spanned by S (or negative: sim+ need not be PSD)
			}
			score := logq2[i] + math.Log(d2[i])
			if best < 0 || score > bestScore || (score == bestScore && selectors.Better(c, i, best)) {
				best, bestScore = i, score
			}
		}
		if best < 0 || !(bestScore >= logMinMarginal) {
			break
		}
		if guard.CopyOfItems(res.Items, best) {
			alive[best] = false // a near-copy of a selected item never becomes new
			continue
		}
		alive[best] = false
		used += c[best].Tokens
		res.Objective += bestScore
		res.Items = append(res.Items, selectors.Item{Index: best, Gain: bestScore, Relevance: c[best].Relevance,
			Redundancy: 1 - d2[best], Tokens: c[best].Tokens})
		if len(res.Items) == k {
			break
		}
		condition(best)
	}
	return res, nil
}
