package all_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/internal/textprob"
	"github.com/diverse-select/diverse-select/selectors/text"
)

// TestPrecomputedTerms: every strategy returns the same selection whether it
// analyses the texts itself or is given Candidate.Terms (as a feature cache
// supplies them), and with Terms alone when the texts are dropped.
func TestPrecomputedTerms(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 40; trial++ {
		p := textprob.Random(rng, textprob.Options{N: 5 + rng.IntN(60), MaxWords: 40, Budget: 300, Dim: 4,
			Sources: true, Query: "statin muscle pain", Vocab: 50 * (trial % 2)})
		withTerms := *p
		withTerms.Candidates = append([]selectors.Candidate(nil), p.Candidates...)
		termsOnly := withTerms
		termsOnly.Candidates = make([]selectors.Candidate, len(p.Candidates))
		for i := range withTerms.Candidates {
			withTerms.Candidates[i].Terms = text.Terms([]string{}, p.Candidates[i].Text)
			termsOnly.Candidates[i] = withTerms.Candidates[i]
			termsOnly.Candidates[i].Text = ""
		}
		for _, tc := range []struct {
			strategy string
			params   map[string]any
		}{
			{"knapsack", nil}, {"knapsack", map[string]any{"concepts": "ngrams"}}, {"ngram", nil},
		} {
			s, err := selectors.New(tc.strategy, tc.params)
			require.NoError(t, err)
			want, err := s.Run(context.Background(), p)
			require.NoError(t, err)
			for name, q := range map[string]*selectors.Problem{"with terms": &withTerms, "terms only": &termsOnly} {
				got, err := s.Run(context.Background(), q)
				require.NoError(t, err, name)
				require.Equal(t, want, got, "%s %v %s trial %d", tc.strategy, tc.params, name, trial)
			}
		}
	}
}

// TestUsesTerms: what a configured strategy reads, for callers that load
// vectors and precompute terms only when used.
func TestUsesTerms(t *testing.T) {
	for _, tc := range []struct {
		strategy string
		params   map[string]any
		want     bool
	}{
		{"knapsack", nil, true},
		{"knapsack", map[string]any{"concepts": "ngrams"}, true},
		{"knapsack", map[string]any{"concepts": "clusters"}, false},
		{"ngram", nil, true},
		{"adagres", nil, false},
		{"topk", nil, false},
	} {
		s, err := selectors.New(tc.strategy, tc.params)
		require.NoError(t, err)
		require.Equal(t, tc.want, s.UsesTerms(), "%s %v", tc.strategy, tc.params)
		wantVectors := tc.strategy == "adagres" || tc.params["concepts"] == "clusters"
		require.Equal(t, wantVectors, s.UsesVectors(), "%s %v", tc.strategy, tc.params)
	}
}
