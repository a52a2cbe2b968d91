// Package mmr implements Maximal Marginal Relevance (Carbonell and Goldstein,
// SIGIR 1998), the baseline of the seed papers, with the relevance
// normalisations and similarity map of the DRAG thesis (docs/strategies-vector.md).
//
// Objective: none global. The first pick is the most relevant fitting item;
// then greedy takes argmax lambda*r_i - (1-lambda)*max_{j in S} sim(i,j)
// among the fitting items, until maxResults is reached or nothing fits. Items
// that do not fit the remaining budget are dropped for the rest of the run.
// Result.Objective is the sum of the MMR scores at selection (the gains);
// Item.Redundancy is max sim to the items selected before it (0 for the first);
// Item.Relevance is the relevance after normalisation (what MMR compared).
//
// Relevance normalisation: "none"; "minmax" (r-min)/(max-min), all 1 when the
// range is 0; "zsigmoid" z-score (z = 0 when the deviation is 0), logistic,
// then scaled to sum 1. Similarity map: "cos" or "half" (cos+1)/2.
//
// Pages (Problem.Preselected): the earlier pages' items start the selection,
// so a page is the MMR run continued; the first pick of a later page is
// scored by MMR, not by relevance alone.
//
// Guarantee: none (MMR is a heuristic). Complexity: O(K*N) similarity
// evaluations: one Row per selected item and a running max per candidate.
package mmr

import (
	"context"
	"math"

	"github.com/diverse-select/diverse-select/selectors"
)

// Name is the strategy's registry name.
const Name = "mmr"

func init() {
	selectors.Register(selectors.Definition{
		Name:         Name,
		Doc:          "Maximal Marginal Relevance: lambda*relevance - (1-lambda)*max similarity to the selection",
		NeedsVectors: true,
		Continues:    true,
		Params: []selectors.ParamSpec{
			{Name: "lambda", Kind: selectors.KindFloat, Default: 0.5, Min: 0, Max: 1,
				Doc: "weight of relevance against redundancy (1 = relevance only)"},
			{Name: "normalize", Kind: selectors.KindString, Default: "none", Enum: []string{"none", "minmax", "zsigmoid"},
				Doc: "relevance normalisation before scoring"},
			{Name: "simMap", Kind: selectors.KindString, Default: "cos", Enum: []string{"cos", "half"},
				Doc: "similarity used for redundancy: cos, or half = (cos+1)/2"},
		},
		New: func(p selectors.Params) (selectors.Strategy, error) {
			return strategy{lambda: p.Float("lambda"), normalize: p.String("normalize"), half: p.String("simMap") == "half"}, nil
		},
	})
}

type strategy struct {
	lambda    float64
	normalize string
	half      bool
}

// Select implements selectors.Strategy.
func (s strategy) Select(ctx context.Context, p *selectors.Problem) (*selectors.Result, error) {
	c := p.Candidates
	n, k := len(c), p.K()
	rel := Normalize(c, s.normalize)
	sims := p.Sims()
	guard := selectors.NewCopyGuard(p)
	maxSim := make([]float64, n)
	alive := make([]bool, n)
	for i := range alive {
		alive[i] = true
	}
	row := make([]float32, n)
	// Earlier pages (p.Preselected) are the start of the selection.
	for _, d := range p.Preselected {
		alive[d] = false
	}
	for k, d := range p.Preselected {
		s.addRedundancy(sims, d, row, alive, maxSim, k == 0)
	}
	res := &selectors.Result{Items: make([]selectors.Item, 0, min(k, 64))}
	used := 0
	for len(res.Items) < k {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		first := len(res.Items) == 0 && len(p.Preselected) == 0
		best, bestScore := -1, 0.0
		for i := 0; i < n; i++ {
			if !alive[i] {
				continue
			}
			if !p.Fits(used, c[i].Tokens) {
				alive[i] = false // the budget only shrinks: it never fits again
				continue
			}
			// The first pick is the most relevant: score by relevance alone
			// (normalisations are monotone, so raw and normalised agree).
			score := rel[i]
			if !first {
				score = s.lambda*rel[i] - (1-s.lambda)*maxSim[i]
			}
			if best < 0 || score > bestScore || (score == bestScore && selectors.Better(c, i, best)) {
				best, bestScore = i, score
			}
		}
		if best < 0 {
			break
		}
		if guard.CopyOfItems(res.Items, best) {
			alive[best] = false // a near-copy of a selected item never becomes new
			continue
		}
		gain := s.lambda * rel[best]
		if !first {
			gain = bestScore
		}
		alive[best] = false
		used += c[best].Tokens
		res.Objective += gain
		res.Items = append(res.Items, selectors.Item{Index: best, Gain: gain, Relevance: rel[best],
			Redundancy: maxSim[best], Tokens: c[best].Tokens})
		if len(res.Items) == k {
			break
		}
		s.addRedundancy(sims, best, row, alive, maxSim, first)
	}
	return res, nil
}

// addRedundancy updates the running max similarity of the live candidates
// to the selection with the selected item d (first: the selection was empty).
func (s strategy) addRedundancy(sims selectors.Similarities, d int, row []float32, alive []bool, maxSim []float64, first bool) {
	sims.Row(d, row)
	for i, a := range alive {
		if !a {
			continue
		}
		v := float64(row[i])
		if s.half {
			v = (v + 1) / 2
		}
		if first || v > maxSim[i] {
			maxSim[i] = v
		}
	}
}

// Normalize returns the relevances under the named normalisation
// ("none", "minmax" or "zsigmoid"; see the package comment).
func Normalize(c []selectors.Candidate, how string) []float64 {
	n := len(c)
	out := make([]float64, n)
	for i := range c {
		out[i] = c[i].Relevance
	}
	if n == 0 {
		return out
	}
	// Both normalisations are scale invariant: dividing huge relevances by
	// max|r| first keeps the arithmetic (squares, ranges) finite.
	scale := 0.0
	for _, r := range out {
		scale = max(scale, math.Abs(r))
	}
	if how == "none" {
		return out
	}
	if scale > 1e100 {
		for i := range out {
			out[i] /= scale
		}
	}
	switch how {
	case "minmax":
		lo, hi := out[0], out[0]
		for _, r := range out {
			lo, hi = min(lo, r), max(hi, r)
		}
		for i, r := range out {
			if hi > lo {
				out[i] = (r - lo) / (hi - lo)
			} else {
				out[i] = 1
			}
		}
	case "zsigmoid":
		var mean, vr float64
		for _, r := range out {
			mean += r
		}
		mean /= float64(n)
		for _, r := range out {
			vr += (r - mean) * (r - mean)
		}
		sd := math.Sqrt(vr / float64(n))
		var sum float64
		for i, r := range out {
			z := 0.0
			if sd > 0 {
				z = (r - mean) / sd
			}
			out[i] = 1 / (1 + math.Exp(-z))
			sum += out[i]
		}
		for i := range out {
			out[i] /= sum
		}
	}
	return out
}
