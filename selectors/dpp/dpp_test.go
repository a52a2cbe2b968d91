package dpp

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

// logDet is log det L_S from scratch by Cholesky; -Inf when L_S is not
// positive definite.
func logDet(p *selectors.Problem, theta float64, s []int) float64 {
	m := len(s)
	l := make([]float64, m*m)
	for a, i := range s {
		for b, j := range s {
			k := 1.0
			if i != j {
				k = math.Min(1, math.Max(0, float64(p.Sims().At(i, j))))
			}
			l[a*m+b] = math.Exp(theta*p.Candidates[i].Relevance) * k * math.Exp(theta*p.Candidates[j].Relevance)
		}
	}
	var ld float64
	for j := 0; j < m; j++ {
		d := l[j*m+j]
		for k := 0; k < j; k++ {
			d -= l[j*m+k] * l[j*m+k]
		}
		if !(d > 0) {
			return math.Inf(-1)
		}
		d = math.Sqrt(d)
		ld += 2 * math.Log(d)
		l[j*m+j] = d
		for i := j + 1; i < m; i++ {
			v := l[i*m+j]
			for k := 0; k < j; k++ {
				v -= l[i*m+k] * l[j*m+k]
			}
			l[i*m+j] = v / d
		}
	}
	return ld
}

// naiveGreedy recomputes log det L_{S+i} from scratch for every candidate.
func naiveGreedy(p *selectors.Problem, theta float64) []int {
	c := p.Candidates
	var sel []int
	in := make([]bool, len(c))
	guard := selectors.NewCopyGuard(p)
	used := 0
	for len(sel) < p.K() {
		base := logDet(p, theta, sel)
		best, bestG := -1, math.Inf(-1)
		for i := range c {
			if in[i] || !p.Fits(used, c[i].Tokens) {
				continue
			}
			g := logDet(p, theta, append(append([]int(nil), sel...), i)) - base
			if math.IsInf(g, -1) {
				continue
			}
			if best < 0 || g > bestG+1e-9 || (math.Abs(g-bestG) <= 1e-9 && selectors.Better(c, i, best)) {
				best, bestG = i, g
			}
		}
		if best < 0 || bestG < math.Log(1e-10) {
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

func TestFastEqualsNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		o := testprob.Options{N: 1 + rng.IntN(20), Dim: 2 + rng.IntN(10), Clusters: rng.IntN(4), Positive: rng.IntN(2) == 0}
		if rng.IntN(2) == 0 {
			o.Budget = 50 + rng.IntN(600)
		}
		if rng.IntN(2) == 0 {
			o.MaxResults = 1 + rng.IntN(8)
		}
		p := testprob.Random(rng, o)
		theta := []float64{0, 0.5, 1, 3}[rng.IntN(4)]
		res := run(t, map[string]any{"theta": theta}, p)
		require.Equal(t, naiveGreedy(p, theta), res.Indices(), "trial %d", trial)
		require.InDelta(t, logDet(p, theta, res.Indices()), res.Objective, 1e-6)
	}
}

func TestHandExamples(t *testing.T) {
	// Orthogonal items: K = I, d_i^2 = q_i^2 throughout, so the order is by
	// relevance and gain_i = 2*theta*r_i.
	orth := &selectors.Problem{Candidates: []selectors.Candidate{
		{Relevance: 0.2, Tokens: 1, Vector: []float32{1, 0, 0}},
		{Relevance: 0.9, Tokens: 1, Vector: []float32{0, 1, 0}},
		{Relevance: 0.5, Tokens: 1, Vector: []float32{0, 0, 1}},
	}}
	res := run(t, nil, orth)
	assert.Equal(t, []int{1, 2, 0}, res.Indices())
	assert.InDelta(t, 1.8, res.Items[0].Gain, 1e-12)
	assert.InDelta(t, 2*(0.2+0.9+0.5), res.Objective, 1e-12)
	// An exact duplicate (same direction) has d^2 = 0 once its twin is in:
	// greedy stops rather than take it.
	dup := &selectors.Problem{Candidates: []selectors.Candidate{
		{Relevance: 0.9, Tokens: 1, Vector: []float32{1, 0}},
		{Relevance: 0.8, Tokens: 1, Vector: []float32{2, 0}},
		{Relevance: 0.1, Tokens: 1, Vector: []float32{0, 1}},
	}}
	assert.Equal(t, []int{0, 2}, run(t, nil, dup).Indices())
	// 60 degrees apart: k = 0.5, d^2 of the second = q^2*(1 - 0.25).
	two := &selectors.Problem{Candidates: []selectors.Candidate{
		{Relevance: 0, Tokens: 1, Vector: []float32{1, 0}},
		{Relevance: 0, Tokens: 1, Vector: []float32{0.5, float32(math.Sqrt(3) / 2)}},
	}}
	res = run(t, nil, two)
	assert.InDelta(t, math.Log(0.75), res.Items[1].Gain, 1e-6)
	assert.InDelta(t, 0.25, res.Items[1].Redundancy, 1e-6)
}

func TestConstraintsDeterminismEdges(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 100; trial++ {
		o := testprob.Options{N: rng.IntN(60), Dim: 16, Budget: rng.IntN(800), MaxResults: rng.IntN(10)}
		p := testprob.Random(rng, o)
		a := run(t, nil, p)
		p.Similarities = nil
		b := run(t, nil, p)
		require.Equal(t, a, b)
		require.LessOrEqual(t, len(a.Items), p.K())
		if o.Budget > 0 {
			require.LessOrEqual(t, a.TokensUsed, o.Budget)
		}
	}
	assert.Empty(t, run(t, nil, &selectors.Problem{}).Items)
	one := &selectors.Problem{Candidates: []selectors.Candidate{{Relevance: 0.4, Tokens: 5, Vector: []float32{0, 0}}}}
	assert.Equal(t, []int{0}, run(t, nil, one).Indices())
	one.Budget = 4
	assert.Empty(t, run(t, nil, one).Items)
	// Huge relevances stay finite in the log domain.
	big := &selectors.Problem{Candidates: []selectors.Candidate{
		{Relevance: 1e300, Tokens: 1, Vector: []float32{1, 0}},
		{Relevance: -1e300, Tokens: 1, Vector: []float32{0, 1}},
	}}
	assert.Equal(t, []int{0}, run(t, map[string]any{"theta": 1.0}, big).Indices())
}
