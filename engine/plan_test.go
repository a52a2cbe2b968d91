package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/tailor-platform/graphql/language/ast"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/search"
	"github.com/weaviate/weaviate/usecases/modulecomponents/additional/rank"

	"github.com/diverse-select/diverse-select/config"
)

// namedClass has two named vectors, a and b, and optionally a configured
// targetVector.
func namedClass(configured string) *models.Class {
	c := &models.Class{
		Class:      "Doc",
		Properties: []*models.Property{{Name: "body", DataType: []string{"text"}}},
		VectorConfig: map[string]models.VectorConfig{
			"a": {Vectorizer: map[string]any{"none": map[string]any{}}, VectorIndexType: "hnsw"},
			"b": {Vectorizer: map[string]any{"none": map[string]any{}}, VectorIndexType: "hnsw"},
		},
	}
	if configured != "" {
		c.ModuleConfig = map[string]any{Name: map[string]any{config.KeyTargetVector: configured}}
	}
	return c
}

func TestResolveTargetPrecedence(t *testing.T) {
	m := New(func(string) *models.Class { return nil })
	near := func(targets ...string) map[string]any {
		ts := make([]any, len(targets))
		for i, s := range targets {
			ts[i] = s
		}
		return map[string]any{"nearVector": map[string]any{"targetVectors": ts}}
	}
	for _, tc := range []struct {
		name       string
		configured string         // class moduleConfig targetVector
		query      map[string]any // query diverseSelect arguments
		args       map[string]any // search arguments
		want       string
		wantErr    string
	}{
		{name: "search target", args: near("b"), want: "b"},
		{name: "search target beats class config", configured: "a", args: near("b"), want: "b"},
		{name: "query argument beats search target", configured: "a", query: map[string]any{"targetVector": "a"}, args: near("b"), want: "a"},
		{name: "class config without search target", configured: "b", args: map[string]any{"bm25": map[string]any{"query": "x"}}, want: "b"},
		{name: "class config picks among several search targets", configured: "b", args: near("a", "b"), want: "b"},
		{name: "several search targets, none configured", args: near("a", "b"), wantErr: "targetVector"},
		{name: "two named vectors, no target", args: map[string]any{"bm25": map[string]any{"query": "x"}}, wantErr: `"targetVector" must be set`},
		{name: "no target is fine for a strategy without vectors", query: map[string]any{"strategy": "topk"}, args: map[string]any{"bm25": map[string]any{"query": "x"}}, want: ""},
		{name: "unknown query target", query: map[string]any{"targetVector": "c"}, args: near("a"), wantErr: "not a named vector"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			class := namedClass(tc.configured)
			var query *config.Overrides
			var err error
			if tc.query != nil {
				if query, err = config.Parse(tc.query, m.defaults.Limits); err != nil {
					t.Fatal(err)
				}
			}
			p, err := m.newPlan(class, routeArgument, query, searchFromArgs(tc.args))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.target != tc.want {
				t.Fatalf("target %q, want %q", p.target, tc.want)
			}
		})
	}
}

func TestHasArguments(t *testing.T) {
	m := New(func(string) *models.Class { return nil })
	class := namedClass("")
	if r := m.extractField(nil, class).(*Request); r.HasArguments() {
		t.Error("field without arguments reports arguments")
	}
	arg := &ast.Argument{Name: &ast.Name{Value: "strategy"}, Value: &ast.StringValue{Value: "topk"}}
	if r := m.extractField([]*ast.Argument{arg}, class).(*Request); !r.HasArguments() {
		t.Error("field with arguments reports none")
	}
	r, _, _ := m.extractArgument(map[string]any{"strategy": "topk"})
	if r.(*Request).HasArguments() {
		t.Error("the top-level argument reports field arguments")
	}
}

// TestPlainListRelevance: a plain list (no search ranks it: no distance, no
// score) has relevance 1 - i/N in list order on every route - the argument,
// the field (prepared by the Get resolver or not) and the rerank route.
func TestPlainListRelevance(t *testing.T) {
	class := docClass()
	class.ModuleConfig = map[string]any{RerankerName: map[string]any{"strategy": "topk"}}
	m := New(func(string) *models.Class { return class })
	plainList := func() []search.Result {
		in := results(4, 1)
		for i := range in {
			in[i].Dist = 0
		}
		return in
	}
	prepared := func(r *Request) *Request {
		if err := r.SelectionArguments(map[string]any{"limit": 4}); err != nil {
			t.Fatal(err)
		}
		return r
	}
	topk := []*ast.Argument{{Name: &ast.Name{Value: "strategy"}, Value: &ast.StringValue{Value: "topk"}}}
	arg, _, _ := m.extractArgument(map[string]any{"strategy": "topk"})
	prop := "body"
	routes := map[string]func() ([]search.Result, error){
		"argument": func() ([]search.Result, error) {
			return m.selectStage(context.Background(), plainList(), prepared(arg.(*Request)))
		},
		"field": func() ([]search.Result, error) {
			return m.selectStage(context.Background(), plainList(), prepared(m.extractField(topk, class).(*Request)))
		},
		"field, unprepared": func() ([]search.Result, error) {
			return m.selectStage(context.Background(), plainList(), m.extractField(topk, class))
		},
		"rerank": func() ([]search.Result, error) {
			return NewReranker(m, false).rerankStage(context.Background(), plainList(), &rank.Params{Property: &prop})
		},
	}
	for name, run := range routes {
		t.Run(name, func(t *testing.T) {
			out, err := run()
			if err != nil {
				t.Fatal(err)
			}
			want := plainList()
			if len(out) != len(want) {
				t.Fatalf("%d selected, want all %d", len(out), len(want))
			}
			for i, o := range out {
				ds := o.AdditionalProperties[ArgName].(map[string]any)
				if o.ID != want[i].ID || ds["relevance"] != 1-float64(i)/4 || ds["relevanceSource"] != "order" {
					t.Errorf("item %d: %s relevance %v from %v, want %s relevance %v from order",
						i, o.ID, ds["relevance"], ds["relevanceSource"], want[i].ID, 1-float64(i)/4)
				}
			}
		})
	}
}
