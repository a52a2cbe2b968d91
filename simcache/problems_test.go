package simcache_test

import (
	"math/rand/v2"

	"github.com/diverse-select/diverse-select/internal/corpus"
	"github.com/diverse-select/diverse-select/selectors"
)

// problemOpts shape a random selection problem like a retrieval pool: vectors
// drawn around a few centres (near-duplicates), relevance in [0,1), token
// costs in [minTokens, maxTokens], and English texts from the demo corpus.
type problemOpts struct {
	n, dim, clusters     int
	budget, maxResults   int
	minTokens, maxTokens int
	texts                bool
}

var demoChunks = corpus.Chunks()

func randomProblem(rng *rand.Rand, o problemOpts) *selectors.Problem {
	if o.minTokens < 1 {
		o.minTokens = 1
	}
	if o.maxTokens < o.minTokens {
		o.maxTokens = o.minTokens + 99
	}
	centres := make([][]float32, max(1, o.clusters))
	for c := range centres {
		centres[c] = make([]float32, o.dim)
		for j := range centres[c] {
			centres[c][j] = float32(rng.NormFloat64())
		}
	}
	cands := make([]selectors.Candidate, o.n)
	for i := range cands {
		v := make([]float32, o.dim)
		centre := centres[rng.IntN(len(centres))]
		for j := range v {
			x := float32(rng.NormFloat64())
			if o.clusters > 0 {
				x = centre[j] + 0.3*x
			}
			v[j] = x
		}
		cands[i] = selectors.Candidate{Relevance: rng.Float64(), Vector: v,
			Tokens: o.minTokens + rng.IntN(o.maxTokens-o.minTokens+1)}
		if o.texts {
			ch := demoChunks[rng.IntN(len(demoChunks))]
			cands[i].Text, cands[i].Source = ch.Text(), ch.Source
		}
	}
	return &selectors.Problem{Candidates: cands, Budget: o.budget, MaxResults: o.maxResults, Query: "statin side effects"}
}
