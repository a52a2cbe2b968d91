package knapsack

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/internal/testprob"
	"github.com/diverse-select/diverse-select/selectors/internal/textprob"
)

func run(t *testing.T, params map[string]any, p *selectors.Problem) (*selectors.Result, error) {
	t.Helper()
	s, err := selectors.New(Name, params)
	require.NoError(t, err)
	return s.Run(context.Background(), p)
}

// Terms and weights of the hand examples (w = largest relevance among the
// candidates containing the term):
//
//	0 "statin muscle pain"   r .9  terms statin muscl pain   w .9 .9 .9
//	1 "statins, muscles"     r .8  terms statin muscl
//	2 "liver enzymes"        r .5  terms liver enzym         w .5 .5
//	3 "statin liver kidney"  r .3  terms statin liver kidney w kidney .3
var hand = []selectors.Candidate{
	{Text: "statin muscle pain", Relevance: 0.9, Tokens: 10},
	{Text: "statins, muscles", Relevance: 0.8, Tokens: 5},
	{Text: "liver enzymes", Relevance: 0.5, Tokens: 5},
	{Text: "statin liver kidney", Relevance: 0.3, Tokens: 20},
}

func TestHandExamples(t *testing.T) {
	tests := []struct {
		name     string
		params   map[string]any
		budget   int
		k        int
		want     []int
		gain     []float64
		red      []float64
		f        float64
		universe float64
	}{
		// No budget: plain gain. 0 (2.7), then 2 (1.0), then 3 (kidney .3,
		// statin .9 + liver .5 already covered); 1 adds 0: stop.
		{"cardinality greedy stops at zero gain", nil, 0, 0, []int{0, 2, 3},
			[]float64{2.7, 1.0, 0.3}, []float64{0, 0, 1.4}, 4.0, 6},
		// Budget 15, density: 1 (1.8/5=.36) > 0 (2.7/10) > 2 (1.0/5) > 3 (1.7/20);
		// then 2 (1.0/5=.2) beats 0 (.9/10); then 0 and 3 do not fit.
		// f = 2.8 > best single 2.7.
		{"density greedy", nil, 15, 0, []int{1, 2}, []float64{1.8, 1.0}, []float64{0, 0}, 2.8, 6},
		{"K", nil, 0, 1, []int{0}, []float64{2.7}, []float64{0}, 2.7, 6},
		// Universe of the top candidate only: statin muscl pain.
		{"concept pool", map[string]any{"conceptPool": 1}, 0, 0, []int{0}, []float64{2.7}, []float64{0}, 2.7, 3},
		// ngrams add bigrams: statin-muscl, muscl-pain, liver-enzym, statin-liver, liver-kidney.
		{"ngrams universe", map[string]any{"concepts": "ngrams"}, 0, 0, []int{0, 2, 3},
			[]float64{4.5, 1.5, 0.9}, []float64{0, 0, 1.4}, 6.9, 11},
		// The pair {0, 2} fits 15 tokens with f = 3.7: density greedy misses it.
		{"enumerate beats density greedy", map[string]any{"enumerate": 3}, 15, 0, []int{0, 2}, []float64{2.7, 1.0}, []float64{0, 0}, 3.7, 6},
		{"budget below every item", nil, 4, 0, []int{}, nil, nil, 0, 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := run(t, tc.params, &selectors.Problem{Candidates: hand, Budget: tc.budget, MaxResults: tc.k})
			require.NoError(t, err)
			assert.Equal(t, tc.want, append([]int{}, res.Indices()...))
			for i, it := range res.Items {
				assert.InDelta(t, tc.gain[i], it.Gain, 1e-9, "gain %d", i)
				assert.InDelta(t, tc.red[i], it.Redundancy, 1e-9, "redundancy %d", i)
			}
			assert.InDelta(t, tc.f, res.Objective, 1e-9)
			assert.Equal(t, tc.universe, res.Stats["universe"])
		})
	}
}

