package adagres

import (
	"math/rand/v2"

	"github.com/diverse-select/diverse-select/selectors"
)

// calibration is the adaptive beta and the pool statistics it comes from.
type calibration struct {
	Beta, BetaStar, Kbar, Eq, Ep, Lbar float64
}

func (c calibration) stats() map[string]float64 {
	return map[string]float64{"beta": c.Beta, "betaStar": c.BetaStar, "kbar": c.Kbar,
		"eq": c.Eq, "ep": c.Ep, "lbar": c.Lbar}
}

// calibrate computes beta per paper section 3.3 (see the package comment).
func (s strategy) calibrate(p *selectors.Problem, sims selectors.Similarities) calibration {
	pool := calibrationPool(p.Candidates, s.poolSize)
	var c calibration
	if len(pool) == 0 {
		return c
	}
	m := float64(len(pool))
	for _, i := range pool {
		c.Lbar += float64(p.Candidates[i].Tokens)
		c.Eq += p.Candidates[i].Relevance
	}
	c.Lbar /= m
	c.Eq /= m
	c.Ep = meanPairSim(pool, sims)
	if p.Budget > 0 {
		c.Kbar = max(1, float64(p.Budget)/c.Lbar)
	} else {
		c.Kbar = float64(p.K())
	}
	if c.Kbar <= 1 {
		return c // at most one item: redundancy cannot matter, beta = beta* = 0
	}
	c.BetaStar = alpha * c.Eq / ((c.Kbar-1)/2*c.Ep + eps)
	c.Beta = min(max(s.lambda*c.BetaStar+s.beta0, s.betaMin), s.betaMax)
	return c
}

// calibrationPool is the top-n candidates by relevance (tie rule), or all.
func calibrationPool(c []selectors.Candidate, n int) []int {
	if n <= 0 || n >= len(c) {
		all := make([]int, len(c))
		for i := range all {
			all[i] = i
		}
		return all
	}
	return selectors.ByRelevance(c)[:n]
}

// meanPairSim is the mean of sim+ over pairs i != j of pool: exact up to
// exactPairsMax candidates, else over samplePairs pairs drawn with a fixed
// seed. A pool of fewer than two candidates has no pairs: 0.
func meanPairSim(pool []int, sims selectors.Similarities) float64 {
	m := len(pool)
	if m < 2 {
		return 0
	}
	if m <= exactPairsMax {
		// Exact, in O(N) memory: the engine sums blockwise without forming
		// the matrix, so adagres stays O(N*d + N*k) at every pool size.
		return selectors.PositivePairSum(sims, pool) / float64(m*(m-1)/2)
	}
	var sum float64
	rng := rand.New(rand.NewPCG(sampleSeed, sampleSeed))
	for range samplePairs {
		a := rng.IntN(m)
		b := rng.IntN(m - 1)
		if b >= a {
			b++ // uniform over b != a
		}
		if v := sims.At(pool[a], pool[b]); v > 0 {
			sum += float64(v)
		}
	}
	return sum / samplePairs
}
