package engine

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tailor-platform/graphql/language/ast"
	"github.com/tailor-platform/graphql/language/parser"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/usecases/modulecomponents/additional/rank"

	"github.com/diverse-select/diverse-select/config"
)

func TestParseRerankQuery(t *testing.T) {
	for _, tc := range []struct {
		name, q  string
		settings map[string]any
		text     string
		wantErr  string
	}{
		{name: "no settings", q: "statins and muscle pain", text: "statins and muscle pain"},
		{name: "prefix later is text", q: "why diverseSelect(strategy: mmr)", text: "why diverseSelect(strategy: mmr)"},
		{name: "settings and text", q: `diverseSelect(strategy: "mmr", tokenBudget: 300, lambda: 0.7): statins`,
			settings: map[string]any{"strategy": "mmr", "tokenBudget": int64(300), "lambda": 0.7}, text: "statins"},
		{name: "enum-style value, no colon, leading space", q: `  diverseSelect(strategy: knapsack) statins`,
			settings: map[string]any{"strategy": "knapsack"}, text: "statins"},
		{name: "settings only", q: `diverseSelect(maxResults: 3)`, settings: map[string]any{"maxResults": int64(3)}},
		{name: "parenthesis and colon in a string", q: `diverseSelect(order: "a) b: c"): q`,
			settings: map[string]any{"order": "a) b: c"}, text: "q"},
		{name: "list and bool", q: `diverseSelect(extraTextProperties: ["title"], x: true): q`,
			settings: map[string]any{"extraTextProperties": []any{"title"}, "x": true}, text: "q"},
		{name: "empty settings", q: `diverseSelect(): q`, settings: map[string]any{}, text: "q"},
		{name: "unclosed", q: `diverseSelect(strategy: "mmr"`, wantErr: `"rerank query" starts with "diverseSelect(" but has no closing parenthesis`},
		{name: "not arguments", q: `diverseSelect(strategy = mmr): q`, wantErr: `"rerank query" has settings that are not GraphQL arguments`},
		{name: "candidates", q: `diverseSelect(candidates: 50): q`, wantErr: `"candidates" does not apply on the rerank route`},
		{name: "textProperty", q: `diverseSelect(textProperty: "x"): q`, wantErr: `"textProperty" is not a setting of the rerank query`},
		{name: "twice", q: `diverseSelect(tokenBudget: 1, tokenBudget: 2): q`, wantErr: `"tokenBudget" is given twice`},
		{name: "variable", q: `diverseSelect(tokenBudget: $b): q`, wantErr: `"tokenBudget" is a variable`},
		{name: "escapes", q: `diverseSelect(order: "a\"b\\c\u00e9"): q`, settings: map[string]any{"order": `a"b\cé`}, text: "q"},
		{name: "odd UTF-8 in a string", q: "diverseSelect(order: \"\xff\xfe\"): q", settings: map[string]any{"order": "\xff\xfe"}, text: "q"},
		{name: "odd UTF-8 outside", q: "diverseSelect(\xff: 1): q", wantErr: `has settings that are not GraphQL arguments`},
		{name: "lone surrogate", q: `diverseSelect(order: "\ud800"): q`, settings: map[string]any{"order": "\uFFFD"}, text: "q"},
		{name: "list in a list", q: `diverseSelect(extraTextProperties: [["title"]]): q`, wantErr: `DIVERSE_SELECT_MAX_SETTINGS_DEPTH`},
		{name: "deep brackets", q: "diverseSelect(strategy: " + strings.Repeat("[", 1_000_000) + "): solar", wantErr: `nested deeper than 2 brackets`},
		{name: "1 MB of brackets after text", q: "solar " + strings.Repeat("[", 1<<20), text: "solar " + strings.Repeat("[", 1<<20)},
		{name: "long settings", q: "diverseSelect(order: \"" + strings.Repeat("x", 5000) + "\"): q", wantErr: `DIVERSE_SELECT_MAX_SETTINGS_BYTES`},
		{name: "unbalanced close", q: `diverseSelect(x: ]): q`, wantErr: `expected a value for "x"`},
		{name: "missing colon", q: `diverseSelect(x 1): q`, wantErr: `expected ":" after "x"`},
		{name: "huge integer", q: `diverseSelect(tokenBudget: 99999999999999999999): q`, wantErr: `not a 64-bit integer`},
		{name: "unterminated string", q: `diverseSelect(order: "abc): q`, wantErr: `no closing parenthesis`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			settings, text, err := parseRerankQuery(tc.q, testLimits)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(settings, tc.settings) || text != tc.text {
				t.Errorf("settings %#v text %q, want %#v %q", settings, text, tc.settings, tc.text)
			}
		})
	}
}

