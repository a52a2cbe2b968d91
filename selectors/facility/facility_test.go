package facility

import (
	"context"
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

// build returns the objective the strategy with these params would use.
func build(t *testing.T, params map[string]any, p *selectors.Problem) *objective {
	t.Helper()
	d, _ := selectors.Lookup(Name)
	v, err := selectors.ValidateParams(Name, d.Params, params)
	require.NoError(t, err)
	impl, err := d.New(v)
	require.NoError(t, err)
	return impl.(strategy).objective(p)
}

// value is f(S) computed from scratch.
func (o *objective) value(s []int) float64 {
	var v float64
	for _, i := range s {
		v += o.rel[i]
	}
	for u := 0; u < o.k.n; u++ {
		var m float32
		for _, a := range s {
			m = max(m, o.k.at(a, u))
		}
		v += o.w2 * float64(m)
	}
	return v
}

// naiveGreedy evaluates f(S+i) - f(S) from scratch for every candidate each
// round, then applies the best-single guard when there is a budget.
func naiveGreedy(p *selectors.Problem, o *objective) []int {
	c := p.Candidates
	var sel []int
	in := make([]bool, len(c))
	used := 0
	for len(sel) < p.K() {
		base := o.value(sel)
		best, bestKey, bestG := -1, 0.0, 0.0
		for i := range c {
			if in[i] || !p.Fits(used, c[i].Tokens) {
				continue
			}
			g := o.value(append(append([]int(nil), sel...), i)) - base
			key := g
			if p.Budget > 0 {
				key = g / float64(c[i].Tokens)
			}
			if best < 0 || key > bestKey+1e-12 || (math.Abs(key-bestKey) <= 1e-12 && selectors.Better(c, i, best)) {
				best, bestKey, bestG = i, key, g
			}
		}
		if best < 0 || bestG <= 1e-12 {
			break
		}
		sel = append(sel, best)
		in[best] = true
		used += c[best].Tokens
	}
	if p.Budget > 0 {
		single, singleF := -1, 0.0
		for i := range c {
			if f := o.value([]int{i}); p.Fits(0, c[i].Tokens) && (single < 0 || f > singleF+1e-12 ||
				(math.Abs(f-singleF) <= 1e-12 && selectors.Better(c, i, single))) {
				single, singleF = i, f
			}
		}
		if single >= 0 && singleF > o.value(sel)+1e-12 {
			return []int{single}
		}
	}
	return sel
}

func randomParams(rng *rand.Rand) map[string]any {
	kernels := []string{"cosine", "euclidean", "sqeuclidean"}
	weightKinds := []string{"none", "onehot", "decay"}
	m := map[string]any{
		"kernel":  kernels[rng.IntN(3)],
		"weights": weightKinds[rng.IntN(3)],
		"w2":      []float64{0.1, 0.5, 0.9, 1}[rng.IntN(4)],
		"squared": rng.IntN(2) == 0,
	}
	if rng.IntN(2) == 0 {
		m["nnz"] = 1 + rng.IntN(6)
	}
	return m
}

func randomProblem(rng *rand.Rand, maxN int) *selectors.Problem {
	o := testprob.Options{N: 1 + rng.IntN(maxN), Dim: 2 + rng.IntN(6), Clusters: rng.IntN(4), Positive: rng.IntN(3) == 0}
	if rng.IntN(2) == 0 {
		o.Budget = 50 + rng.IntN(300)
	}
	if rng.IntN(2) == 0 {
		o.MaxResults = 1 + rng.IntN(6)
	}
	return testprob.Random(rng, o)
}

func TestLazyEqualsNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 400; trial++ {
		p := randomProblem(rng, 25)
		params := randomParams(rng)
		res := run(t, params, p)
		o := build(t, params, p)
		require.Equal(t, naiveGreedy(p, o), res.Indices(), "trial %d params %v", trial, params)
		require.InDelta(t, o.value(res.Indices()), res.Objective, 1e-9)
		cur := make([]float32, len(p.Candidates))
		for _, it := range res.Items { // redundancy: own coverage already held
			var own float64
			for u := range cur {
				own += float64(o.k.at(it.Index, u))
			}
			require.InDelta(t, it.Gain, o.rel[it.Index]+o.w2*own-it.Redundancy, 1e-6)
			o.k.update(it.Index, cur)
		}
	}
}

// TestApproximationBounds checks the greedy guarantees against brute force:
// (1-1/e) OPT under a cardinality constraint, (1-1/e)/2 OPT for density
// greedy with the best-single guard under a knapsack.
func TestApproximationBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	bound := 1 - 1/math.E
	for trial := 0; trial < 300; trial++ {
		knapsack := trial%2 == 1
		o := testprob.Options{N: 2 + rng.IntN(11), Dim: 2 + rng.IntN(4), Clusters: rng.IntN(3), MaxTokens: 200}
		if knapsack {
			o.Budget = 50 + rng.IntN(400)
		} else {
			o.MaxResults = 1 + rng.IntN(4)
		}
		p := testprob.Random(rng, o)
		params := randomParams(rng)
		res := run(t, params, p)
		obj := build(t, params, p)
		var opt float64
		testprob.Subsets(p, func(s []int) { opt = max(opt, obj.value(s)) })
		want := bound * opt
		if knapsack {
			want /= 2
		}
		require.GreaterOrEqual(t, res.Objective, want-1e-9, "trial %d", trial)
	}
}

