package engine

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/go-openapi/strfmt"
	"github.com/stretchr/testify/require"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/search"

	"github.com/diverse-select/diverse-select/config"
)

// cardResults are n results of class Doc whose bodies are four sentences:
// a lead naming the chunk, one about the query (statins and muscle pain)
// and two fillers.
func cardResults(n int) []search.Result {
	vocab := strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november " +
		"oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu amber basil cedar dune")
	words := func(i, k int) string { // k words, distinct enough per i that no two chunks are near-copies
		w := make([]string, k)
		for j := range w {
			w[j] = vocab[(i*7+j*j*3+j)%len(vocab)]
		}
		return strings.Join(w, " ")
	}
	out := make([]search.Result, n)
	for i := range out {
		body := fmt.Sprintf("Report %s was written in ward %d. "+
			"Statins caused muscle pain in %d patients of %s. "+
			"The weather that year was unusually warm and dry across the region. "+
			"Lunch was served in the hall at noon on most working days of the week.", words(i, 6), i, 10+i, words(i+40, 5))
		v := make([]float32, 8)
		v[i%8], v[(i+1)%8] = 1, 0.5
		out[i] = search.Result{ID: strfmt.UUID(fmt.Sprintf("00000000-0000-4000-8000-%012d", i)), ClassName: "Doc",
			Dist: float32(i) / float32(2*n), Vector: v, Updated: 1, Schema: map[string]any{"body": body}}
	}
	return out
}

// TestEvidenceCards: with cards each selected object carries its card in
// _additional.diverseSelect.evidence and in place of its text, its tokens are
// the card's, the budget holds more objects than whole chunks do, and the
// results handed in are not changed; auto keeps chunks whole when the
// budget is loose.
func TestEvidenceCards(t *testing.T) {
	class := docClass()
	query := "statins muscle pain"
	for _, tc := range []struct {
		name      string
		args      map[string]any
		wantCards bool
	}{
		{"off", map[string]any{"tokenBudget": 120, "query": query}, false},
		{"explicit off", map[string]any{"tokenBudget": 120, "query": query, "evidence": "off"}, false},
		{"cards", map[string]any{"tokenBudget": 120, "query": query, "evidence": "cards"}, true},
		{"cards, one sentence", map[string]any{"tokenBudget": 120, "query": query, "evidence": "cards", "evidenceSentences": 1}, true},
		{"auto, tight budget", map[string]any{"tokenBudget": 120, "query": query, "evidence": "auto"}, true},
		{"auto, loose budget", map[string]any{"tokenBudget": 600, "query": query, "evidence": "auto"}, false},
		{"auto, no budget", map[string]any{"query": query, "evidence": "auto", "maxResults": 3}, false},
	} {
		for _, strategy := range []string{"coverage", "topk", "mmr", "ngram"} {
			t.Run(tc.name+"/"+strategy, func(t *testing.T) {
				m := New(func(string) *models.Class { return class })
				in := cardResults(12)
				before := make([]map[string]any, len(in))
				for i := range in {
					before[i] = maps.Clone(in[i].Schema.(map[string]any))
				}
				args := maps.Clone(tc.args)
				args["strategy"] = strategy
				out, err := runHook(t, m, in, args)
				require.NoError(t, err)
				require.NotEmpty(t, out)
				for i := range in {
					require.Equal(t, before[i], in[i].Schema, "result %d handed in was changed", i)
				}
				used := 0
				for _, o := range out {
					ds := o.AdditionalProperties[ArgName].(map[string]any)
					body := o.Schema.(map[string]any)["body"].(string)
					used += ds["tokens"].(int)
					if !tc.wantCards {
						require.Nil(t, ds["evidence"])
						require.True(t, strings.HasPrefix(body, "Report "), body)
						require.Contains(t, body, "Lunch was served")
						continue
					}
					card, _ := ds["evidence"].(string)
					require.NotEmpty(t, card)
					require.Equal(t, card, body, "the returned text is the card")
					require.True(t, strings.HasPrefix(card, "Report "), "the lead sentence is kept: %q", card)
					require.NotContains(t, card, "Lunch was served", "a filler sentence is in the card")
					if tc.args["evidenceSentences"] == nil {
						require.Contains(t, card, "Statins caused muscle pain", "the query's sentence is in the card")
					}
				}
				if b, ok := tc.args["tokenBudget"].(int); ok {
					require.LessOrEqual(t, used, b)
				}
				if tc.wantCards {
					whole, err := runHook(t, New(func(string) *models.Class { return class }), cardResults(12),
						map[string]any{"strategy": strategy, "tokenBudget": tc.args["tokenBudget"], "query": query})
					require.NoError(t, err)
					require.Greater(t, len(out), len(whole), "cards let the budget hold more objects")
				}
			})
		}
	}
}

