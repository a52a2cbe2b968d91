package simcache_test

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/diverse-select/diverse-select/selectors"
	_ "github.com/diverse-select/diverse-select/selectors/all"
	"github.com/diverse-select/diverse-select/selectors/text"
	"github.com/diverse-select/diverse-select/simcache"
)

// TestStrategiesOnEngine: every registered strategy (and knapsack's
// k-means clusters, which project on the engine) selects the same items
// with the simcache engine as with the default DenseSimilarities, with and
// without the dedup pre-pass (which then runs on a Subset engine).
func TestStrategiesOnEngine(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := 0; trial < 30; trial++ {
		p := randomProblem(rng, problemOpts{n: 1 + rng.IntN(120), dim: 1 + rng.IntN(70), clusters: rng.IntN(6),
			budget: 200 + rng.IntN(800), maxResults: rng.IntN(12)})
		if trial%3 == 0 {
			p.DedupThreshold = 0.9
		}
		vecs := make([][]float32, len(p.Candidates))
		for i, c := range p.Candidates {
			vecs[i] = c.Vector
		}
		for _, name := range append(selectors.Names(), "knapsack-clusters") {
			var params map[string]any
			if name == "knapsack-clusters" {
				name, params = "knapsack", map[string]any{"concepts": "clusters"}
			}
			s, err := selectors.New(name, params)
			require.NoError(t, err)
			if !s.UsesVectors() && s.UsesTerms() {
				continue
			}
			ref := *p
			ref.Similarities = nil
			want, err := s.Run(context.Background(), &ref)
			require.NoError(t, err)
			e := must(simcache.New(vecs))
			q := *p
			q.Similarities = e
			got, err := s.Run(context.Background(), &q)
			e.Release()
			require.NoError(t, err)
			require.Equal(t, want.Indices(), got.Indices(), "%s trial %d", name, trial)
			require.Equal(t, want.Removed, got.Removed)
			require.InDelta(t, want.Objective, got.Objective, 1e-4*(1+abs(want.Objective)), "%s trial %d", name, trial)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestValidateUsesEngine: with the engine supplied, validation takes the
// engine's finiteness check and still refuses non-finite vectors by index.
func TestValidateUsesEngine(t *testing.T) {
	nan := float32(math.NaN())
	cands := []selectors.Candidate{
		{Relevance: 1, Tokens: 1, Vector: []float32{1, 0}},
		{Relevance: 1, Tokens: 1, Vector: []float32{0, 1}},
		{Relevance: 1, Tokens: 1, Vector: []float32{nan, 1}},
	}
	vecs := [][]float32{cands[0].Vector, cands[1].Vector, cands[2].Vector}
	e := must(simcache.New(vecs))
	defer e.Release()
	p := &selectors.Problem{Candidates: cands, Similarities: e}
	err := p.Validate()
	require.ErrorIs(t, err, selectors.ErrInvalidProblem)
	require.ErrorContains(t, err, "candidate 2 has a non-finite vector component")
	p.Candidates = cands[:2]
	p.Similarities = nil
	require.NoError(t, p.Validate())
	e2 := must(simcache.New(vecs[:2]))
	defer e2.Release()
	p.Similarities = e2
	require.NoError(t, p.Validate())
}

// TestNoAllocationPerCandidate: the allocations of a query do not grow with
// the pool (nothing is allocated per candidate in the greedy loops, and the
// engine's buffers are pooled), checked at N = 100 and N = 1000.
func TestNoAllocationPerCandidate(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts over 1000-candidate pools")
	}
	for _, name := range []string{"adagres", "mmr", "dpp", "facility", "topk", "relcost", "cliff"} {
		s, err := selectors.New(name, nil)
		require.NoError(t, err)
		allocs := map[int]float64{}
		for _, n := range []int{100, 1000} {
			p := randomProblem(rand.New(rand.NewPCG(1, uint64(n))), problemOpts{n: n, dim: 64, clusters: 10,
				budget: 1500, maxResults: 10, minTokens: 50, maxTokens: 300})
			vecs := make([][]float32, n)
			for i := range vecs {
				vecs[i] = p.Candidates[i].Vector
			}
			allocs[n] = testing.AllocsPerRun(20, func() {
				e := must(simcache.New(vecs))
				p.Similarities = e
				if _, err := s.Run(context.Background(), p); err != nil {
					t.Fatal(err)
				}
				e.Release()
			})
		}
		require.LessOrEqual(t, allocs[1000], allocs[100]+10, "%s: %v allocations at N=100, %v at N=1000", name, allocs[100], allocs[1000])
	}
}

// TestTermHashesChangeNothing: every registered strategy that reads the
// analysed terms selects the same items, with the same gains, objective and
// stats, whether the candidates' terms come with their hashes (as the
// module's feature cache gives them) or without.
func TestTermHashesChangeNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for trial := 0; trial < 40; trial++ {
		p := randomProblem(rng, problemOpts{n: 1 + rng.IntN(300), dim: 1 + rng.IntN(40), clusters: rng.IntN(6),
			budget: 200 + rng.IntN(800), maxResults: rng.IntN(12), texts: true})
		for i := range p.Candidates {
			p.Candidates[i].Terms = text.Terms([]string{}, p.Candidates[i].Text)
		}
		hashed := *p
		hashed.Candidates = slices.Clone(p.Candidates)
		for i := range hashed.Candidates {
			c := &hashed.Candidates[i]
			c.TermHashes = text.TermHashes(make([]uint32, 0, len(c.Terms)), c.Terms)
		}
		for _, name := range selectors.Names() {
			s, err := selectors.New(name, nil)
			require.NoError(t, err)
			if !s.UsesTerms() {
				continue
			}
			want, err := s.Run(context.Background(), p)
			require.NoError(t, err)
			got, err := s.Run(context.Background(), &hashed)
			require.NoError(t, err)
			require.Equal(t, want.Items, got.Items, "%s trial %d", name, trial)
			require.Equal(t, want.Objective, got.Objective, "%s trial %d", name, trial)
			require.Equal(t, want.Stats, got.Stats, "%s trial %d", name, trial)
		}
	}
}

// must is v, failing the test (by a panic) on err.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
