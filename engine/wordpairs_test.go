package engine

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/diverse-select/diverse-select/selectors"
)

// TestFeatureCacheWordPairs: a strategy that reads the texts gets each
// candidate's word pairs (the near-copy guard's) with its text, and whether
// it is one line (coverage's title lines), computed
// once when the entry is stored and then taken from it as they are; a
// strategy that reads no text gets neither, so its guard compares vectors
// only, as before; an evidence card's candidate compares the card's pairs.
func TestFeatureCacheWordPairs(t *testing.T) {
	for name, tc := range map[string]struct {
		args      map[string]any
		wantPairs bool
	}{
		"coverage (the default)": {map[string]any{"tokenBudget": 300}, true},
		"knapsack":               {map[string]any{"strategy": "knapsack", "tokenBudget": 300}, true},
		"mmr reads no text":      {map[string]any{"strategy": "mmr", "tokenBudget": 300}, false},
		"evidence cards":         {map[string]any{"tokenBudget": 300, "evidence": "cards"}, false},
	} {
		t.Run(name, func(t *testing.T) {
			in, features, problem := cachedProblems(t, docClass(), tc.args)
			for round := range 2 {
				for i, c := range problem().Candidates {
					entry := features.lookup(&in[i])
					require.NotNil(t, entry, "candidate %d cached", i)
					require.Equal(t, selectors.WordPairs(entry.Text), entry.WordPairs, "candidate %d: the entry's text's", i)
					if !tc.wantPairs {
						require.Nil(t, c.WordPairs, "candidate %d", i)
						continue
					}
					require.NotEmpty(t, c.WordPairs, "candidate %d", i)
					require.Equal(t, selectors.WordPairs(c.Text), c.WordPairs, "candidate %d", i)
					require.Equal(t, selectors.SingleLine(c.Text), c.SingleLine, "candidate %d", i)
					require.Equal(t, selectors.SingleLine(entry.Text), entry.SingleLine, "candidate %d", i)
					if round == 1 {
						require.Same(t, &entry.WordPairs[0], &c.WordPairs[0], "candidate %d: the cached pairs", i)
					}
				}
			}
		})
	}
}
