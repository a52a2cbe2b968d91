package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/usecases/modulecomponents/additional/rank"
)

func TestParseRerankProperty(t *testing.T) {
	form := func(body string) string { return "body|" + RerankSettingsVersion + "|" + body }
	for _, tc := range []struct {
		name, property string
		wantName       string
		settings       map[string]any // nil: none
		wantErr        string
	}{
		{name: "plain", property: "body", wantName: "body"},
		{name: "settings", property: form(`{"strategy":"mmr","tokenBudget":60,"lambda":0.7}`), wantName: "body",
			settings: map[string]any{"strategy": "mmr", "tokenBudget": json.Number("60"), "lambda": json.Number("0.7")}},
		{name: "empty object", property: form(`{}`), wantName: "body", settings: map[string]any{}},
		{name: "list", property: form(`{"extraTextProperties":["title"]}`), wantName: "body",
			settings: map[string]any{"extraTextProperties": []any{"title"}}},
		{name: "other version", property: "body|diverseSelect.v9|{}", wantErr: `"rerank property" carries settings in form "diverseSelect.v9"; this server reads diverseSelect.v1`},
		{name: "no version", property: "body|{}", wantErr: `carries settings in form "{}"`},
		{name: "not an object", property: form(`["mmr"]`), wantErr: `settings that are not a JSON object (it does not start with {)`},
		{name: "unclosed", property: form(`{"strategy":"mmr"`), wantErr: `settings that are not a JSON object`},
		{name: "text after", property: form(`{"strategy":"mmr"} x`), wantErr: `settings that are not a JSON object (text after the object)`},
		{name: "twice", property: form(`{"tokenBudget":1,"tokenBudget":2}`), wantErr: `"tokenBudget" is given twice in the rerank settings`},
		{name: "candidates", property: form(`{"candidates":50}`), wantErr: `"candidates" does not apply on the rerank route`},
		{name: "query", property: form(`{"query":"x"}`), wantErr: `"query" is not a setting of the rerank query`},
		{name: "policy key", property: form(`{"maxQueryTokenBudget":0}`), wantErr: `"maxQueryTokenBudget" is a collection setting, not a query's`},
		{name: "too large", property: form(`{"strategy":"` + strings.Repeat("x", MaxRerankSettingsBytes) + `"}`),
			wantErr: `"rerank property" is 4133 bytes; allowed: at most 4096 bytes`},
		{name: "1 MB of brackets", property: form(strings.Repeat("[", 1<<20)), wantErr: `allowed: at most 4096 bytes`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name, settings, err := parseRerankProperty(tc.property)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || name != tc.wantName {
				t.Fatalf("name %q, error %v", name, err)
			}
			if (settings == nil) != (tc.settings == nil) || !jsonEqual(settings, tc.settings) {
				t.Errorf("settings %v, want %v", settings, tc.settings)
			}
		})
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestRerankQueryIsText is the injection table: an end user's question in
// the rerank query cannot set the settings, break the query or crash it.
// The collection selects at most 4 with topk; a question that could set
// settings would ask for mmr and 1 result.
func TestRerankQueryIsText(t *testing.T) {
	brackets := "diverseSelect(" + strings.Repeat("[", 1<<20) + ")"
	for _, tc := range []struct {
		name, query string
		optIn       bool // the collection's rerankQuerySyntax
		selected    int  // -1: refused
		wantErr     string
	}{
		{name: "settings syntax at the start", query: `diverseSelect(strategy: "mmr", maxResults: 1): statins`, selected: 4},
		{name: "settings syntax in the middle", query: `statins diverseSelect(strategy: "mmr", maxResults: 1)`, selected: 4},
		{name: "unbalanced parenthesis", query: `diverseSelect(strategy: "mmr"`, selected: 4},
		// Plain text, and over the query-text limit: refused by size, naming the limit.
		{name: "1 MB of brackets", query: brackets, selected: -1, wantErr: "DIVERSE_SELECT_MAX_QUERY_BYTES"},
		{name: "1 MB of open brackets", query: strings.Repeat("(", 1<<20), selected: -1, wantErr: "DIVERSE_SELECT_MAX_QUERY_BYTES"},
		{name: "16 KiB of brackets is text", query: strings.Repeat("(", 1<<14), selected: 4},
		{name: "opted in: settings at the start", query: `diverseSelect(strategy: "mmr", maxResults: 1): statins`, optIn: true, selected: 1},
		{name: "opted in: in the middle is text", query: `statins diverseSelect(maxResults: 1)`, optIn: true, selected: 4},
		{name: "opted in: 1 MB of brackets", query: brackets, optIn: true, selected: -1,
			wantErr: `"rerank query" has settings nested deeper than 2 brackets, the module's limit (DIVERSE_SELECT_MAX_SETTINGS_DEPTH)`},
		{name: "opted in: 1 MB of settings", query: `diverseSelect(order: "` + strings.Repeat("x", 1<<20) + `"): q`, optIn: true, selected: -1,
			wantErr: `DIVERSE_SELECT_MAX_SETTINGS_BYTES`},
		{name: "opted in: unbalanced", query: `diverseSelect(strategy: "mmr"`, optIn: true, selected: -1,
			wantErr: `has no closing parenthesis`},
		{name: "opted in: a policy key is not a query's", query: `diverseSelect(maxQueryTokenBudget: 0): statins`, optIn: true, selected: -1,
			wantErr: `"maxQueryTokenBudget" is a collection setting, not a query's`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			class := docClass()
			cfg := map[string]any{"strategy": "topk", "maxResults": 4}
			if tc.optIn {
				cfg["rerankQuerySyntax"] = true
			}
			class.ModuleConfig = map[string]any{RerankerName: cfg}
			m := New(func(string) *models.Class { return class })
			rr := NewReranker(m, false)
			prop, q := "body", tc.query
			out, err := rr.rerankStage(context.Background(), results(8, 1), &rank.Params{Property: &prop, Query: &q})
			if tc.selected < 0 {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || len(out) != tc.selected {
				t.Fatalf("%d selected, error %v; want %d", len(out), err, tc.selected)
			}
			if !strings.Contains(out[0].ExplainScore, `"strategy":"`+map[bool]string{false: "topk", true: "mmr"}[tc.selected == 1]+`"`) {
				t.Errorf("explainScore %q", out[0].ExplainScore)
			}
		})
	}
}

// TestQueryPolicy: the collection turns per-query settings off or caps
// them, on the rerank route and the GraphQL argument route, naming the key,
// the cap and the collection setting.
func TestQueryPolicy(t *testing.T) {
	form := func(body string) string { return "body|" + RerankSettingsVersion + "|" + body }
	for _, tc := range []struct {
		name     string
		policy   map[string]any
		property string // rerank route
		args     map[string]any
		pool     int
		wantErr  string // "" = allowed
	}{
		{name: "settings allowed", policy: nil, property: form(`{"maxResults":2}`)},
		{name: "off refuses a setting", policy: map[string]any{"querySettings": "off"}, property: form(`{"maxResults":2}`),
			wantErr: `"maxResults" is a per-query setting, and this collection refuses them (moduleConfig["reranker-diverse-select"].querySettings: "off")`},
		{name: "off refuses a parameter", policy: map[string]any{"querySettings": "off"}, property: form(`{"lambda":0.5}`),
			wantErr: `"lambda" is a per-query setting`},
		{name: "off allows the plain property", policy: map[string]any{"querySettings": "off"}, property: "body"},
		{name: "budget under the cap", policy: map[string]any{"maxQueryTokenBudget": 500}, property: form(`{"tokenBudget":400}`)},
		{name: "budget above the cap", policy: map[string]any{"maxQueryTokenBudget": 500}, property: form(`{"tokenBudget":501}`),
			wantErr: `"tokenBudget" is 501, above this collection's cap of 500 (moduleConfig["reranker-diverse-select"].maxQueryTokenBudget); allowed: an integer in [1, 500]`},
		{name: "no budget under a cap", policy: map[string]any{"maxQueryTokenBudget": 500}, property: form(`{"tokenBudget":0}`),
			wantErr: `"tokenBudget" is 0 (no budget), above this collection's cap of 500`},
		{name: "widenTo above the cap", policy: map[string]any{"maxQueryWidenTo": 50}, property: form(`{"widenTo":60}`),
			wantErr: `"widenTo" is 60, above this collection's cap of 50 (moduleConfig["reranker-diverse-select"].maxQueryWidenTo)`},
		{name: "pool above the cap", policy: map[string]any{"maxQueryCandidates": 5}, property: "body", pool: 8,
			wantErr: `"limit" is 8, above this collection's cap of 5 candidates (moduleConfig["reranker-diverse-select"].maxQueryCandidates)`},
		{name: "argument route: candidates above the cap", policy: map[string]any{"maxQueryCandidates": 20}, args: map[string]any{"candidates": 30},
			wantErr: `"candidates" is 30, above this collection's cap of 20 candidates (moduleConfig["diverse-select"].maxQueryCandidates)`},
		{name: "argument route: off", policy: map[string]any{"querySettings": "off"}, args: map[string]any{"strategy": "mmr"},
			wantErr: `"strategy" is a per-query setting, and this collection refuses them (moduleConfig["diverse-select"].querySettings: "off")`},
		{name: "argument route: query text allowed", policy: map[string]any{"querySettings": "off"}, args: map[string]any{"query": "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			class := docClass()
			cfg := map[string]any{"strategy": "topk"}
			for k, v := range tc.policy {
				cfg[k] = v
			}
			class.ModuleConfig = map[string]any{RerankerName: cfg, Name: cfg}
			m := New(func(string) *models.Class { return class })
			rr := NewReranker(m, false)
			pool := tc.pool
			if pool == 0 {
				pool = 5
			}
			var err error
			if tc.args != nil {
				_, err = runHook(t, m, results(pool, 1), tc.args)
			} else {
				q := "statins"
				_, err = rr.rerankStage(context.Background(), results(pool, 1), &rank.Params{Property: &tc.property, Query: &q})
			}
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v\nwant %q", err, tc.wantErr)
			}
		})
	}
}

