package adagres

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/internal/testprob"
)

func run(t *testing.T, params map[string]any, p *selectors.Problem) *selectors.Result {
	return testprob.MustRun(t, Name, params, p)
}

// TestAdaptiveBetaHandComputed checks the calibration on a pool small enough
// to do by hand. Unit vectors e1, e1, (e1+e2)/sqrt2, e2 have pairwise cosines
// 1, 1/sqrt2, 0, 1/sqrt2, 0, 1/sqrt2 (pairs 01,02,03,12,13,23), so
// Ep = (1 + 3/sqrt2)/6 = 0.520220...; relevances 0.9, 0.8, 0.6, 0.5 give
// Eq = 0.7; tokens 100, 200, 300, 400 give Lbar = 250; a budget of 1000 gives
// kbar = 1000/250 = 4, so beta* = 0.7 / (1.5*0.520220 + 1e-6) = 0.897055...
func TestAdaptiveBetaHandComputed(t *testing.T) {
	s2 := float32(1 / math.Sqrt2)
	p := &selectors.Problem{Budget: 1000, Candidates: []selectors.Candidate{
		{Relevance: 0.9, Tokens: 100, Vector: []float32{1, 0}},
		{Relevance: 0.8, Tokens: 200, Vector: []float32{2, 0}},
		{Relevance: 0.6, Tokens: 300, Vector: []float32{s2, s2}},
		{Relevance: 0.5, Tokens: 400, Vector: []float32{0, 3}},
	}}
	ep := (1 + 3/math.Sqrt2) / 6
	betaStar := 0.7 / (1.5*ep + 1e-6)
	tests := []struct {
		name   string
		params map[string]any
		beta   float64
	}{
		{"defaults", nil, betaStar},
		{"lambda and offset", map[string]any{"lambda": 2.0, "beta0": 0.1}, 2*betaStar + 0.1},
		{"clipped high", map[string]any{"betaMax": 0.5}, 0.5},
		{"clipped low", map[string]any{"betaMin": 1.5}, 1.5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, tc.params, p)
			assert.InDelta(t, 250, res.Stats["lbar"], 1e-12)
			assert.InDelta(t, 4, res.Stats["kbar"], 1e-12)
			assert.InDelta(t, 0.7, res.Stats["eq"], 1e-12)
			assert.InDelta(t, ep, res.Stats["ep"], 1e-6)
			assert.InDelta(t, betaStar, res.Stats["betaStar"], 1e-5)
			assert.InDelta(t, tc.beta, res.Stats["beta"], 1e-5)
		})
	}
	// With beta ~0.897: pick 0 (gain 0.9); then 1 has 0.8-0.897 < 0, 2 has
	// 0.6-0.897*0.7071 = -0.034, 3 has 0.5: pick 3 (500 tokens used); then
	// 1: 0.8-0.897 < 0, 2: 0.6-0.897*1.414 < 0: stop. F = 0.9 + 0.5.
	res := run(t, nil, p)
	assert.Equal(t, []int{0, 3}, res.Indices())
	assert.InDelta(t, 1.4, res.Objective, 1e-9)
}

func TestKbarCases(t *testing.T) {
	cands := []selectors.Candidate{
		{Relevance: 0.9, Tokens: 100, Vector: []float32{1, 0}},
		{Relevance: 0.5, Tokens: 300, Vector: []float32{1, 1}},
	}
	tests := []struct {
		name         string
		budget, k    int
		kbar, beta   float64
		wantBetaZero bool
	}{
		{"no budget uses K", 0, 2, 2, 0, false},
		{"no budget no K uses N", 0, 0, 2, 0, false},
		{"budget below mean cost", 150, 0, 1, 0, true},
		{"K of one", 0, 1, 1, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, nil, &selectors.Problem{Candidates: cands, Budget: tc.budget, MaxResults: tc.k})
			assert.InDelta(t, tc.kbar, res.Stats["kbar"], 1e-12)
			if tc.wantBetaZero {
				assert.Zero(t, res.Stats["beta"])
				assert.Zero(t, res.Stats["betaStar"])
			} else {
				assert.Positive(t, res.Stats["beta"])
			}
		})
	}
}

func TestFixedBetaSkipsCalibration(t *testing.T) {
	p := testprob.Random(rand.New(rand.NewPCG(1, 2)), testprob.Options{N: 20, Dim: 8})
	res := run(t, map[string]any{"beta": 0.3}, p)
	assert.Equal(t, map[string]float64{"beta": 0.3}, res.Stats)
}

func TestBetaMinAboveMaxRejected(t *testing.T) {
	_, err := selectors.New(Name, map[string]any{"betaMin": 2.0, "betaMax": 1.0})
	require.Error(t, err)
}

