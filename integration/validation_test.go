package integration

import (
	"fmt"
	"strings"
	"testing"

	"github.com/weaviate/weaviate/entities/models"

	"github.com/diverse-select/diverse-select/selectors"
)

// TestHostileArguments extends TestBadArguments with hostile values: huge
// numbers, 10 MB strings, wrong types through variables, and the module's
// caps. Each gives an error naming the argument and what is allowed (never
// echoing a huge value back), or a valid selection; the server keeps
// serving.
func TestHostileArguments(t *testing.T) {
	c := health(t)
	search := healthNear(8)
	huge := strings.Repeat("x", 10<<20)
	type tc struct {
		name    string
		diverse string
		vars    map[string]any // with a $v variable of type varType
		varType string
		want    []string // error parts; nil = a valid selection is expected
		budget  int      // of the valid selection
	}
	cases := []tc{
		{name: "tokenBudget 2^63", diverse: `tokenBudget: 9223372036854775808`, want: []string{"tokenBudget"}},
		{name: "tokenBudget 2^63-1", diverse: `tokenBudget: 9223372036854775807`, want: []string{"tokenBudget"}},
		{name: "tokenBudget 2^63 as a variable", diverse: `tokenBudget: $v`, varType: "Int", vars: map[string]any{"v": 9.223372036854775808e18}, want: []string{"v"}},
		{name: "tokenBudget above the cap", diverse: `tokenBudget: 1073741825`, want: []string{`"tokenBudget"`, "[0, 1073741824]"}},
		{name: "tokenBudget at the cap", diverse: `tokenBudget: 1073741824`, budget: 1 << 30},
		{name: "maxResults negative", diverse: `maxResults: -1`, want: []string{`"maxResults"`, "[0, 1048576]"}},
		{name: "maxResults huge", diverse: `maxResults: 2147483647`, want: []string{`"maxResults"`, "[0, 1048576]"}},
		{name: "candidates huge", diverse: `candidates: 2147483647`, want: []string{`"candidates"`, "2000"}},
		{name: "dedupThreshold NaN-like", diverse: `dedupThreshold: 1e999`, want: []string{"dedupThreshold"}},
		{name: "dedupThreshold 0", diverse: `dedupThreshold: 0`, want: []string{`"dedupThreshold"`, "(0, 1]"}},
		{name: "lambda huge", diverse: `strategy: "mmr", lambda: 1e308`, want: []string{`"lambda"`, "[0, 1]"}},
		{name: "strategy of the wrong type", diverse: `strategy: 5`, want: []string{"strategy", "String"}},
		{name: "strategy list as a variable", diverse: `strategy: $v`, varType: "String", vars: map[string]any{"v": []any{"mmr"}}, want: []string{"v"}},
		{name: "extraTextProperties of the wrong type", diverse: `extraTextProperties: [1, 2]`, want: []string{"extraTextProperties"}},
		// Strings longer than DIVERSE_SELECT_MAX_QUERY_BYTES are refused before any work (the hostile-input limits).
		{name: "10 MB strategy name", diverse: `strategy: $v`, varType: "String", vars: map[string]any{"v": huge},
			want: []string{`"strategy"`, "10485760 bytes", "DIVERSE_SELECT_MAX_QUERY_BYTES", "allowed", "topk"}},
		{name: "10 MB textProperty", diverse: `textProperty: $v`, varType: "String", vars: map[string]any{"v": huge},
			want: []string{`"textProperty"`, "10485760 bytes", "DIVERSE_SELECT_MAX_QUERY_BYTES", "allowed: a `text`/`text[]` property"}},
		{name: "10 MB query text", diverse: `strategy: "ngram", tokenBudget: 120, query: $v`, varType: "String", vars: map[string]any{"v": huge},
			want: []string{`"query"`, "10485760 bytes", "DIVERSE_SELECT_MAX_QUERY_BYTES"}},
		{name: "query text at the byte limit", diverse: `strategy: "ngram", tokenBudget: 120, query: $v`, varType: "String",
			vars: map[string]any{"v": strings.Repeat("statins ", 2048)}, budget: 120},
		{name: "empty strings", diverse: `strategy: "", tokenizer: "", textProperty: "", order: ""`, want: []string{`"order"`, "allowed"}},
		{name: "empty query text", diverse: `strategy: "ngram", query: "", tokenBudget: 80`, budget: 80},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := sel(c, search, tc.diverse, "body")
			if tc.varType != "" {
				q = "query($v: " + tc.varType + ") " + q
			}
			if tc.want == nil {
				checkSelection(t, get(t, c, q, tc.vars), tc.budget, true)
				assertAlive(t)
				return
			}
			msg := gqlError(t, q, tc.vars)
			if len(msg) > 2000 {
				t.Errorf("error of %d bytes echoes the input", len(msg))
			}
			t.Logf("error: %.300s", msg)
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %.500q does not mention %q", msg, w)
				}
			}
			assertAlive(t)
		})
	}
}