// Density picks the 1-token item, after which the 100-token item no longer
// fits: f = 1. The single item 0 alone has f = 4 and wins.
func TestBestSingleGuard(t *testing.T) {
	c := []selectors.Candidate{
		{Text: "alpha beta gamma delta", Relevance: 1, Tokens: 100},
		{Text: "epsilon", Relevance: 1, Tokens: 1},
	}
	res, err := run(t, nil, &selectors.Problem{Candidates: c, Budget: 100})
	require.NoError(t, err)
	assert.Equal(t, []int{0}, res.Indices())
	assert.Equal(t, 4.0, res.Objective)
	assert.Equal(t, 1.0, res.Stats["singleGuard"])
}

func TestClusters(t *testing.T) {
	// Two obvious groups; N = 4 gives m = round(sqrt 4) = 2 clusters weighted
	// .9 (group of 0, 1) and .7 (group of 2, 3).
	c := []selectors.Candidate{
		{Vector: []float32{1, 0}, Relevance: 0.9, Tokens: 1},
		{Vector: []float32{0.9, 0.1}, Relevance: 0.8, Tokens: 1},
		{Vector: []float32{0, 1}, Relevance: 0.7, Tokens: 1},
		{Vector: []float32{0.1, 0.9}, Relevance: 0.6, Tokens: 1},
	}
	res, err := run(t, map[string]any{"concepts": "clusters"}, &selectors.Problem{Candidates: c})
	require.NoError(t, err)
	assert.Equal(t, []int{0, 2}, res.Indices())
	assert.InDelta(t, 1.6, res.Objective, 1e-12)
	assert.Equal(t, 2.0, res.Stats["clusters"])

	c[3].Vector = nil
	_, err = run(t, map[string]any{"concepts": "clusters"}, &selectors.Problem{Candidates: c})
	assert.ErrorContains(t, err, "candidate 3 has none")
}

func TestErrors(t *testing.T) {
	_, err := selectors.New(Name, map[string]any{"enumerate": 1})
	assert.ErrorContains(t, err, "want 0 (off) or 3")

	p := textprob.Random(rand.New(rand.NewPCG(1, 1)), textprob.Options{N: MaxEnumerate + 1})
	_, err = run(t, map[string]any{"enumerate": 3}, p)
	assert.ErrorContains(t, err, "at most 30 candidates")

	_, err = run(t, nil, &selectors.Problem{Candidates: []selectors.Candidate{{Tokens: 1}, {Tokens: 2}}})
	assert.ErrorContains(t, err, "needs candidate texts")
}

func TestProperties(t *testing.T) {
	for _, params := range []map[string]any{
		nil, {"concepts": "ngrams", "conceptPool": 5}, {"concepts": "clusters"}, {"enumerate": 3},
	} {
		textprob.CheckProperties(t, Name, params, 3, MaxEnumerate)
	}
}

// naive is the reference greedy: every round, evaluate every remaining
// fitting item and take the largest key (ties by selectors.Better).
func naive(in *instance) []int {
	covered := make([]bool, len(in.w))
	dropped := make([]bool, len(in.c))
	var sel []int
	used := 0
	for len(sel) < in.k {
		best, bestK, bestG := -1, 0.0, 0.0
		for d := range in.c {
			if dropped[d] {
				continue
			}
			if !in.fits(used, d) {
				dropped[d] = true
				continue
			}
			g := in.gain(d, covered)
			k := in.key(g, d)
			if best < 0 || k > bestK || (k == bestK && selectors.Better(in.c, d, best)) {
				best, bestK, bestG = d, k, g
			}
		}
		if best < 0 || bestG <= 0 {
			break
		}
		dropped[best] = true
		if in.guard.CopyOf(sel, best) {
			continue
		}
		sel = append(sel, best)
		in.cover(best, covered)
		used += in.c[best].Tokens
	}
	return sel
}

func TestLazyEqualsNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	ctx := context.Background()
	for trial := 0; trial < 600; trial++ {
		o := textprob.Options{N: 1 + rng.IntN(60), MaxWords: 1 + rng.IntN(15), Dim: 4}
		if trial%3 != 0 {
			o.Budget = 1 + rng.IntN(300)
		}
		if trial%4 == 0 {
			o.MaxResults = 1 + rng.IntN(6)
		}
		p := textprob.Random(rng, o)
		kind := []string{"terms", "ngrams", "clusters"}[trial%3]
		if kind != "clusters" && allEmpty(p) {
			continue
		}
		in, _, err := build(ctx, p, kind, 1+rng.IntN(30))
		require.NoError(t, err)
		lazy := in.greedy(ctx, nil, make([]bool, len(in.w)), 0, &queue{})
		require.Equal(t, naive(in), lazy, "trial %d (%s)", trial, kind)
	}
}

// opt is the brute-force optimum of f over the feasible subsets.
func opt(in *instance, p *selectors.Problem) float64 {
	best := 0.0
	scratch := make([]bool, len(in.w))
	testprob.Subsets(p, func(idx []int) { best = math.Max(best, in.valueWith(idx, scratch)) })
	return best
}

func TestApproximationAgainstBruteForce(t *testing.T) {
	ratio := 1 - 1/math.E
	tests := []struct {
		name   string
		params map[string]any
		budget bool
		k      bool
		bound  float64
	}{
		{"knapsack: density greedy + best single", nil, true, false, ratio / 2},
		{"cardinality: plain greedy", nil, false, true, ratio},
		{"knapsack: enumerate 3", map[string]any{"enumerate": 3}, true, false, ratio},
		{"knapsack and K: enumerate 3", map[string]any{"enumerate": 3}, true, true, ratio / 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, 13))
			worst := math.Inf(1)
			for trial := 0; trial < 300; trial++ {
				o := textprob.Options{N: 1 + rng.IntN(12), MaxWords: 1 + rng.IntN(8), MaxTokens: 40}
				if tc.budget {
					o.Budget = 1 + rng.IntN(100)
				}
				if tc.k {
					o.MaxResults = 1 + rng.IntN(4)
				}
				p := textprob.Random(rng, o)
				if allEmpty(p) {
					continue
				}
				res, err := run(t, tc.params, p)
				require.NoError(t, err)
				in, _, err := build(context.Background(), p, "terms", 20)
				require.NoError(t, err)
				best := opt(in, p)
				assert.InDelta(t, in.value(res.Indices()), res.Objective, 1e-12)
				if best > 0 {
					worst = math.Min(worst, res.Objective/best)
				}
				require.GreaterOrEqual(t, res.Objective, tc.bound*best-1e-12, "trial %d", trial)
			}
			t.Logf("worst ratio to OPT: %.3f (bound %.3f)", worst, tc.bound)
		})
	}
}

func allEmpty(p *selectors.Problem) bool {
	for _, c := range p.Candidates {
		if c.Text != "" {
			return false
		}
	}
	return true
}

func FuzzKnapsack(f *testing.F) {
	f.Add([]byte{}, uint8(0), 20, false)
	f.Add([]byte{0, 5, 2, 3, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, uint8(1), 1, true)
	f.Add([]byte{2, 9, 3, 9, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, uint8(2), 3, false)
	f.Add([]byte{1, 9, 3, 0, 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf8, 0x7f, 0, 0, 0}, uint8(2), 1, true)
	f.Fuzz(func(t *testing.T, data []byte, kind uint8, pool int, enumerate bool) {
		params := map[string]any{
			"concepts":    []string{"terms", "ngrams", "clusters"}[kind%3],
			"conceptPool": 1 + (pool%64+64)%64,
		}
		if enumerate {
			params["enumerate"] = 3
		}
		if err := textprob.Fuzz(Name, params, data); err != nil {
			t.Fatal(err)
		}
	})
}