// TestSampledEp checks the pair sampling above 512 candidates against the
// exact mean: 4096 pairs estimate it to a few hundredths.
func TestSampledEp(t *testing.T) {
	p := testprob.Random(rand.New(rand.NewPCG(3, 4)), testprob.Options{N: 600, Dim: 16, Clusters: 5})
	pool := calibrationPool(p.Candidates, 0)
	sims := p.Sims()
	var exact float64
	for a := range pool {
		for b := a + 1; b < len(pool); b++ {
			exact += math.Max(0, float64(sims.At(a, b)))
		}
	}
	exact /= float64(600 * 599 / 2)
	got := meanPairSim(pool, sims)
	assert.InDelta(t, exact, got, 0.03)
	assert.Equal(t, got, meanPairSim(pool, sims), "fixed seed: same estimate every time")
}

func TestPoolSizeRestrictsCalibration(t *testing.T) {
	p := &selectors.Problem{MaxResults: 3, Candidates: []selectors.Candidate{
		{Relevance: 0.1, Tokens: 10, Vector: []float32{1, 0}},
		{Relevance: 0.9, Tokens: 20, Vector: []float32{0, 1}},
		{Relevance: 0.7, Tokens: 40, Vector: []float32{1, 1}},
	}}
	res := run(t, map[string]any{"poolSize": 2}, p)
	assert.InDelta(t, 30, res.Stats["lbar"], 1e-12) // candidates 1 and 2
	assert.InDelta(t, 0.8, res.Stats["eq"], 1e-12)
	assert.InDelta(t, 1/math.Sqrt2, res.Stats["ep"], 1e-6)
}

// naiveGreedy recomputes each marginal gain from scratch as F(S+x) - F(S).
func naiveGreedy(p *selectors.Problem, beta float64, stopAtZero bool) []int {
	c := p.Candidates
	simp := func(i, j int) float64 { return math.Max(0, float64(p.Sims().At(i, j))) }
	f := func(s []int) float64 {
		var v float64
		for a, i := range s {
			v += c[i].Relevance
			for _, j := range s[a+1:] {
				v -= beta * simp(i, j)
			}
		}
		return v
	}
	var sel []int
	in := make([]bool, len(c))
	guard := selectors.NewCopyGuard(p)
	used := 0
	for len(sel) < p.K() {
		best, bestG := -1, 0.0
		for i := range c {
			if in[i] || !p.Fits(used, c[i].Tokens) {
				continue
			}
			g := f(append(append([]int(nil), sel...), i)) - f(sel)
			if best < 0 || g > bestG+1e-12 || (math.Abs(g-bestG) <= 1e-12 && selectors.Better(c, i, best)) {
				best, bestG = i, g
			}
		}
		if best < 0 || (stopAtZero && bestG <= 1e-12) {
			break
		}
		in[best] = true
		if guard.CopyOf(sel, best) {
			continue
		}
		sel = append(sel, best)
		used += c[best].Tokens
	}
	return sel
}

func TestIncrementalEqualsNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 200; trial++ {
		o := testprob.Options{N: 1 + rng.IntN(30), Dim: 2 + rng.IntN(8), Clusters: rng.IntN(4)}
		if rng.IntN(2) == 0 {
			o.Budget = 50 + rng.IntN(500)
		}
		if rng.IntN(2) == 0 {
			o.MaxResults = 1 + rng.IntN(8)
		}
		p := testprob.Random(rng, o)
		stop := rng.IntN(3) > 0
		params := map[string]any{"stopAtZeroGain": stop}
		res := run(t, params, p)
		want := naiveGreedy(p, res.Stats["beta"], stop)
		require.Equal(t, want, res.Indices(), "trial %d", trial)
		// Redundancy is the running sum of sim+ to the items before.
		for r, it := range res.Items {
			var red float64
			for _, prev := range res.Items[:r] {
				red += math.Max(0, float64(p.Sims().At(it.Index, prev.Index)))
			}
			require.InDelta(t, red, it.Redundancy, 1e-9)
			require.InDelta(t, it.Relevance-res.Stats["beta"]*red, it.Gain, 1e-9)
		}
	}
}

func TestConstraintsAndDeterminism(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 100; trial++ {
		o := testprob.Options{N: rng.IntN(60), Dim: 16, Budget: rng.IntN(800), MaxResults: rng.IntN(10)}
		p := testprob.Random(rng, o)
		params := map[string]any{"stopAtZeroGain": trial%2 == 0}
		a := run(t, params, p)
		p.Similarities = nil
		b := run(t, params, p)
		require.Equal(t, a, b)
		require.LessOrEqual(t, len(a.Items), p.K())
		if o.Budget > 0 {
			require.LessOrEqual(t, a.TokensUsed, o.Budget)
		}
	}
}

func TestEmptyAndSingle(t *testing.T) {
	res := run(t, nil, &selectors.Problem{})
	assert.Empty(t, res.Items)
	one := &selectors.Problem{Candidates: []selectors.Candidate{{Relevance: 0.4, Tokens: 5, Vector: []float32{1, 2}}}}
	res = run(t, nil, one)
	assert.Equal(t, []int{0}, res.Indices())
	one.Budget = 4
	res = run(t, nil, one)
	assert.Empty(t, res.Items)
}