// TestEvidenceCardsCached: the second query reads the sentence analysis from
// the feature cache and returns the same cards.
func TestEvidenceCardsCached(t *testing.T) {
	class := docClass()
	m := New(func(string) *models.Class { return class })
	args := map[string]any{"tokenBudget": 120, "query": "statins muscle pain", "evidence": "cards"}
	first, err := runHook(t, m, cardResults(12), args)
	require.NoError(t, err)
	hits := m.features.Stats().Hits
	second, err := runHook(t, m, cardResults(12), args)
	require.NoError(t, err)
	require.Greater(t, m.features.Stats().Hits, hits)
	require.Equal(t, len(first), len(second))
	for i := range first {
		require.Equal(t, first[i].Schema, second[i].Schema)
	}
}

// TestEvidenceCardsWithoutText: an object without text gets no card and
// keeps its properties as they are.
func TestEvidenceCardsWithoutText(t *testing.T) {
	class := docClass()
	m := New(func(string) *models.Class { return class })
	in := cardResults(3)
	in[0].Schema = map[string]any{"other": 1}
	out, err := runHook(t, m, in, map[string]any{"strategy": "topk", "evidence": "cards", "query": "statins"})
	require.NoError(t, err)
	for _, o := range out {
		if o.ID == in[0].ID {
			require.Nil(t, o.AdditionalProperties[ArgName].(map[string]any)["evidence"])
			require.Equal(t, map[string]any{"other": 1}, o.Schema)
			return
		}
	}
	t.Fatal("the object without text was not selected")
}

// TestEvidenceCardsWithoutQuery: without query text a card is the chunk's
// leading sentences within the limits.
func TestEvidenceCardsWithoutQuery(t *testing.T) {
	class := docClass()
	m := New(func(string) *models.Class { return class })
	out, err := runHook(t, m, cardResults(4), map[string]any{"strategy": "topk", "evidence": "cards", "evidenceSentences": 2})
	require.NoError(t, err)
	require.NotEmpty(t, out)
	for _, o := range out {
		card := o.AdditionalProperties[ArgName].(map[string]any)["evidence"].(string)
		require.Regexp(t, `^Report .* was written in ward \d+\. Statins caused muscle pain in \d+ patients of .*\.$`, card)
	}
}

// TestEvidenceBadValues: a bad value names the key and the allowed values.
func TestEvidenceBadValues(t *testing.T) {
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"evidence": "yes"}, `"evidence" is "yes"; allowed: off, auto, cards`},
		{map[string]any{"evidence": true}, `"evidence"`},
		{map[string]any{"evidenceSentences": 0}, `"evidenceSentences" must be an integer in [1, 64]`},
		{map[string]any{"evidenceSentences": 2.5}, `"evidenceSentences" must be an integer in [1, 64]`},
		{map[string]any{"evidenceMaxWords": -1}, `"evidenceMaxWords" must be an integer in [0, 100000]`},
	} {
		_, err := config.Parse(tc.args, config.Limits{MaxCandidates: 1000})
		require.Error(t, err, "%v", tc.args)
		require.Contains(t, err.Error(), tc.want)
	}
}

// TestWithCard: the first text property holds the card, the others read by
// the selection are left out, a text[] property stays a list, and the input
// map is not changed.
func TestWithCard(t *testing.T) {
	in := map[string]any{"title": "T", "body": "B. C.", "n": 3}
	out := withCard(in, []string{"body", "title"}, "B.")
	require.Equal(t, map[string]any{"body": "B.", "n": 3}, out)
	require.Equal(t, map[string]any{"title": "T", "body": "B. C.", "n": 3}, in)
	list := withCard(map[string]any{"parts": []any{"a", "b"}}, []string{"parts"}, "a")
	require.Equal(t, map[string]any{"parts": []string{"a"}}, list)
}