// TestRerankExplanation: each selected object's explainScore carries its
// explanation as a JSON line, the fields of GraphQL's diverseSelect field.
func TestRerankExplanation(t *testing.T) {
	class := docClass()
	class.ModuleConfig = map[string]any{RerankerName: map[string]any{"strategy": "mmr", "tokenBudget": 200}}
	m := New(func(string) *models.Class { return class })
	rr := NewReranker(m, false)
	prop, q := "body", "statins"
	out, err := rr.rerankStage(context.Background(), results(6, 1), &rank.Params{Property: &prop, Query: &q})
	if err != nil || len(out) == 0 {
		t.Fatalf("%d selected, %v", len(out), err)
	}
	used := 0
	for i, o := range out {
		_, line, ok := strings.Cut(o.ExplainScore, "\n"+ExplainPrefix)
		if !ok {
			t.Fatalf("result %d: explainScore %q has no explanation line", i, o.ExplainScore)
		}
		var ex struct {
			Rank            int     `json:"rank"`
			Gain            float64 `json:"gain"`
			Relevance       float64 `json:"relevance"`
			RelevanceSource string  `json:"relevanceSource"`
			Tokens          int     `json:"tokens"`
			TokensUsed      int     `json:"tokensUsed"`
			Budget          int     `json:"budget"`
			Strategy        string  `json:"strategy"`
		}
		if err := json.Unmarshal([]byte(line), &ex); err != nil {
			t.Fatalf("result %d: %v in %q", i, err, line)
		}
		if ex.Rank != i+1 || ex.Strategy != "mmr" || ex.Budget != 200 || ex.Tokens <= 0 || ex.RelevanceSource != "distance" || ex.Relevance <= 0 {
			t.Errorf("result %d: explanation %+v", i, ex)
		}
		used += ex.Tokens
		if i == len(out)-1 && ex.TokensUsed != used {
			t.Errorf("tokensUsed %d, the tokens sum to %d", ex.TokensUsed, used)
		}
	}
}