// TestRerankSettingsErrorsAsGraphQL: a bad setting in the rerank query gets
// the error the GraphQL field gives the same literal, after the route's
// prefix; a good one overrides the class config.
func TestRerankSettingsErrorsAsGraphQL(t *testing.T) {
	class := docClass()
	cfg := map[string]any{"strategy": "topk"}
	// The in-text form is the collection's opt-in (rerankQuerySyntax).
	class.ModuleConfig = map[string]any{Name: cfg, RerankerName: map[string]any{"strategy": "topk", "rerankQuerySyntax": true}}
	m := New(func(string) *models.Class { return class })
	rr := NewReranker(m, false)
	prop := "body"
	for _, tc := range []struct{ setting, json string }{
		{`strategy: "nope"`, `{"strategy":"nope"}`},
		{`tokenBudget: -5`, `{"tokenBudget":-5}`},
		{`lambda: 2.5`, `{"lambda":2.5}`},
		{`strategy: "mmr", lambda: 2.5`, `{"strategy":"mmr","lambda":2.5}`},
		{`order: "sideways"`, `{"order":"sideways"}`},
		{`tokenizer: "bytes"`, `{"tokenizer":"bytes"}`},
	} {
		doc := "{ f(" + tc.setting + ") }"
		args := mustArguments(t, doc)
		r := m.parseField(args, class)
		gqlErr := r.err
		if gqlErr == nil {
			if err := stageErr(m, r); err != nil {
				gqlErr = errors.New(strings.TrimPrefix(err.Error(), ArgName+": "))
			}
		}
		if gqlErr == nil {
			t.Fatalf("%s: the GraphQL field accepts it", tc.setting)
		}
		q := "diverseSelect(" + tc.setting + "): statins"
		_, err := rr.rerankStage(context.Background(), results(5, 1), &rank.Params{Property: &prop, Query: &q})
		want := RerankerName + ": rerank: " + gqlErr.Error()
		if err == nil || err.Error() != want {
			t.Errorf("%s: rerank error\n  %v\nwant\n  %s", tc.setting, err, want)
		}
		// The same settings in the rerank property (rerank_settings.go).
		withSettings, text := "body|"+RerankSettingsVersion+"|"+tc.json, "statins"
		_, err = rr.rerankStage(context.Background(), results(5, 1), &rank.Params{Property: &withSettings, Query: &text})
		if err == nil || err.Error() != want {
			t.Errorf("%s: rerank error from the property\n  %v\nwant\n  %s", tc.json, err, want)
		}
	}
	q := `diverseSelect(maxResults: 2, order: "relevance"): statins`
	out, err := rr.rerankStage(context.Background(), results(5, 1), &rank.Params{Property: &prop, Query: &q})
	if err != nil || len(out) != 2 {
		t.Fatalf("maxResults 2: %d selected, %v", len(out), err)
	}
}

// testLimits are the module's default input limits.
var testLimits = func() config.Limits {
	m, err := config.FromEnv(func(string) string { return "" })
	if err != nil {
		panic(err)
	}
	return m.Limits
}()

// mustArguments parses a GraphQL document "{ f(...) }" with the GraphQL
// parser Weaviate uses and returns the field's arguments.
func mustArguments(t *testing.T, doc string) []*ast.Argument {
	t.Helper()
	d, err := parser.Parse(parser.ParseParams{Source: doc})
	if err != nil {
		t.Fatal(err)
	}
	return d.Definitions[0].(*ast.OperationDefinition).SelectionSet.Selections[0].(*ast.Field).Arguments
}

// TestFieldListOfLists: the _additional field's arguments come from
// Weaviate's GraphQL parser; a list inside a list (any depth) is refused at
// once, before the conversion would recurse into it.
func TestFieldListOfLists(t *testing.T) {
	class := docClass()
	m := New(func(string) *models.Class { return class })
	for _, depth := range []int{2, 3, 1000} {
		doc := "{ f(extraTextProperties: " + strings.Repeat("[", depth) + `"body"` + strings.Repeat("]", depth) + ") }"
		r := m.parseField(mustArguments(t, doc), class)
		if r.err == nil || !strings.Contains(r.err.Error(), `"extraTextProperties" is a list of lists`) {
			t.Errorf("depth %d: %v, want a refusal", depth, r.err)
		}
	}
	if r := m.parseField(mustArguments(t, `{ f(extraTextProperties: ["body"]) }`), class); r.err != nil {
		t.Errorf("a flat list: %v", r.err)
	}
}
