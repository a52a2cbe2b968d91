package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"
	"github.com/tailor-platform/graphql/language/ast"
	"github.com/tailor-platform/graphql/language/parser"
	"github.com/weaviate/weaviate/entities/additional"
	"github.com/weaviate/weaviate/entities/dto"
	"github.com/weaviate/weaviate/entities/filters"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/search"
	"github.com/weaviate/weaviate/usecases/modulecomponents/arguments/nearText"

	"github.com/diverse-select/diverse-select/config"
)

// fuzzClass has text, text[] and int properties and a legacy vector.
func fuzzClass() *models.Class {
	return &models.Class{Class: "Doc", Properties: []*models.Property{
		{Name: "body", DataType: []string{"text"}},
		{Name: "tags", DataType: []string{"text[]"}},
		{Name: "ntok", DataType: []string{"int"}},
	}}
}

// fuzzModule is a module over fuzzClass whose log records every entry: a
// recovered panic is logged at error level, which the targets refuse.
func fuzzModule() (*Module, *logtest.Hook) {
	class := fuzzClass()
	m := New(func(name string) *models.Class {
		if name == class.Class {
			return class
		}
		return nil
	})
	logger, hook := logtest.NewNullLogger()
	logger.SetLevel(logrus.DebugLevel)
	m.logger = logger
	return m, hook
}

// fuzzSelect prepares the request as Weaviate's Get resolver does, runs the
// hook on a small candidate list, and checks the outcome: a named error or a
// valid selection, and no panic recovered anywhere on the way.
func fuzzSelect(t *testing.T, m *Module, hook *logtest.Hook, req any, search map[string]any) {
	t.Helper()
	defer func() {
		for _, e := range hook.AllEntries() {
			if e.Level <= logrus.ErrorLevel {
				t.Fatalf("logged at %s: %s %v", e.Level, e.Message, e.Data)
			}
		}
		hook.Reset()
	}()
	r, ok := req.(*Request)
	if !ok {
		t.Fatalf("extractor returned %T", req)
	}
	if err := r.SelectionArguments(search); err != nil {
		t.Fatalf("SelectionArguments: %v", err)
	}
	in := results(12, 1000)
	for i := range in {
		in[i].Schema.(map[string]any)["ntok"] = float64(5 + i)
		in[i].Schema.(map[string]any)["tags"] = []any{"a b", "c"}
	}
	params := dto.GetParams{ClassName: "Doc", Pagination: &filters.Pagination{Limit: 12},
		AdditionalProperties: additional.Properties{ModuleParams: map[string]any{ArgName: r}}}
	if q, ok := search["nearText"].(map[string]any); ok {
		if c, ok := q["concepts"].([]any); ok {
			var values []string
			for _, v := range c {
				if s, ok := v.(string); ok {
					values = append(values, s)
				}
			}
			params.ModuleParams = map[string]any{"nearText": &nearText.NearTextParams{Values: values}}
		}
	}
	out, _, err := runStage(m, params, in)
	if err != nil {
		checkNamed(t, err)
		return
	}
	checkOutput(t, r, in, out)
}

func checkNamed(t *testing.T, err error) {
	t.Helper()
	if msg := err.Error(); !strings.Contains(msg, "diverseSelect") || strings.Contains(msg, "panicked") {
		t.Fatalf("error %q: want a named error, not a panic", msg)
	}
}

// checkOutput verifies a selection: distinct inputs, within budget and limit.
func checkOutput(t *testing.T, r *Request, in, out []search.Result) {
	t.Helper()
	seen := map[string]bool{}
	used := 0
	for _, o := range out {
		if seen[o.ID.String()] {
			t.Fatalf("object %s selected twice", o.ID)
		}
		seen[o.ID.String()] = true
		ds, _ := o.AdditionalProperties[ArgName].(map[string]any)
		n, _ := ds["tokens"].(int)
		used += n
	}
	if len(out) == 0 {
		return
	}
	ds, _ := out[0].AdditionalProperties[ArgName].(map[string]any)
	if b, _ := ds["budget"].(int); b > 0 && used > b {
		t.Fatalf("selection uses %d tokens, budget %d", used, b)
	}
	var max int
	if r.overrides != nil {
		max = r.overrides.MaxResults
	}
	if len(out) > len(in) || (max > 0 && len(out) > max) {
		t.Fatalf("%d selected of %d, maxResults %d", len(out), len(in), max)
	}
}

// findField returns the arguments of the first field named name.
func findField(sels []ast.Selection, name string) ([]*ast.Argument, bool) {
	for _, s := range sels {
		f, ok := s.(*ast.Field)
		if !ok || f.Name == nil {
			continue
		}
		if f.Name.Value == name {
			return f.Arguments, true
		}
		if f.SelectionSet != nil {
			if args, ok := findField(f.SelectionSet.Selections, name); ok {
				return args, true
			}
		}
	}
	return nil, false
}

