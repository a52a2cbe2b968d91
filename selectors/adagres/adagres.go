// Package adagres implements AdaGReS: redundancy-aware greedy selection with
// an adaptive relevance/redundancy trade-off (Peng, Wang, Long, Sheng,
// "AdaGReS: Adaptive Greedy Context Selection via Redundancy-Aware Scoring for
// Token-Budgeted RAG", arXiv 2512.25052), written up in docs/strategies-vector.md.
//
// Objective: F(S) = alpha * sum_{c in S} r_c - beta * sum_{i<j in S} sim+(i,j),
// sim+ = max(0, cos), alpha = 1. The marginal gain of x is
// alpha*r_x - beta*sum_{c in S} sim+(x,c); greedy takes the fitting item of
// largest gain and stops when that gain is <= 0 (stopAtZeroGain), nothing fits
// or maxResults is reached. Items that do not fit the remaining budget are
// dropped for the rest of the run.
//
// Adaptive beta (paper section 3.3): beta* = alpha*Eq / (((kbar-1)/2)*Ep + 1e-6)
// with Eq the mean relevance and Ep the mean pairwise sim+ of the pool and
// kbar = max(1, B/Lbar) (Lbar the mean token cost; kbar = K without a budget);
// beta = clip(lambda*beta* + beta0, betaMin, betaMax), and beta = 0 when
// kbar <= 1. We follow the paper's equation 7 and reference code, (kbar-1)/2,
// not the (kbar-1) its derivation in equation 6 would give. A fixed beta
// parameter disables the calibration.
//
// Pages (Problem.Preselected): the earlier pages' items start the
// selection (their redundancy counts); beta is calibrated for the page's own
// budget, as for the first page, so a fixed beta makes the pages one run.
//
// Guarantee: F is modular minus supermodular, so greedy has no unconditional
// bound; the paper shows F is epsilon-approximately submodular when pairwise
// similarities are small relative to relevance, giving (1-1/e-epsilon).
//
// Complexity: O(k*N) similarity evaluations for the greedy (one Row per
// selected item and a running redundancy sum per candidate), plus the pool
// statistic Ep: N(N-1)/2 similarities for N <= 512 (summed without forming
// the matrix), 4096 sampled pairs (fixed seed) above. Memory O(N*d + N).
package adagres

import (
	"context"
	"fmt"
	"math"

	"github.com/diverse-select/diverse-select/selectors"
)

// Name is the strategy's registry name.
const Name = "adagres"

const (
	alpha = 1.0
	eps   = 1e-6
	// exactPairsMax is the largest pool whose Ep is computed exactly.
	exactPairsMax = 512
	// samplePairs pairs estimate Ep above exactPairsMax, drawn with sampleSeed.
	samplePairs = 4096
	sampleSeed  = 0x5eed_ada6
)

func init() {
	inf := math.Inf(1)
	selectors.Register(selectors.Definition{
		Name:         Name,
		Doc:          "AdaGReS: relevance minus pairwise redundancy, greedy under the token budget, adaptive beta",
		NeedsVectors: true,
		Continues:    true,
		Params: []selectors.ParamSpec{
			{Name: "beta", Kind: selectors.KindFloat, Min: 0, Max: inf,
				Doc: "fixed redundancy weight; absent = calibrated from the pool (adaptive beta)"},
			{Name: "lambda", Kind: selectors.KindFloat, Default: 1.0, Min: 0, Max: inf,
				Doc: "scale of the calibrated beta*"},
			{Name: "beta0", Kind: selectors.KindFloat, Default: 0.0, Min: -inf, Max: inf,
				Doc: "offset added to lambda*beta*"},
			{Name: "betaMin", Kind: selectors.KindFloat, Default: 0.0, Min: 0, Max: inf,
				Doc: "lower clip of the calibrated beta"},
			{Name: "betaMax", Kind: selectors.KindFloat, Default: 10.0, Min: 0, Max: inf,
				Doc: "upper clip of the calibrated beta"},
			{Name: "poolSize", Kind: selectors.KindInt, Default: 0, Min: 0, Max: selectors.MaxCandidates,
				Doc: "calibrate on the top-n candidates by relevance only; 0 = the whole pool"},
			{Name: "stopAtZeroGain", Kind: selectors.KindBool, Default: true,
				Doc: "stop when the best marginal gain is <= 0"},
		},
		New: newStrategy,
	})
}