// TestHostileData: objects whose vectors overflow in products, objects with
// missing or empty text, and searches that match nothing give a valid
// selection or an error naming diverseSelect, for every strategy.
func TestHostileData(t *testing.T) {
	const class = "Hostile"
	ensure(t, class, func(t testing.TB) {
		createClass(t, &models.Class{Class: class, Vectorizer: "none", Properties: bodyProps(),
			VectorIndexConfig: map[string]any{"distance": "dot"}})
		var docs []Doc
		for i := 0; i < 12; i++ {
			v := make([]float32, 8)
			for j := range v {
				v[j] = float32((i+j)%5) - 2
			}
			d := Doc{Key: fmt.Sprint(i), Group: i, Body: fmt.Sprintf("statins fact number %d about the liver", i), Vector: v}
			switch i % 4 {
			case 1: // components whose squares and dot products overflow float32
				for j := range v {
					v[j] *= 1e38
				}
			case 2:
				d.Body = ""
			case 3:
				d.Body = strings.Repeat("word ", 3000)
			}
			docs = append(docs, d)
		}
		importDocs(t, class, docs)
		createClass(t, &models.Class{Class: class + "Text", Vectorizer: "none", Properties: bodyProps()})
		importDocs(t, class+"Text", []Doc{{Key: "a", Body: "statins liver"}, {Key: "b", Body: ""}, {Key: "c", Body: "statins"}})
	})
	vec := `[1e38, 1e38, 1e38, 1e38, 1e38, 1e38, 1e38, 1e38]`
	searches := map[string]string{
		"overflowing nearVector":   `nearVector: {vector: ` + vec + `}, limit: 12`,
		"nearVector":               `nearVector: {vector: [1, 0, 0, 0, 0, 0, 0, 0]}, limit: 12`,
		"bm25":                     `bm25: {query: "statins liver"}, limit: 12`,
		"filter matching nothing":  `where: {path: ["grp"], operator: Equal, valueInt: 424242}, limit: 12`,
		"nearVector, empty filter": `nearVector: {vector: [1, 0, 0, 0, 0, 0, 0, 0]}, where: {path: ["grp"], operator: Equal, valueInt: 424242}`,
	}
	for name, search := range searches {
		for _, s := range selectors.Names() {
			for _, form := range []string{"argument", "field"} {
				t.Run(name+"/"+s+"/"+form, func(t *testing.T) {
					d := fmt.Sprintf(`strategy: %q, tokenBudget: 2000`, s)
					q := sel(class, search, d, "body")
					if form == "field" {
						q = field(class, search, d, "body")
					}
					res := graphql(t, q, nil)
					if len(res.Errors) > 0 {
						msg := res.errText()
						if !strings.Contains(msg, "diverseSelect") || strings.Contains(msg, "panic") {
							t.Fatalf("error does not name diverseSelect or reports a panic: %s", msg)
						}
						t.Logf("error: %.200s", msg)
						return
					}
					hits := res.Data.Get[class]
					if strings.Contains(name, "nothing") || strings.Contains(name, "empty filter") {
						if len(hits) != 0 {
							t.Fatalf("%d hits from a search that matches nothing", len(hits))
						}
						return
					}
					checkSelection(t, get(t, class, q, nil), 2000, true)
				})
			}
		}
	}
	t.Run("class without vectors, empty and missing text", func(t *testing.T) {
		for _, s := range []string{"topk", "knapsack", "ngram", "cliff", "relcost"} {
			hits := get(t, class+"Text", sel(class+"Text", `bm25: {query: "statins"}, limit: 3`, fmt.Sprintf(`strategy: %q, tokenBudget: 50`, s), "body"), nil)
			checkSelection(t, hits, 50, true)
		}
	})
	assertAlive(t)
}
