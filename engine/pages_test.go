package engine

import (
	"github.com/diverse-select/diverse-select/selectors"
	logtest "github.com/sirupsen/logrus/hooks/test"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/weaviate/weaviate/entities/dto"
	"github.com/weaviate/weaviate/entities/models"

	"github.com/diverse-select/diverse-select/config"
)

func TestPageOffset(t *testing.T) {
	m := New(func(string) *models.Class { return nil })
	parse := func(raw map[string]any) *config.Overrides {
		o, err := config.Parse(raw, m.defaults.Limits)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	tests := []struct {
		name       string
		query      map[string]any
		facts      searchFacts
		wantOffset int
		wantPaged  bool
		wantErr    string
	}{
		{"no offset", nil, searchFacts{}, 0, false, ""},
		{"the query's offset", nil, searchFacts{offset: 6, paged: true}, 6, true, ""},
		{"offset 0 given: paged", nil, searchFacts{paged: true}, 0, true, ""},
		{"the setting", map[string]any{"offset": 4}, searchFacts{}, 4, true, ""},
		{"both, the same", map[string]any{"offset": 4}, searchFacts{offset: 4, paged: true}, 4, true, ""},
		{"both, different", map[string]any{"offset": 4}, searchFacts{offset: 5, paged: true}, 0, false, "twice"},
		{"negative", nil, searchFacts{offset: -1, paged: true}, 0, false, ">= 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var q *config.Overrides
			if tc.query != nil {
				q = parse(tc.query)
			}
			off, paged, err := pageOffset(q, tc.facts)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), `"offset"`) {
					t.Fatalf("error %v, want one naming offset and %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || off != tc.wantOffset || paged != tc.wantPaged {
				t.Errorf("pageOffset = %d, %v, %v; want %d, %v", off, paged, err, tc.wantOffset, tc.wantPaged)
			}
		})
	}
}

// TestStageMovesOffset: on every route the pool is searched from its first
// result and the query's offset pages the selection; every other search
// keeps its offset.
func TestStageMovesOffset(t *testing.T) {
	class := docClass()
	class.ModuleConfig = map[string]any{RerankerName: map[string]any{"strategy": "topk"}}
	m := New(func(string) *models.Class { return class })
	topk := map[string]any{"strategy": "topk"}
	for name, p := range map[string]dto.GetParams{
		"argument": argumentParams(t, m, topk),
		"field":    fieldParams(t, m, 20, topk),
		"rerank":   rerankParams(20, 7, "body", ""),
	} {
		t.Run(name, func(t *testing.T) {
			p.Pagination.Offset = 7
			if r, ok := p.AdditionalProperties.ModuleParams[ArgName].(*Request); ok {
				r.SelectionArguments(map[string]any{"offset": 7})
			}
			out, f, err := runStage(m, p, results(40, 1))
			if err != nil {
				t.Fatal(err)
			}
			if f.pools[0].Pagination.Offset != 0 {
				t.Errorf("the pool's search has offset %d, want 0", f.pools[0].Pagination.Offset)
			}
			ex := out[0].AdditionalProperties[ArgName].(map[string]any)
			if ex["offset"] != 7 || ex["rank"] != 8 || ex["exhausted"] == nil {
				t.Errorf("first of the page: offset %v rank %v exhausted %v; want 7, 8, set", ex["offset"], ex["rank"], ex["exhausted"])
			}
		})
	}
	t.Run("not a selection", func(t *testing.T) {
		p := rerankParams(20, 7, "body", "")
		p.ClassName = "Other"
		other := &models.Class{Class: "Other", ModuleConfig: map[string]any{"reranker-transformers": map[string]any{}}}
		m := New(func(string) *models.Class { return other })
		if _, _, err := runStage(m, p, results(40, 1)); err != errNotSelected {
			t.Fatalf("a rerank on a class that configures another reranker: %v, want not taken", err)
		}
	})
	t.Run("no reranker at all", func(t *testing.T) {
		p := rerankParams(20, 7, "body", "")
		p.ClassName = "Other"
		m := New(func(string) *models.Class { return &models.Class{Class: "Other"} })
		_, _, err := runStage(m, p, results(40, 1))
		if err == nil || !strings.Contains(err.Error(), "collection Other has no reranker") || !strings.Contains(err.Error(), `moduleConfig {"reranker-diverse-select": {}}`) {
			t.Fatalf("a rerank on a class with no reranker: %v, want a refusal naming the collection and the fix", err)
		}
		if Code(err) != codes.InvalidArgument {
			t.Errorf("code %v, want InvalidArgument", Code(err))
		}
	})
}

// panicNew is a strategy that panics while it is built from its parameters.
const panicNew = "test-panic-new"

func init() {
	selectors.Register(selectors.Definition{Name: panicNew, Doc: "test: panics while built",
		New: func(selectors.Params) (selectors.Strategy, error) { panic("injected panic in New") }})
}

// TestStagePanic: a panic while the stage resolves a query is logged and
// is that query's error; the process lives on.
func TestStagePanic(t *testing.T) {
	class := docClass()
	class.ModuleConfig = map[string]any{RerankerName: map[string]any{"strategy": panicNew}}
	m := New(func(string) *models.Class { return class })
	logger, hook := logtest.NewNullLogger()
	m.logger = logger
	_, _, err := runStage(m, rerankParams(20, 5, "body", ""), results(40, 1))
	if err == nil || !strings.Contains(err.Error(), "panic") {
		t.Errorf("after a panic: %v, want the panic as the query's error", err)
	}
	if e := hook.LastEntry(); e == nil || e.Message != "diverse-select: panic recovered" {
		t.Errorf("the panic was not logged: %+v", e)
	}
}
