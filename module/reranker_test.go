package diverseselect

import (
	"strings"
	"testing"

	"github.com/tailor-platform/graphql/language/ast"
	"github.com/weaviate/weaviate/usecases/modulecomponents/additional/rank"
)

func TestEnabledModules(t *testing.T) {
	names := func(enable string) string {
		var out []string
		for _, m := range EnabledModules(enable, Weaviate{}) {
			out = append(out, m.Name()+":"+string(m.Type()))
		}
		return strings.Join(out, ",")
	}
	for enable, want := range map[string]string{
		"text2vec-transformers":                      "",
		"diverse-select":                             "diverse-select:Text2TextSelection",
		"reranker-diverse-select":                    "reranker-diverse-select:Text2TextReranker",
		"diverse-select, reranker-diverse-select":    "diverse-select:Text2TextSelection,reranker-diverse-select:Text2TextReranker",
		"reranker-cohere,reranker-diverse-select,x":  "reranker-diverse-select:Text2TextReranker",
		"reranker-diverse-select,diverse-select,foo": "diverse-select:Text2TextSelection,reranker-diverse-select:Text2TextReranker",
	} {
		if got := names(enable); got != want {
			t.Errorf("ENABLE_MODULES=%q: %q, want %q", enable, got, want)
		}
	}
	// Both enabled: one engine, initialised by diverse-select.
	mods := EnabledModules("diverse-select,reranker-diverse-select", Weaviate{})
	rr := mods[1].(*Reranker)
	if rr.e != mods[0].(*Module).e || rr.ownsEngine {
		t.Errorf("the reranker does not share diverse-select's engine")
	}
	if alone := EnabledModules("reranker-diverse-select", Weaviate{})[0].(*Reranker); !alone.ownsEngine {
		t.Errorf("a reranker enabled alone does not own its engine")
	}
}

func TestExtractRerank(t *testing.T) {
	str := func(name, v string) *ast.Argument {
		return &ast.Argument{Name: &ast.Name{Value: name}, Value: &ast.StringValue{Value: v}}
	}
	p := extractRerank([]*ast.Argument{str("property", "body"), str("query", "q"),
		{Name: &ast.Name{Value: "query"}, Value: &ast.Variable{Name: &ast.Name{Value: "v"}}}}, nil).(*rank.Params)
	if p.GetProperty() != "body" || p.GetQuery() != "q" {
		t.Errorf("extracted %+v", p)
	}
	if got := p.GetPropertiesToExtract(); len(got) != 1 || got[0] != "body" {
		t.Errorf("properties to extract %v", got)
	}
}