// TestDistanceKernels compares the kernel derived from the cosine matrix
// with 1/(1+||a-u||) and 1/(1+||a-u||^2) computed on the raw vectors.
func TestDistanceKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	p := testprob.Random(rng, testprob.Options{N: 30, Dim: 8})
	p.Candidates[3].Vector = make([]float32, 8) // a zero vector
	for _, sq := range []bool{false, true} {
		k := distanceKernel(p.Candidates, p.Sims().Matrix(), sq)
		for a := range p.Candidates {
			for u := range p.Candidates {
				var d2 float64
				for j := range p.Candidates[a].Vector {
					d := float64(p.Candidates[a].Vector[j] - p.Candidates[u].Vector[j])
					d2 += d * d
				}
				want := 1 / (1 + d2)
				if !sq {
					want = 1 / (1 + math.Sqrt(d2))
				}
				require.InDelta(t, want, k[a*30+u], 2e-3)
			}
		}
	}
}

func TestSparsifyKeepsTopPerColumn(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	p := testprob.Random(rng, testprob.Options{N: 20, Dim: 4})
	dense := buildKernel(p, "euclidean", 0)
	sparse := buildKernel(p, "euclidean", 3)
	for u := 0; u < 20; u++ {
		var kept []float32
		for a := 0; a < 20; a++ {
			if v := sparse.at(a, u); v != 0 {
				require.Equal(t, dense.at(a, u), v)
				kept = append(kept, v)
			}
		}
		require.Len(t, kept, 3)
		// Every dropped value is <= the smallest kept one.
		lo := min(kept[0], kept[1], kept[2])
		for a := 0; a < 20; a++ {
			if sparse.at(a, u) == 0 {
				require.LessOrEqual(t, dense.at(a, u), lo)
			}
		}
	}
}

func TestWeights(t *testing.T) {
	// 40 candidates with relevance i/39: onehot top ceil(5%*40) = 2, next
	// ceil(10%*40) - 2 = 2, rest 36.
	c := make([]selectors.Candidate, 40)
	for i := range c {
		c[i].Relevance = float64(i) / 39
	}
	q := weights(c, weightOpts{kind: "onehot", bottomWeight: 1, multiplier: 10, power: 3})
	assert.Equal(t, []float64{60, 60, 30, 30, 1}, []float64{q[39], q[38], q[37], q[36], q[35]})
	q = weights(c, weightOpts{kind: "onehot", bottomWeight: 0.5, multiplier: 10, power: 3, squared: true})
	assert.Equal(t, []float64{900, 30, 0.5}, []float64{q[39], q[37], q[0]})
	// decay: 30 bins over [0,1]; relevance 1 is bin 29 (d=0) -> 3^8; 0.9 is
	// bin 27 (d=2) -> 3^6; relevance 0 is bin 0 (d=29) -> 3^0; 0.75 is bin
	// floor(22.5) = 22 (d=7) -> 3^1.
	d := []selectors.Candidate{{Relevance: 1}, {Relevance: 0.9}, {Relevance: 0}, {Relevance: 0.75}}
	q = weights(d, weightOpts{kind: "decay", base: 3, powerIterations: 8})
	assert.Equal(t, []float64{6561, 729, 1, 3}, q)
}

func TestConstraintsDeterminismEdges(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := 0; trial < 100; trial++ {
		p := randomProblem(rng, 40)
		params := randomParams(rng)
		a := run(t, params, p)
		p.Similarities = nil
		b := run(t, params, p)
		require.Equal(t, a, b)
		require.LessOrEqual(t, len(a.Items), p.K())
		if p.Budget > 0 {
			require.LessOrEqual(t, a.TokensUsed, p.Budget)
		}
	}
	assert.Empty(t, run(t, nil, &selectors.Problem{}).Items)
	one := &selectors.Problem{Candidates: []selectors.Candidate{{Relevance: -3, Tokens: 5, Vector: []float32{1, 2}}}}
	assert.Equal(t, []int{0}, run(t, nil, one).Indices(), "coverage alone is a positive gain")
	one.Budget = 4
	assert.Empty(t, run(t, nil, one).Items)
}

func TestBestSingleGuard(t *testing.T) {
	// Relevance only (w2 = 0): item 0 has f = log 1.5 = 0.405 for 100 tokens
	// (density 0.0041), items 1 and 2 have log 1.1 = 0.095 for 10 tokens
	// (density 0.0095). Density greedy takes 1 and 2 (f = 0.19), then 0 no
	// longer fits; the guard returns 0 alone.
	p := &selectors.Problem{Budget: 100, Candidates: []selectors.Candidate{
		{Relevance: 0.5, Tokens: 100, Vector: []float32{1, 0, 0}},
		{Relevance: 0.1, Tokens: 10, Vector: []float32{0, 1, 0}},
		{Relevance: 0.1, Tokens: 10, Vector: []float32{0, 0, 1}},
	}}
	res := run(t, map[string]any{"w2": 0.0}, p)
	assert.Equal(t, []int{0}, res.Indices())
	assert.InDelta(t, math.Log(1.5), res.Objective, 1e-12)
	p.Budget = 20
	assert.Equal(t, []int{1, 2}, run(t, map[string]any{"w2": 0.0}, p).Indices())
}

func TestPoolCap(t *testing.T) {
	p := &selectors.Problem{Candidates: make([]selectors.Candidate, MaxPool+1)}
	for i := range p.Candidates {
		p.Candidates[i] = selectors.Candidate{Relevance: 0.5, Tokens: 1, Vector: []float32{1}}
	}
	s, err := selectors.New(Name, nil)
	require.NoError(t, err)
	_, err = s.Run(context.Background(), p)
	require.ErrorIs(t, err, selectors.ErrInvalidProblem)
}
