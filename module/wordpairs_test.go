package diverseselect

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/weaviate/weaviate/entities/models"

	"github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/selectors"
)

// TestFeatureCacheWordPairs: a strategy that reads the texts gets each
// candidate's word pairs (the near-copy guard's) with its text, and whether
// it is one line (coverage's title lines), computed
// once when the entry is stored and then taken from it as they are; a
// strategy that reads no text gets neither, so its guard compares vectors
// only, as before; an evidence card's candidate compares the card's pairs.
func TestFeatureCacheWordPairs(t *testing.T) {
	class := docClass()
	for _, tc := range []struct {
		args      map[string]any
		wantPairs bool
	}{
		{map[string]any{"tokenBudget": 300}, true}, // the default strategy, coverage
		{map[string]any{"strategy": "knapsack", "tokenBudget": 300}, true},
		{map[string]any{"strategy": "mmr", "tokenBudget": 300}, false},
		{map[string]any{"tokenBudget": 300, "evidence": "cards"}, false},
	} {
		t.Run(fmt.Sprint(tc.args), func(t *testing.T) {
			m := New(func(string) *models.Class { return class })
			query, err := config.Parse(tc.args, m.defaults.Limits)
			require.NoError(t, err)
			pl, err := m.newPlan(class, routeArgument, query, searchFacts{relevance: fromOrder, queryText: "statin liver pain"})
			require.NoError(t, err)
			in := results(40, 1000)
			features := m.featureSource(pl, nil)
			problem := func() *selectors.Problem {
				p, _, _, err := m.problem(context.Background(), pl, in, nil)
				require.NoError(t, err)
				if e, ok := p.Similarities.(interface{ Release() }); ok {
					e.Release() // the test reads the candidates only
				}
				return p
			}
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