type strategy struct {
	fixedBeta                       float64
	hasFixedBeta                    bool
	lambda, beta0, betaMin, betaMax float64
	poolSize                        int
	stopAtZeroGain                  bool
}

func newStrategy(p selectors.Params) (selectors.Strategy, error) {
	s := strategy{
		fixedBeta:      p.Float("beta"),
		hasFixedBeta:   p.Has("beta"),
		lambda:         p.Float("lambda"),
		beta0:          p.Float("beta0"),
		betaMin:        p.Float("betaMin"),
		betaMax:        p.Float("betaMax"),
		poolSize:       p.Int("poolSize"),
		stopAtZeroGain: p.Bool("stopAtZeroGain"),
	}
	if s.betaMin > s.betaMax {
		return nil, &selectors.ParamError{Strategy: Name, Param: "betaMin",
			Msg: fmt.Sprintf("betaMin %g is larger than betaMax %g", s.betaMin, s.betaMax)}
	}
	return s, nil
}

// Select implements selectors.Strategy.
func (s strategy) Select(ctx context.Context, p *selectors.Problem) (*selectors.Result, error) {
	sims := p.Sims()
	res := &selectors.Result{}
	var beta float64
	if s.hasFixedBeta {
		beta = s.fixedBeta
		res.Stats = map[string]float64{"beta": beta}
	} else {
		c := s.calibrate(p, sims)
		beta = c.Beta
		res.Stats = c.stats()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	items, err := greedy(ctx, p, sims, beta, s.stopAtZeroGain)
	if err != nil {
		return nil, err
	}
	res.Items = items
	for _, it := range items {
		res.Objective += it.Gain // the gains telescope to F(S)
	}
	return res, nil
}

// greedy runs the redundancy-aware greedy with a running sum of sim+ to the
// selected items per candidate: one similarity row per selected item.
func greedy(ctx context.Context, p *selectors.Problem, sims selectors.Similarities, beta float64, stopAtZeroGain bool) ([]selectors.Item, error) {
	c := p.Candidates
	n, k := len(c), p.K()
	red := make([]float64, n)
	alive := make([]bool, n)
	for i := range alive {
		alive[i] = true
	}
	row := make([]float32, n)
	addRedundancy := func(d int) {
		sims.Row(d, row)
		for i, a := range alive {
			if a && row[i] > 0 {
				red[i] += float64(row[i])
			}
		}
	}
	for _, d := range p.Preselected { // earlier pages start the selection
		alive[d] = false
	}
	for _, d := range p.Preselected {
		addRedundancy(d)
	}
	guard := selectors.NewCopyGuard(p)
	items := make([]selectors.Item, 0, min(k, 64))
	used := 0
	for len(items) < k {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		best, bestGain := -1, 0.0
		for i := 0; i < n; i++ {
			if !alive[i] {
				continue
			}
			if !p.Fits(used, c[i].Tokens) {
				alive[i] = false // the budget only shrinks: it never fits again
				continue
			}
			g := alpha*c[i].Relevance - beta*red[i]
			if best < 0 || g > bestGain || (g == bestGain && selectors.Better(c, i, best)) {
				best, bestGain = i, g
			}
		}
		if best < 0 || (stopAtZeroGain && bestGain <= 0) {
			break
		}
		if guard.CopyOfItems(items, best) {
			alive[best] = false // a near-copy of a selected item never becomes new
			continue
		}
		alive[best] = false
		used += c[best].Tokens
		items = append(items, selectors.Item{Index: best, Gain: bestGain, Relevance: c[best].Relevance,
			Redundancy: red[best], Tokens: c[best].Tokens})
		if len(items) == k {
			break
		}
		addRedundancy(best)
	}
	return items, nil
}
