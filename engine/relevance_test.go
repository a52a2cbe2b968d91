package engine

import (
	"context"
	"math"
	"testing"

	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/search"
	rankmodels "github.com/weaviate/weaviate/usecases/modulecomponents/additional/models"
	"github.com/weaviate/weaviate/usecases/modulecomponents/arguments/nearText"
)

func withRerankScores(in []search.Result, scores ...float64) []search.Result {
	for i := range in {
		if i >= len(scores) {
			break
		}
		s := scores[i]
		in[i].AdditionalProperties = models.AdditionalProperties{"rerank": []*rankmodels.RankResult{{Score: &s}}}
	}
	return in
}

// TestRerankScoresAreRelevance: when a reranker module scored every
// candidate before the selection, its scores min-max normalised over the
// pool are the relevance, and relevanceSource says "rerank"; when one
// candidate lacks a score (the reranker did not run first), the search's
// relevance applies and says so.
func TestRerankScoresAreRelevance(t *testing.T) {
	class := docClass()
	m := New(func(string) *models.Class { return class })
	near := map[string]any{"nearText": map[string]any{"concepts": []any{"statins"}}}
	logits := []float64{2, -1, 0.5, 5, -3} // cross-encoder logits, not in list order
	for _, tc := range []struct {
		name   string
		in     []search.Result
		source string
		want   func(i int, res search.Result) float64
	}{
		{"every candidate reranked", withRerankScores(results(5, 1), logits...), "rerank",
			func(i int, _ search.Result) float64 { return (logits[i] + 3) / 8 }},
		{"one candidate without a score", withRerankScores(results(5, 1), logits[:4]...), "distance",
			func(_ int, res search.Result) float64 { return 1 - float64(res.Dist) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			byID := map[string]int{}
			for i, res := range tc.in {
				byID[res.ID.String()] = i
			}
			r := preparedArgument(t, m, map[string]any{"strategy": "topk"}, near)
			out, err := m.selectStage(context.Background(), tc.in, r)
			if err != nil {
				t.Fatal(err)
			}
			if len(out) != len(tc.in) {
				t.Fatalf("%d selected, want all %d", len(out), len(tc.in))
			}
			prev := math.Inf(1)
			for _, o := range out {
				i := byID[o.ID.String()]
				ds := o.AdditionalProperties[ArgName].(map[string]any)
				rel := ds["relevance"].(float64)
				if want := tc.want(i, tc.in[i]); math.Abs(rel-want) > 1e-6 || ds["relevanceSource"] != tc.source {
					t.Errorf("candidate %d: relevance %v from %v, want %v from %s", i, rel, ds["relevanceSource"], want, tc.source)
				}
				if rel > prev {
					t.Errorf("topk output not in relevance order: %v after %v", rel, prev)
				}
				prev = rel
			}
		})
	}
}

func TestThresholdKeep(t *testing.T) {
	for _, tc := range []struct {
		name string
		th   threshold
		dist float32
		want bool
	}{
		{"none", threshold{}, 1.9, true},
		{"certainty 0.8 keeps distance 0.4", threshold{certainty: 0.8}, 0.4, true},
		{"certainty 0.8 drops distance 0.41", threshold{certainty: 0.8}, 0.41, false},
		{"certainty beyond cosine range keeps (Weaviate's >= 0 guard)", threshold{certainty: 0.8}, 2.5, true},
		{"distance 0.3 keeps 0.3", threshold{distance: 0.3, withDistance: true}, 0.3, true},
		{"distance 0.3 keeps within 1e-6", threshold{distance: 0.3, withDistance: true}, 0.3000005, true},
		{"distance 0.3 drops 0.31", threshold{distance: 0.3, withDistance: true}, 0.31, false},
		{"distance 0 keeps only 0", threshold{distance: 0, withDistance: true}, 0.01, false},
	} {
		if got := tc.th.keep(tc.dist); got != tc.want {
			t.Errorf("%s: keep %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestThresholdBeforeSelection: a nearText certainty or distance removes
// candidates before the selection (every route reads it from its search), so
// all the budget goes to objects Weaviate returns.
func TestThresholdBeforeSelection(t *testing.T) {
	class := docClass()
	class.ModuleConfig = map[string]any{RerankerName: map[string]any{"strategy": "topk"}}
	m := New(func(string) *models.Class { return class })
	for _, tc := range []struct {
		name    string
		near    map[string]any
		maxDist float32
	}{
		{"certainty", map[string]any{"concepts": []any{"x"}, "certainty": 0.8}, 0.4},
		{"distance", map[string]any{"concepts": []any{"x"}, "distance": 0.25}, 0.25},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := results(20, 1) // distances i/20
			kept := 0
			for _, res := range in {
				if res.Dist <= tc.maxDist+1e-6 {
					kept++
				}
			}
			r := preparedArgument(t, m, map[string]any{"strategy": "topk"}, map[string]any{"nearText": tc.near})
			argumentOut, err := m.selectStage(context.Background(), in, r)
			if err != nil {
				t.Fatal(err)
			}
			// The rerank route sees the nearText of a gRPC search as a module parameter.
			nt := &nearText.NearTextParams{Values: []string{"x"}}
			if c, ok := tc.near["certainty"].(float64); ok {
				nt.Certainty = c
			} else {
				nt.Distance, nt.WithDistance = tc.near["distance"].(float64), true
			}
			prop := "body"
			p := rerankParams(20, 0, prop, "")
			p.NearVector, p.ModuleParams = nil, map[string]any{"nearText": nt}
			rerankOut, _, err := runStage(m, p, results(20, 1))
			if err != nil {
				t.Fatal(err)
			}
			for route, out := range map[string][]search.Result{"argument": argumentOut, "rerank": rerankOut} {
				if len(out) != kept {
					t.Fatalf("%s: %d selected, want the %d within the threshold", route, len(out), kept)
				}
				for _, o := range out {
					ds := o.AdditionalProperties[ArgName].(map[string]any)
					if o.Dist > tc.maxDist+1e-6 || ds["candidates"] != kept {
						t.Errorf("%s: selected distance %v (max %v), candidates %v (want %d)", route, o.Dist, tc.maxDist, ds["candidates"], kept)
					}
				}
			}
		})
	}
}
