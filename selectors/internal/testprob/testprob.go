// Package testprob builds random selection problems and enumerates subsets
// for the strategies' tests. It is test support only.
package testprob

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/diverse-select/diverse-select/selectors"
)

// Options shape a random problem.
type Options struct {
	N, Dim     int
	Budget     int // 0 = none
	MaxResults int // 0 = none
	MinTokens  int // default 1
	MaxTokens  int // default 100
	// Positive draws vector components in [0,1) (all cosines >= 0);
	// otherwise components are standard normal.
	Positive bool
	// Clusters > 0 draws vectors around that many centres, so pools have
	// near-duplicates as real retrieval results do.
	Clusters int
}

// Random draws a problem from rng: relevance in [0,1), tokens in
// [MinTokens, MaxTokens], vectors as the options say.
func Random(rng *rand.Rand, o Options) *selectors.Problem {
	if o.MinTokens < 1 {
		o.MinTokens = 1
	}
	if o.MaxTokens < o.MinTokens {
		o.MaxTokens = o.MinTokens + 99
	}
	draw := func() float32 {
		if o.Positive {
			return rng.Float32()
		}
		return float32(rng.NormFloat64())
	}
	centres := make([][]float32, o.Clusters)
	for c := range centres {
		centres[c] = make([]float32, o.Dim)
		for j := range centres[c] {
			centres[c][j] = draw()
		}
	}
	cands := make([]selectors.Candidate, o.N)
	for i := range cands {
		v := make([]float32, o.Dim)
		var centre []float32
		if o.Clusters > 0 {
			centre = centres[rng.IntN(o.Clusters)]
		}
		for j := range v {
			v[j] = draw()
			if centre != nil {
				v[j] = centre[j] + 0.3*v[j]
			}
		}
		cands[i] = selectors.Candidate{
			Relevance: rng.Float64(),
			Tokens:    o.MinTokens + rng.IntN(o.MaxTokens-o.MinTokens+1),
			Vector:    v,
		}
	}
	return &selectors.Problem{Candidates: cands, Budget: o.Budget, MaxResults: o.MaxResults}
}

// Subsets calls visit for every subset of {0..n-1} (as a sorted index
// slice, reused between calls) whose token sum is within budget (0 = none)
// and whose size is at most k (0 = none).
func Subsets(p *selectors.Problem, visit func(idx []int)) {
	n := len(p.Candidates)
	k := p.K()
	idx := make([]int, 0, n)
	for mask := 0; mask < 1<<n; mask++ {
		idx = idx[:0]
		used := 0
		for i := 0; i < n; i++ {
			if mask&(1<<i) != 0 {
				idx = append(idx, i)
				used += p.Candidates[i].Tokens
			}
		}
		if len(idx) > k || (p.Budget > 0 && used > p.Budget) {
			continue
		}
		visit(idx)
	}
}

// MustRun builds the named strategy with params and runs it on p, failing
// the test on any error.
func MustRun(t testing.TB, name string, params map[string]any, p *selectors.Problem) *selectors.Result {
	t.Helper()
	s, err := selectors.New(name, params)
	if err != nil {
		t.Fatalf("selectors.New(%q, %v): %v", name, params, err)
	}
	res, err := s.Run(context.Background(), p)
	if err != nil {
		t.Fatalf("%s: Run: %v", name, err)
	}
	return res
}