// FuzzExtractField: any argument list of _additional { diverseSelect(...) },
// as GraphQL syntax, gives a named error or a valid selection.
func FuzzExtractField(f *testing.F) {
	for _, s := range []string{
		``, `strategy: "mmr", lambda: 0.3`, `tokenBudget: 40`, `tokenBudget: 9223372036854775807`,
		`tokenBudget: 99999999999999999999`, `tokenBudget: -1`, `tokenBudget: 1.5`, `strategy: mmr`,
		`textProperty: "tags", tokenizer: "words"`, `tokenProperty: "ntok", tokenBudget: 20`, `tokenProperty: "body"`,
		`extraTextProperties: ["tags"], textProperty: "body"`, `extraTextProperties: [1, 2]`, `maxResults: 3, order: "edges"`,
		`dedupThreshold: 0.9, strategy: "topk"`, `dedupThreshold: 1e999`, `strategy: $v`, `lambda: {a: 1}`,
		`strategy: "knapsack", concepts: "clusters"`, `strategy: "ngram", sourceProperty: "body", query: "x"`,
		`strategy: "facility", tokenBudget: 30`, `strategy: "dpp"`, `strategy: "cliff", g: 0`, `targetVector: "v"`,
		`strategy: "adagres", betaMax: 1e308`, `strategy: "coverage", tokenizer: "o200k_base", tokenBudget: 25`,
	} {
		f.Add(s)
	}
	m, hook := fuzzModule()
	f.Fuzz(func(t *testing.T, args string) {
		q := "{ Get { Doc { _additional { diverseSelect(" + args + ") { rank } } } } }"
		if args == "" {
			q = "{ Get { Doc { _additional { diverseSelect { rank } } } } }"
		}
		doc, err := parser.Parse(parser.ParseParams{Source: q})
		if err != nil || len(doc.Definitions) == 0 {
			return
		}
		op, ok := doc.Definitions[0].(*ast.OperationDefinition)
		if !ok || op.SelectionSet == nil {
			return
		}
		parsed, ok := findField(op.SelectionSet.Selections, ArgName)
		if !ok {
			return
		}
		fuzzSelect(t, m, hook, m.extractField(parsed, fuzzClass()), map[string]any{"nearVector": map[string]any{}})
	})
}

// FuzzExtractArgument: any value of the top-level diverseSelect argument (as
// GraphQL variables decode it) with any search kind gives a named error or a
// valid selection.
func FuzzExtractArgument(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"strategy":"mmr","tokenBudget":50}`, `{"candidates":12,"maxResults":4}`, `{"candidates":2001}`,
		`{"tokenBudget":9.223372036854776e18}`, `{"strategy":"topk","fit":"stop","tokenBudget":30}`,
		`{"strategy":"knapsack","tokenizer":"chars","tokenBudget":200}`, `{"query":"statins liver","strategy":"ngram"}`,
		`{"textProperty":"ntok"}`, `{"strategy":"coverage","dedupThreshold":0.5}`, `{"order":"relevance"}`,
	} {
		for _, kind := range []uint8{0, 1, 2, 3} {
			f.Add([]byte(s), kind)
		}
	}
	m, hook := fuzzModule()
	f.Fuzz(func(t *testing.T, data []byte, kind uint8) {
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		var raw map[string]any
		if d.Decode(&raw) != nil || raw == nil {
			return
		}
		// GraphQL variables arrive as float64, int and string values.
		if err := normaliseNumbers(raw); err != nil {
			return
		}
		search := []map[string]any{
			{"nearVector": map[string]any{}},
			{"bm25": map[string]any{"query": "statins"}},
			{"hybrid": map[string]any{"query": "liver", "targetVectors": []any{"x"}}},
			{},
		}[kind%4]
		req, _, err := m.extractArgument(raw)
		if err != nil {
			t.Fatalf("extractor returned an error: %v", err)
		}
		fuzzSelect(t, m, hook, req, search)
	})
}

func normaliseNumbers(v map[string]any) error {
	for k, x := range v {
		switch n := x.(type) {
		case json.Number:
			if i, err := n.Int64(); err == nil {
				v[k] = int(i)
			} else if f, err := n.Float64(); err == nil {
				v[k] = f
			} else {
				return fmt.Errorf("number %s", n)
			}
		}
	}
	return nil
}

// FuzzRerankQuery: any rerank query - deep brackets, long strings, odd UTF-8 -
// splits into settings and text or is refused with an error naming the rerank
// query or a key; it never panics, and its work is bounded by the limits
// (the parser reads at most DIVERSE_SELECT_MAX_SETTINGS_BYTES of it).
func FuzzRerankQuery(f *testing.F) {
	for _, seed := range []string{
		`statins and muscle pain`,
		`diverseSelect(strategy: "mmr", tokenBudget: 300, lambda: 0.7): statins`,
		`diverseSelect(extraTextProperties: ["title", "body"], x: true, y: -1.5e3): q`,
		`diverseSelect(order: "a) b: c\u00e9\"\\"): q`,
		"diverseSelect(strategy: " + strings.Repeat("[", 64) + "): solar",
		"diverseSelect(order: \"\xff\xfe\"): q",
		`diverseSelect(tokenBudget: $b): q`,
		`diverseSelect(`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, q string) {
		settings, text, err := parseRerankQuery(q, testLimits)
		if err != nil {
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %T %v is not a config.Error", err, err)
			}
			return
		}
		if settings == nil && text != q {
			t.Fatalf("no settings, but text %q differs from the query %q", text, q)
		}
		if len(text) > len(q) {
			t.Fatalf("text %q longer than the query", text)
		}
		// The settings convert as the GraphQL forms' arguments do: a named
		// error or overrides, never a panic.
		if settings != nil {
			if _, err := config.Parse(settings, testLimits); err != nil {
				var ce *config.Error
				if !errors.As(err, &ce) {
					t.Fatalf("config.Parse error %T %v is not a config.Error", err, err)
				}
			}
		}
	})
}
