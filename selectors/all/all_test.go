package all_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/diverse-select/diverse-select/selectors"
	_ "github.com/diverse-select/diverse-select/selectors/all"
	"github.com/diverse-select/diverse-select/selectors/internal/testprob"
)

var words = strings.Fields("statin liver muscle pain dose trial risk heart cholesterol patient study effect " +
	"the of and in a to side rare common report")

// withText gives every candidate a text, a source and the problem a query,
// so that text-based strategies run on the same problems.
func withText(rng *rand.Rand, p *selectors.Problem) *selectors.Problem {
	for i := range p.Candidates {
		n := 3 + rng.IntN(12)
		w := make([]string, n)
		for j := range w {
			w[j] = words[rng.IntN(len(words))]
		}
		p.Candidates[i].Text = strings.Join(w, " ")
		p.Candidates[i].Source = fmt.Sprintf("https://site%d.example/page%d", rng.IntN(3), i)
		p.Candidates[i].ID = fmt.Sprint(i)
	}
	p.Query = "statin side effects"
	return p
}

// clone copies a problem deeply enough that a run cannot affect another.
func clone(p *selectors.Problem) *selectors.Problem {
	q := *p
	q.Candidates = append([]selectors.Candidate(nil), p.Candidates...)
	q.Similarities = nil
	return &q
}

// checkValid asserts that res is a valid selection of p.
func checkValid(t testing.TB, p *selectors.Problem, res *selectors.Result) {
	t.Helper()
	require.NotNil(t, res)
	require.LessOrEqual(t, len(res.Items), p.K(), "more items than K")
	seen := map[int]bool{}
	used := 0
	for _, it := range res.Items {
		require.GreaterOrEqual(t, it.Index, 0)
		require.Less(t, it.Index, len(p.Candidates))
		require.False(t, seen[it.Index], "index %d selected twice", it.Index)
		seen[it.Index] = true
		used += p.Candidates[it.Index].Tokens
	}
	if p.Budget > 0 {
		require.LessOrEqual(t, used, p.Budget, "budget exceeded")
	}
	require.Equal(t, used, res.TokensUsed)
}

func runAll(t *testing.T, p *selectors.Problem, check func(t *testing.T, name string, res *selectors.Result)) {
	for _, name := range selectors.Names() {
		t.Run(name, func(t *testing.T) {
			s, err := selectors.New(name, nil)
			require.NoError(t, err)
			q := clone(p)
			res, err := s.Run(context.Background(), q)
			require.NoError(t, err)
			checkValid(t, q, res)
			again, err := s.Run(context.Background(), clone(p))
			require.NoError(t, err)
			require.Equal(t, res, again, "not deterministic")
			if check != nil {
				check(t, name, res)
			}
		})
	}
}

func TestRegistered(t *testing.T) {
	names := selectors.Names()
	for _, want := range []string{"adagres", "dpp", "facility", "mmr", "topk"} {
		require.Contains(t, names, want)
	}
}

func TestRandomProblems(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := 0; trial < 40; trial++ {
		o := testprob.Options{N: rng.IntN(80), Dim: 1 + rng.IntN(32), Clusters: rng.IntN(5), MaxTokens: 400}
		if rng.IntN(4) > 0 {
			o.Budget = 1 + rng.IntN(2000)
		}
		if rng.IntN(2) == 0 {
			o.MaxResults = 1 + rng.IntN(12)
		}
		p := withText(rng, testprob.Random(rng, o))
		p.Order = selectors.Orders[rng.IntN(len(selectors.Orders))]
		if rng.IntN(3) == 0 {
			p.DedupThreshold = 0.5 + rng.Float64()/2
		}
		t.Run(fmt.Sprint(trial), func(t *testing.T) { runAll(t, p, nil) })
	}
}

