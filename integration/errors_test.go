package integration

import (
	"strings"
	"testing"

	"github.com/weaviate/weaviate/entities/models"
)

// TestBadArguments: each bad argument is a GraphQL error whose message names
// the argument and what is allowed, in both query forms, and the server keeps
// answering afterwards.
func TestBadArguments(t *testing.T) {
	c := health(t)
	search := healthNear(5)
	type tc struct {
		name    string
		diverse string // arguments of diverseSelect
		search  string // search arguments; default: nearText
		want    []string
		argOnly bool // only the top-level form takes it
	}
	cases := []tc{
		{name: "unknown strategy", diverse: `strategy: "nope"`, want: []string{`"strategy"`, "nope", "allowed", "adagres", "topk", "knapsack"}},
		{name: "negative tokenBudget", diverse: `tokenBudget: -5`, want: []string{`"tokenBudget"`, "-5", "[0,"}},
		{name: "tokenBudget of the wrong type", diverse: `tokenBudget: "x"`, want: []string{"tokenBudget", "Int", `"x"`}},
		{name: "unknown textProperty", diverse: `textProperty: "nope"`, want: []string{`"textProperty"`, "nope", "text properties: body"}},
		{name: "unknown tokenProperty", diverse: `tokenProperty: "body"`, want: []string{`"tokenProperty"`, "int properties", "ntok"}},
		{name: "unknown sourceProperty", diverse: `sourceProperty: "url"`, want: []string{`"sourceProperty"`, "url", "body"}},
		{name: "parameter of another strategy", diverse: `strategy: "topk", lambda: 0.5`, want: []string{`"lambda"`, `"topk"`, "fit"}},
		{name: "out-of-range parameter", diverse: `strategy: "mmr", lambda: 2`, want: []string{`"lambda"`, `"mmr"`, "[0, 1]"}},
		{name: "out-of-range cliff g", diverse: `strategy: "cliff", g: -1`, want: []string{`"g"`, "cliff"}},
		{name: "bad enum parameter", diverse: `strategy: "knapsack", concepts: "words"`, want: []string{`"concepts"`, "terms", "ngrams", "clusters"}},
		{name: "unknown order", diverse: `order: "random"`, want: []string{`"order"`, "selection", "relevance", "edges"}},
		{name: "unknown tokenizer", diverse: `tokenizer: "gpt2"`, want: []string{`"tokenizer"`, "cl100k_base", "o200k_base", "words", "chars"}},
		{name: "dedupThreshold out of range", diverse: `dedupThreshold: 1.5`, want: []string{`"dedupThreshold"`, "(0, 1]"}},
		{name: "unknown targetVector", diverse: `targetVector: "v"`, want: []string{`"targetVector"`, "named vector"}},
		{name: "candidates 0", diverse: `candidates: 0`, want: []string{`"candidates"`, "[1, 2000]"}, argOnly: true},
		{name: "candidates above the cap", diverse: `candidates: 5000`, want: []string{`"candidates"`, "2000"}, argOnly: true},
		{name: "negative offset", diverse: `strategy: "mmr"`, search: healthNear(5) + ", offset: -2", want: []string{"offset", ">= 0"}},
		{name: "offset given twice", diverse: `strategy: "mmr", offset: 1`, search: healthNear(5) + ", offset: 2", want: []string{`"offset"`, "twice", "once"}},
		{name: "offset with a strategy that cannot page", diverse: `strategy: "knapsack", enumerate: 3`, search: healthNear(5) + ", offset: 1",
			want: []string{`"enumerate"`, "offset", "enumerate 0"}},
		{name: "widenTo not above the pool", diverse: `widenTo: 5`, search: healthNear(5), want: []string{`"widenTo"`, "above the pool"}},
		{name: "widenTo with offset", diverse: `widenTo: 100`, search: healthNear(5) + ", offset: 1", want: []string{`"widenTo"`, "offset", "widenTo: 0"}},
		{name: "groupBy", diverse: `strategy: "mmr"`, search: healthNear(5) + `, groupBy: {path: ["grp"], groups: 2, objectsPerGroup: 2}`, want: []string{"groupBy"}},
		{name: "unknown argument", diverse: `strategy: "mmr", budget: 10`, want: []string{"budget"}},
	}
	for _, tc := range cases {
		for _, form := range []string{"argument", "field"} {
			if form == "field" && tc.argOnly {
				continue
			}
			t.Run(tc.name+"/"+form, func(t *testing.T) {
				s := tc.search
				if s == "" {
					s = search
				}
				q := sel(c, s, tc.diverse, "body")
				if form == "field" {
					q = field(c, s, tc.diverse, "body")
				}
				msg := gqlError(t, q, nil)
				t.Logf("error: %s", msg)
				for _, w := range tc.want {
					if !strings.Contains(msg, w) {
						t.Errorf("error %q does not mention %q", msg, w)
					}
				}
				assertAlive(t)
			})
		}
	}
	t.Run("candidates is not an argument of the _additional form", func(t *testing.T) {
		msg := gqlError(t, field(c, search, `candidates: 10`, "body"), nil)
		if !strings.Contains(msg, "candidates") {
			t.Errorf("error %q does not mention candidates", msg)
		}
		assertAlive(t)
	})
	t.Run("vector strategy on objects without vectors", func(t *testing.T) {
		const class = "NoVectors"
		ensure(t, class, func(t testing.TB) {
			createClass(t, &models.Class{Class: class, Vectorizer: "none", Properties: bodyProps()})
			importDocs(t, class, healthDocs[:4])
		})
		for _, search := range []string{`bm25: {query: "statins"}, limit: 4`, `limit: 4`} {
			msg := gqlError(t, sel(class, search, `strategy: "mmr"`, "body"), nil)
			for _, w := range []string{"has no vector", "topk", "knapsack"} {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not mention %q", msg, w)
				}
			}
			hits := get(t, class, sel(class, search, `strategy: "knapsack", tokenBudget: 40`, "body"), nil)
			checkSelection(t, hits, 40, true)
		}
		assertAlive(t)
	})
	t.Run("bad variable value", func(t *testing.T) {
		q := `query($b: Int) { Get { Health(` + search + `, diverseSelect: {tokenBudget: $b}) { body } } }`
		msg := gqlError(t, q, map[string]any{"b": -7})
		if !strings.Contains(msg, "tokenBudget") {
			t.Errorf("error %q does not mention tokenBudget", msg)
		}
		msg = gqlError(t, q, map[string]any{"b": "many"})
		if !strings.Contains(msg, "b") {
			t.Errorf("error %q does not mention the variable", msg)
		}
		assertAlive(t)
	})
}
