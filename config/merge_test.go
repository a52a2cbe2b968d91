package config

import (
	"strings"
	"testing"

	_ "github.com/diverse-select/diverse-select/selectors/all"
)

func TestParseErrorsNameTheKey(t *testing.T) {
	cases := []struct {
		raw  map[string]any
		want string
	}{
		{map[string]any{"strategy": "nope"}, `"strategy" is "nope"; allowed: `},
		{map[string]any{"strategy": 3}, `"strategy" must be a string`},
		{map[string]any{"tokenBudget": -1}, `"tokenBudget" must be an integer in [0, 1073741824]`},
		{map[string]any{"tokenBudget": 9.2e18}, `"tokenBudget" must be an integer in [0, 1073741824]`},
		{map[string]any{"tokenBudget": "x"}, `"tokenBudget" must be an integer`},
		{map[string]any{"candidates": 0}, `"candidates" must be an integer in [1, 2000]`},
		{map[string]any{"candidates": 2001}, `"candidates" must be an integer in [1, 2000]`},
		{map[string]any{"maxResults": 1.5}, `"maxResults" must be an integer`},
		{map[string]any{"tokenizer": "gpt2"}, `"tokenizer" is "gpt2"; allowed: cl100k_base, o200k_base, words, chars`},
		{map[string]any{"order": "random"}, `"order" is "random"; allowed: selection, relevance, edges`},
		{map[string]any{"dedupThreshold": 0}, `"dedupThreshold" is 0; allowed: a number in (0, 1]`},
		{map[string]any{"extraTextProperties": []any{"a", 1}}, `"extraTextProperties" must be a list of strings`},
	}
	for _, tc := range cases {
		_, err := Parse(tc.raw, Limits{MaxCandidates: 2000})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%v): error %v, want it to contain %q", tc.raw, err, tc.want)
		}
	}
}

func TestMergePrecedence(t *testing.T) {
	m := Module{Settings: Settings{Strategy: "adagres", Candidates: 50, Tokenizer: "cl100k_base"}, Limits: Limits{MaxCandidates: 2000}}
	parse := func(raw map[string]any) *Overrides {
		o, err := Parse(raw, m.Limits)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	cases := []struct {
		name         string
		class, query map[string]any
		strategy     string
		budget       int
		candidates   int
		params       map[string]any // expected strategy parameter values
		wantErr      string
	}{
		{name: "module defaults", strategy: "adagres", candidates: 50},
		{name: "class over module", class: map[string]any{"strategy": "mmr", "tokenBudget": 800, "lambda": 0.7},
			strategy: "mmr", budget: 800, candidates: 50, params: map[string]any{"lambda": 0.7}},
		{name: "query over class", class: map[string]any{"strategy": "mmr", "tokenBudget": 800, "lambda": 0.7},
			query:    map[string]any{"tokenBudget": 300, "candidates": 100, "lambda": 0.2},
			strategy: "mmr", budget: 300, candidates: 100, params: map[string]any{"lambda": 0.2}},
		{name: "class params stay with the class's strategy", class: map[string]any{"strategy": "mmr", "lambda": 0.7},
			query: map[string]any{"strategy": "adagres"}, strategy: "adagres", params: map[string]any{"lambda": 1.0}, candidates: 50},
		{name: "class params apply to the default strategy", class: map[string]any{"betaMax": 2},
			strategy: "adagres", params: map[string]any{"betaMax": 2.0}, candidates: 50},
		{name: "unknown parameter of the strategy", query: map[string]any{"strategy": "topk", "lambda": 0.5},
			wantErr: `"lambda" is not a setting of strategy "topk"; allowed: strategy, tokenBudget`},
		{name: "out of range parameter", query: map[string]any{"strategy": "mmr", "lambda": 2},
			wantErr: `"lambda" for strategy "mmr" got 2`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var class, query *Overrides
			if tc.class != nil {
				class = parse(tc.class)
			}
			if tc.query != nil {
				query = parse(tc.query)
			}
			e, err := Merge(m, class, query)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.Strategy != tc.strategy || e.TokenBudget != tc.budget || e.Candidates != tc.candidates {
				t.Errorf("got strategy %s budget %d candidates %d", e.Strategy, e.TokenBudget, e.Candidates)
			}
			for k, v := range tc.params {
				if got := e.Selector.Params[k]; got != v {
					t.Errorf("param %s = %v, want %v", k, got, v)
				}
			}
		})
	}
}

func TestFromEnv(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	m, err := FromEnv(env(nil))
	if err != nil || m.Strategy != DefaultStrategy || m.Candidates != 50 || m.MaxCandidates != 2000 || m.Tokenizer != "cl100k_base" {
		t.Fatalf("defaults: %+v, %v", m, err)
	}
	m, err = FromEnv(env(map[string]string{"DIVERSE_SELECT_STRATEGY": "mmr", "DIVERSE_SELECT_TOKEN_BUDGET": "1500"}))
	if err != nil || m.Strategy != "mmr" || m.TokenBudget != 1500 {
		t.Fatalf("overrides: %+v, %v", m, err)
	}
	for _, bad := range []map[string]string{
		{"DIVERSE_SELECT_STRATEGY": "nope"},
		{"DIVERSE_SELECT_TOKEN_BUDGET": "-5"},
		{"DIVERSE_SELECT_CANDIDATES": "abc"},
		{"DIVERSE_SELECT_CANDIDATES": "300", "DIVERSE_SELECT_MAX_CANDIDATES": "100"},
		{"DIVERSE_SELECT_TOKENIZER": "gpt2"},
	} {
		if _, err := FromEnv(env(bad)); err == nil {
			t.Errorf("%v: no error", bad)
		} else {
			for k := range bad {
				if !strings.Contains(err.Error(), k) && !strings.Contains(err.Error(), strings.ToLower(strings.TrimPrefix(k, "DIVERSE_SELECT_"))) {
					t.Errorf("%v: error %q does not name the variable", bad, err)
				}
			}
		}
	}
}

func TestCheckSchema(t *testing.T) {
	s := Schema{Properties: map[string]string{"body": "text", "tags": "text[]", "n": "int", "url": "text"}, NamedVectors: []string{"a", "b"}}
	cases := []struct {
		o    Overrides
		want string
	}{
		{Overrides{Settings: Settings{TextProperty: "body", ExtraTextProperties: []string{"tags"}, TokenProperty: "n", SourceProperty: "url", TargetVector: "a"}}, ""},
		{Overrides{Settings: Settings{TextProperty: "nope"}}, `"textProperty" names "nope", which is not a text property of the class; text properties: body, tags, url`},
		{Overrides{Settings: Settings{TextProperty: "n"}}, `"textProperty" names "n"`},
		{Overrides{Settings: Settings{ExtraTextProperties: []string{"n"}}}, `"extraTextProperties" names "n"`},
		{Overrides{Settings: Settings{TokenProperty: "body"}}, `"tokenProperty" names "body", which is not an int property of the class; int properties: n`},
		{Overrides{Settings: Settings{SourceProperty: "x"}}, `"sourceProperty" names "x"`},
		{Overrides{Settings: Settings{TargetVector: "c"}}, `"targetVector" names "c", which is not a named vector of the class; named vectors: a, b`},
	}
	for _, tc := range cases {
		err := CheckSchema(&tc.o, s)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: error %v, want %q", tc.o, err, tc.want)
		}
	}
}
