package mmr

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

// naive recomputes max_{j in S} sim(i,j) over the whole selection every round.
func naive(p *selectors.Problem, lambda float64, norm string, half bool) []int {
	c := p.Candidates
	rel := Normalize(c, norm)
	sim := func(i, j int) float64 {
		v := float64(p.Sims().At(i, j))
		if half {
			v = (v + 1) / 2
		}
		return v
	}
	var sel []int
	in := make([]bool, len(c))
	guard := selectors.NewCopyGuard(p)
	used := 0
	for len(sel) < p.K() {
		best, bestS := -1, 0.0
		for i := range c {
			if in[i] || !p.Fits(used, c[i].Tokens) {
				continue
			}
			s := rel[i]
			if len(sel) > 0 {
				m := math.Inf(-1)
				for _, j := range sel {
					m = math.Max(m, sim(i, j))
				}
				s = lambda*rel[i] - (1-lambda)*m
			}
			if best < 0 || s > bestS || (s == bestS && selectors.Better(c, i, best)) {
				best, bestS = i, s
			}
		}
		if best < 0 {
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
	rng := rand.New(rand.NewPCG(1, 2))
	norms := []string{"none", "minmax", "zsigmoid"}
	for trial := 0; trial < 300; trial++ {
		o := testprob.Options{N: 1 + rng.IntN(30), Dim: 2 + rng.IntN(8), Clusters: rng.IntN(4)}
		if rng.IntN(2) == 0 {
			o.Budget = 50 + rng.IntN(500)
		}
		if rng.IntN(2) == 0 {
			o.MaxResults = 1 + rng.IntN(8)
		}
		p := testprob.Random(rng, o)
		lambda := rng.Float64()
		norm := norms[rng.IntN(3)]
		half := rng.IntN(2) == 0
		simMap := map[bool]string{true: "half", false: "cos"}[half]
		res := run(t, map[string]any{"lambda": lambda, "normalize": norm, "simMap": simMap}, p)
		require.Equal(t, naive(p, lambda, norm, half), res.Indices(), "trial %d", trial)
		var sum float64
		for _, it := range res.Items {
			sum += it.Gain
		}
		require.InDelta(t, sum, res.Objective, 1e-9)
	}
}

func TestHandExample(t *testing.T) {
	// a and b are near-duplicates, c is orthogonal and less relevant.
	p := &selectors.Problem{MaxResults: 2, Candidates: []selectors.Candidate{
		{Relevance: 0.9, Tokens: 10, Vector: []float32{1, 0}},
		{Relevance: 0.85, Tokens: 10, Vector: []float32{1, 0.05}},
		{Relevance: 0.5, Tokens: 10, Vector: []float32{0, 1}},
	}}
	tests := []struct {
		lambda float64
		want   []int
	}{
		{1, []int{0, 2}},   // relevance only, but b is a near-copy of a (cosine 0.9988): never selected
		{0.5, []int{0, 2}}, // 0.5*0.5-0 > 0.5*0.85-0.5*0.9988
		{0, []int{0, 2}},
	}
	for _, tc := range tests {
		res := run(t, map[string]any{"lambda": tc.lambda}, p)
		assert.Equal(t, tc.want, res.Indices(), "lambda %v", tc.lambda)
		assert.Zero(t, res.Items[0].Redundancy)
		assert.InDelta(t, tc.lambda*0.9, res.Items[0].Gain, 1e-12)
	}
}

func TestBudgetDropsMisfits(t *testing.T) {
	p := &selectors.Problem{Budget: 100, Candidates: []selectors.Candidate{
		{Relevance: 0.9, Tokens: 150, Vector: []float32{1, 0}}, // never fits
		{Relevance: 0.8, Tokens: 60, Vector: []float32{0, 1}},
		{Relevance: 0.7, Tokens: 50, Vector: []float32{1, 1}}, // no longer fits after 1
		{Relevance: 0.1, Tokens: 40, Vector: []float32{1, -1}},
	}}
	res := run(t, nil, p)
	assert.Equal(t, []int{1, 3}, res.Indices())
	assert.Equal(t, 100, res.TokensUsed)
}

func TestNormalize(t *testing.T) {
	c := []selectors.Candidate{{Relevance: 1}, {Relevance: 3}, {Relevance: 2}}
	assert.Equal(t, []float64{1, 3, 2}, Normalize(c, "none"))
	assert.Equal(t, []float64{0, 1, 0.5}, Normalize(c, "minmax"))
	// z = -1.2247, 1.2247, 0 (population sd sqrt(2/3)); logistic; sum to 1.
	s := 1 / (1 + math.Exp(math.Sqrt(1.5)))
	want := []float64{s, 1 - s, 0.5}
	got := Normalize(c, "zsigmoid")
	for i := range want {
		assert.InDelta(t, want[i]/1.5, got[i], 1e-12)
	}
	eq := []selectors.Candidate{{Relevance: 0.3}, {Relevance: 0.3}}
	assert.Equal(t, []float64{1, 1}, Normalize(eq, "minmax"))
	assert.Equal(t, []float64{0.5, 0.5}, Normalize(eq, "zsigmoid"))
	huge := []selectors.Candidate{{Relevance: -math.MaxFloat64}, {Relevance: math.MaxFloat64}}
	assert.Equal(t, []float64{0, 1}, Normalize(huge, "minmax"))
	assert.InDelta(t, 1, Normalize(huge, "zsigmoid")[0]+Normalize(huge, "zsigmoid")[1], 1e-12)
}

func TestConstraintsAndDeterminism(t *testing.T) {
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
}

func TestEmptyAndSingle(t *testing.T) {
	assert.Empty(t, run(t, nil, &selectors.Problem{}).Items)
	one := &selectors.Problem{Candidates: []selectors.Candidate{{Relevance: 0.4, Tokens: 5, Vector: []float32{0, 0}}}}
	assert.Equal(t, []int{0}, run(t, nil, one).Indices())
	one.Budget = 4
	assert.Empty(t, run(t, nil, one).Items)
}
