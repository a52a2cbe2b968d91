package integration

import (
	"context"
	"fmt"
	"math"
	"testing"

	dsclient "github.com/diverse-select/diverse-select/clients/go"
	"github.com/diverse-select/diverse-select/integration/stack"
)

// TestGRPCCrossEncoderAndSelection: over gRPC, a collection whose reranker is
// a cross-encoder (reranker-transformers) reranks and then selects when the
// rerank property carries settings (the Go helper): the same selection,
// relevance (the cross-encoder's scores, min-max over the pool) and
// explanation as GraphQL's _additional { rerank diverseSelect(...) } on the
// same query, and each object's rerankScore is the cross-encoder's.
func TestGRPCCrossEncoderAndSelection(t *testing.T) {
	if srv.Reranker == nil {
		t.Fatal("the shared stack runs no rerank server")
	}
	c := rerankedHealth(t)
	const pool, budget = 12, 100
	q := fmt.Sprintf(`{ Get { %s(%s) { body _additional { id rerank(property: "body", query: %q) { score }
		diverseSelect(strategy: "mmr", tokenBudget: %d) { %s } } } } }`, c, healthNear(pool), healthQuery, budget, dsFields)
	want := get(t, c, q, nil)
	for run := 0; run < 5; run++ {
		got, err := dsclient.Select(context.Background(), grpcc(t), dsclient.Query{Collection: c, Limit: pool,
			NearText: healthQuery, Property: "body"}, dsclient.Options{Strategy: dsclient.StrategyMMR, TokenBudget: dsclient.Int(budget)})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || len(got) < 2 {
			t.Fatalf("run %d: gRPC selected %d, GraphQL %d", run, len(got), len(want))
		}
		for i, o := range got {
			w, ex := want[i], o.Explanation
			if ex == nil {
				t.Fatalf("run %d, object %d: no explanation", run, i)
			}
			if run == 0 {
				t.Logf("%d  %-36s  gRPC rank %d gain %.4f relevance %.4f (%s) tokens %d/%d %s rerankScore %.4f | GraphQL rank %d gain %.4f relevance %.4f (%s) tokens %d/%d %s",
					i+1, o.ID, ex.Rank, ex.Gain, ex.Relevance, ex.RelevanceSource, ex.Tokens, ex.TokensUsed, ex.Strategy, o.RerankScore,
					w.DS.Rank, w.DS.Gain, w.DS.Relevance, w.DS.RelevanceSource, w.DS.Tokens, w.DS.TokensUsed, w.DS.Strategy)
			}
			if o.ID != w.ID || ex.Rank != w.DS.Rank || ex.RelevanceSource != "rerank" || w.DS.RelevanceSource != "rerank" ||
				math.Abs(ex.Relevance-w.DS.Relevance) > 1e-9 || math.Abs(ex.Gain-w.DS.Gain) > 1e-9 ||
				ex.Tokens != w.DS.Tokens || ex.TokensUsed != w.DS.TokensUsed || ex.Strategy != "mmr" || ex.Budget != budget {
				t.Errorf("run %d, object %d: gRPC %s %+v, GraphQL %s %+v", run, i, o.ID, *ex, w.ID, *w.DS)
			}
			if s := stack.RerankScore(healthQuery, o.Properties["body"].(string)); math.Abs(o.RerankScore-s) > 1e-6 {
				t.Errorf("run %d, object %d: rerankScore %v, the cross-encoder's %v", run, i, o.RerankScore, s)
			}
		}
	}
}
