package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/usecases/modulecomponents/additional/rank"
)

// TestErrorsNameTheModuleOnce: the module's name is added where an error
// leaves the module, once, on every route: no "reranker-diverse-select:
// rerank: diverseSelect: ...".
func TestErrorsNameTheModuleOnce(t *testing.T) {
	bad := map[string]any{"strategy": "mmr", "lambda": 2}
	class := docClass()
	class.ModuleConfig = map[string]any{Name: bad, RerankerName: bad}
	m := New(func(string) *models.Class { return class })
	rr := NewReranker(m, true)
	ctx := context.Background()

	arg, _, _ := m.extractArgument(map[string]any{"tokenBudget": -1})
	prepErr := stageErr(m, arg.(*Request))
	prop := "body"
	_, rerankErr := rr.rerankStage(ctx, results(5, 1), &rank.Params{Property: &prop})

	for _, tc := range []struct {
		name   string
		err    error
		prefix string
	}{
		{"argument route", prepErr, `diverseSelect: "tokenBudget" must be an integer`},
		{"class validation", Named(ArgName, m.ValidateClass(class)), `diverseSelect: "lambda" for strategy "mmr"`},
		{"reranker class validation", rr.e.ValidateRerankerClass(class), `diverseSelect: "lambda" for strategy "mmr"`},
		{"rerank route", rerankErr, `reranker-diverse-select: rerank: "lambda" for strategy "mmr"`},
	} {
		if tc.err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		msg := tc.err.Error()
		if !strings.HasPrefix(msg, tc.prefix) || strings.Count(msg, "diverseSelect:")+strings.Count(msg, RerankerName+":") != 1 {
			t.Errorf("%s: %q, want it to start with %q and name the module once", tc.name, msg, tc.prefix)
		}
	}
}