func TestEdgeCases(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	base := func(n int) *selectors.Problem {
		return withText(rng, testprob.Random(rng, testprob.Options{N: n, Dim: 8, MinTokens: 10, MaxTokens: 50}))
	}
	empty := func(t *testing.T, name string, res *selectors.Result) { require.Empty(t, res.Items) }
	cases := map[string]struct {
		p     *selectors.Problem
		check func(t *testing.T, name string, res *selectors.Result)
	}{
		"N=0": {&selectors.Problem{Budget: 100}, empty},
		"N=1": {base(1), func(t *testing.T, name string, res *selectors.Result) {
			require.LessOrEqual(t, len(res.Items), 1)
		}},
		"budget below every item": {func() *selectors.Problem { p := base(20); p.Budget = 9; return p }(), empty},
		"duplicates": {func() *selectors.Problem {
			p := base(10)
			p.Candidates = append(p.Candidates, p.Candidates...)
			return p
		}(), nil},
		"zero vectors": {func() *selectors.Problem {
			p := base(12)
			for i := range p.Candidates {
				if i%2 == 0 {
					p.Candidates[i].Vector = make([]float32, 8)
				}
			}
			return p
		}(), nil},
		"all zero vectors, equal relevance": {func() *selectors.Problem {
			p := base(6)
			for i := range p.Candidates {
				p.Candidates[i].Vector = make([]float32, 8)
				p.Candidates[i].Relevance = 0.5
			}
			return p
		}(), nil},
		"negative relevance": {func() *selectors.Problem {
			p := base(10)
			for i := range p.Candidates {
				p.Candidates[i].Relevance -= 2
			}
			return p
		}(), nil},
		"K=1 with budget": {func() *selectors.Problem { p := base(15); p.MaxResults = 1; p.Budget = 60; return p }(), nil},
		"dedup everything but one": {func() *selectors.Problem {
			p := base(8)
			for i := range p.Candidates {
				p.Candidates[i].Vector = []float32{1, 2, 3, 4, 5, 6, 7, 8}
			}
			p.DedupThreshold = 0.99
			return p
		}(), func(t *testing.T, name string, res *selectors.Result) {
			require.Equal(t, 7, res.Removed)
			require.LessOrEqual(t, len(res.Items), 1)
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) { runAll(t, tc.p, tc.check) })
	}
}

func TestInvalidInputsAreClearErrors(t *testing.T) {
	good := func() []selectors.Candidate {
		return []selectors.Candidate{
			{Relevance: 0.9, Tokens: 10, Vector: []float32{1, 0}, Text: "statin liver"},
			{Relevance: 0.5, Tokens: 10, Vector: []float32{0, 1}, Text: "muscle pain"},
		}
	}
	cases := map[string]func(p *selectors.Problem){
		"NaN relevance":     func(p *selectors.Problem) { p.Candidates[0].Relevance = math.NaN() },
		"Inf relevance":     func(p *selectors.Problem) { p.Candidates[1].Relevance = math.Inf(-1) },
		"NaN vector":        func(p *selectors.Problem) { p.Candidates[0].Vector[1] = float32(math.NaN()) },
		"Inf vector":        func(p *selectors.Problem) { p.Candidates[1].Vector[0] = float32(math.Inf(1)) },
		"zero tokens":       func(p *selectors.Problem) { p.Candidates[0].Tokens = 0 },
		"mixed dimensions":  func(p *selectors.Problem) { p.Candidates[1].Vector = []float32{1, 2, 3} },
		"negative budget":   func(p *selectors.Problem) { p.Budget = -1 },
		"dedup above one":   func(p *selectors.Problem) { p.DedupThreshold = 1.5 },
		"unknown order":     func(p *selectors.Problem) { p.Order = "random" },
		"wrong sims length": func(p *selectors.Problem) { p.Similarities = selectors.NewDenseSimilarities([][]float32{{1}}) },
	}
	for _, name := range selectors.Names() {
		s, err := selectors.New(name, nil)
		require.NoError(t, err)
		for what, mutate := range cases {
			p := &selectors.Problem{Candidates: good()}
			mutate(p)
			_, err := s.Run(context.Background(), p)
			require.ErrorIs(t, err, selectors.ErrInvalidProblem, "%s: %s", name, what)
		}
		d, _ := selectors.Lookup(name)
		if d.NeedsVectors {
			p := &selectors.Problem{Candidates: good()}
			p.Candidates[1].Vector = nil
			_, err := s.Run(context.Background(), p)
			require.ErrorIs(t, err, selectors.ErrInvalidProblem, "%s: missing vector", name)
		}
	}
}

// TestCancelledContext: every strategy checks ctx (the Strategy contract).
func TestCancelledContext(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	p := withText(rng, testprob.Random(rng, testprob.Options{N: 30, Dim: 8}))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, name := range selectors.Names() {
		s, err := selectors.New(name, nil)
		require.NoError(t, err)
		_, err = s.Run(ctx, clone(p))
		require.ErrorIs(t, err, context.Canceled, name)
	}
}