// TestRerankPropertySettings: the pool's search loads the rerank property
// by its plain name, never the name with the settings it carries (Weaviate
// would look that up as a property), and the settings apply.
func TestRerankPropertySettings(t *testing.T) {
	class := docClass()
	class.ModuleConfig = map[string]any{RerankerName: map[string]any{"strategy": "topk"}}
	m := New(func(string) *models.Class { return class })
	for _, tc := range []struct{ property, plain string }{
		{"body|" + RerankSettingsVersion + `|{"maxResults":2}`, "body"},
		{"body", "body"},
	} {
		out, f, err := runStage(m, rerankParams(5, 0, tc.property, "statins"), results(5, 1))
		want := 5
		if tc.plain != tc.property {
			want = 2 // the carried settings' maxResults
		}
		if err != nil || len(out) != want {
			t.Errorf("%s: %d selected, %v; want %d", tc.property, len(out), err, want)
		}
		for _, p := range f.pools[0].Properties {
			if strings.Contains(p.Name, RerankSettingsSeparator) {
				t.Errorf("%s: the pool's search loads %q", tc.property, p.Name)
			}
		}
	}
}

// FuzzRerankProperty: no rerank property crashes the parser or is read as
// settings without the form's prefix.
func FuzzRerankProperty(f *testing.F) {
	for _, s := range []string{"body", `body|diverseSelect.v1|{"strategy":"mmr"}`, "body|diverseSelect.v1|[[[", "|", "body|x|{}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, property string) {
		name, raw, err := parseRerankProperty(property)
		if err == nil && raw != nil && !strings.HasPrefix(property, name+"|"+RerankSettingsVersion+"|") {
			t.Errorf("%q read as settings %v", property, raw)
		}
		if err == nil && raw == nil && name != property {
			t.Errorf("%q: plain property renamed %q", property, name)
		}
	})
}
