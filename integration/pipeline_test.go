package integration

import (
	"fmt"
	"math"
	"sort"
	"testing"

	"github.com/weaviate/weaviate/entities/models"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"

	dsclient "github.com/diverse-select/diverse-select/clients/go"
	"github.com/diverse-select/diverse-select/integration/stack"
)

// The selection's place in Weaviate's query pipeline: after the search's
// certainty/distance threshold, after a reranker module, on every route.

// thresholdBetween returns a distance between the 7th and 8th candidates of
// the Health query's pool of 15, so a threshold there removes about half.
func thresholdBetween(t *testing.T, class string) float64 {
	t.Helper()
	pool := fetchPool(t, class, healthNear(15), "body ntok", "")
	if len(pool) != 15 || pool[7].Distance-pool[6].Distance < 1e-4 {
		t.Fatalf("pool of %d, distances %v: no gap to put a threshold in", len(pool), pool)
	}
	return (pool[6].Distance + pool[7].Distance) / 2
}

// TestThresholdsBeforeSelection: a nearText distance or certainty removes
// candidates before the selection, on the argument, field and gRPC rerank
// routes: every selected object is returned, and the selection (ids and
// tokens used) is the library's over the pool Weaviate filters first.
func TestThresholdsBeforeSelection(t *testing.T) {
	const budget = 80
	lib := libraryRun{strategy: "mmr", budget: budget}
	for _, kind := range []string{"distance", "certainty"} {
		threshold := func(class string) (gql string, grpc func(*pb.NearTextSearch)) {
			d := thresholdBetween(t, class)
			if kind == "distance" {
				return fmt.Sprintf("distance: %v", d), func(n *pb.NearTextSearch) { n.Distance = &d }
			}
			c := 1 - d/2 // Weaviate's certainty of a cosine distance
			return fmt.Sprintf("certainty: %v", c), func(n *pb.NearTextSearch) { n.Certainty = &c }
		}
		t.Run(kind, func(t *testing.T) {
			c := health(t)
			th, _ := threshold(c)
			search := fmt.Sprintf(`nearText: {concepts: [%q], %s}, limit: 15`, healthQuery, th)
			filtered := fetchPool(t, c, search, "body ntok", "")
			if len(filtered) < 3 || len(filtered) >= 15 {
				t.Fatalf("the threshold keeps %d of 15 candidates", len(filtered))
			}
			lib.tokensOf = bodyTokens(t)
			wantIDs, wantTokens := lib.run(t, filtered)
			for name, q := range map[string]string{
				"argument": sel(c, search, fmt.Sprintf(`strategy: "mmr", tokenBudget: %d, candidates: 15`, budget), "body"),
				"field":    field(c, search, fmt.Sprintf(`strategy: "mmr", tokenBudget: %d`, budget), "body"),
			} {
				hits := get(t, c, q, nil)
				if len(hits) == 0 || len(hits) != hits[0].DS.Selected {
					t.Fatalf("%s: %d objects returned of %d selected", name, len(hits), hits[0].DS.Selected)
				}
				if got := fmt.Sprint(ids(hits)); got != fmt.Sprint(wantIDs) || hits[0].DS.TokensUsed != wantTokens ||
					hits[0].DS.Candidates != len(filtered) {
					t.Errorf("%s: selected %s using %d tokens of %d candidates; the library over the filtered pool: %v using %d of %d",
						name, got, hits[0].DS.TokensUsed, hits[0].DS.Candidates, wantIDs, wantTokens, len(filtered))
				}
			}

			// gRPC: the rerank route reads the threshold of the module's nearText.
			rc := rerankHealth(t)
			th, setGRPC := threshold(rc)
			filtered = fetchPool(t, rc, fmt.Sprintf(`nearText: {concepts: [%q], %s}, limit: 15`, healthQuery, th), "body ntok", "")
			lib.tokensOf = ntokTokens // the collection's tokenProperty
			wantIDs, wantTokens = lib.run(t, filtered)
			req := rerankRequest(rc, 15)
			q := healthQuery
			req.Rerank.Query = &q
			req.Rerank.Property = rerankProperty(t, "body", dsclient.Options{Strategy: dsclient.StrategyMMR, TokenBudget: dsclient.Int(budget)})
			req.NearText = &pb.NearTextSearch{Query: []string{healthQuery}}
			setGRPC(req.NearText)
			hits := mustGRPC(t, req)
			checkRerankScores(t, hits)
			if got, used := fmt.Sprint(grpcIDs(hits)), ntokOf(t, rc, hits, healthDocs); got != fmt.Sprint(wantIDs) || used != wantTokens {
				t.Errorf("gRPC: returned %s using %d tokens; the library over the filtered pool selects %v using %d",
					got, used, wantIDs, wantTokens)
			}
		})
	}
}

// rerankedHealth is the Health corpus in a class whose reranker is
// reranker-transformers, served by the stack's RerankServer.
func rerankedHealth(t testing.TB) string {
	t.Helper()
	const class = "RerankedHealth"
	ensure(t, class, func(t testing.TB) {
		mc := transformers()
		mc["reranker-transformers"] = map[string]any{}
		createClass(t, &models.Class{Class: class, Vectorizer: "text2vec-transformers", ModuleConfig: mc, Properties: bodyProps()})
		importDocs(t, class, healthDocs)
	})
	return class
}

// TestRerankerScoresAreRelevance: with reranker-transformers and
// diverseSelect in one query, the reranker runs first and its scores,
// min-max normalised over the pool, are the relevance the selection uses
// (relevanceSource "rerank"); the selection is the library's with that
// relevance. Both GraphQL forms, 10 queries each: the selection stage runs
// the reranker on the pool before it selects (Weaviate alone runs result
// hooks in map order, and about half of the queries would select on the
// search's distances).
func TestRerankerScoresAreRelevance(t *testing.T) {
	if srv.Reranker == nil {
		t.Fatal("the shared stack runs no rerank server")
	}
	c := rerankedHealth(t)
	const poolSize, budget = 12, 100
	pool := fetchPool(t, c, healthNear(poolSize), "body ntok", "")
	scores := map[string]float64{}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, it := range pool {
		s := stack.RerankScore(healthQuery, it.Body)
		scores[it.ID] = s
		lo, hi = math.Min(lo, s), math.Max(hi, s)
	}
	scaled := func(id string) float64 { return (scores[id] - lo) / (hi - lo) }
	// The library, on the pool in the reranker's order, relevance its scaled score.
	byScore := append([]poolItem{}, pool...)
	sort.SliceStable(byScore, func(i, j int) bool { return scores[byScore[i].ID] > scores[byScore[j].ID] })
	for i := range byScore {
		byScore[i].Distance = 1 - scaled(byScore[i].ID) // libraryRun's relevance is 1 - distance
	}
	wantIDs, _ := libraryRun{strategy: "mmr", budget: budget, tokensOf: bodyTokens(t)}.run(t, byScore)

	rerank := fmt.Sprintf(`rerank(property: "body", query: %q) { score }`, healthQuery)
	ds := "diverseSelect%s { rank relevance relevanceSource }"
	forms := map[string]string{
		"field": fmt.Sprintf(`{ Get { %s(%s) { body _additional { id %s %s } } } }`, c, healthNear(poolSize), rerank,
			fmt.Sprintf(ds, fmt.Sprintf(`(strategy: "mmr", tokenBudget: %d)`, budget))),
		"argument": fmt.Sprintf(`{ Get { %s(nearText: {concepts: [%q]}, limit: 20, diverseSelect: {strategy: "mmr", tokenBudget: %d, candidates: %d}) {
			body _additional { id %s %s } } } }`, c, healthQuery, budget, poolSize, rerank, fmt.Sprintf(ds, "")),
	}
	for name, q := range forms {
		t.Run(name, func(t *testing.T) {
			for run := 0; run < 10; run++ {
				res := graphql(t, q, nil)
				if len(res.Errors) > 0 {
					t.Fatalf("query %d: %s", run, res.errText())
				}
				var got []string
				for i, row := range res.Data.Get[c] {
					add := row["_additional"].(map[string]any)
					id := fmt.Sprint(add["id"])
					got = append(got, id)
					d, _ := add["diverseSelect"].(map[string]any)
					rs, _ := add["rerank"].([]any)
					if d == nil || len(rs) != 1 {
						t.Fatalf("query %d, object %d: _additional %v", run, i, add)
					}
					score, _ := rs[0].(map[string]any)["score"].(float64)
					if math.Abs(score-scores[id]) > 1e-9 {
						t.Errorf("query %d, object %d: rerank score %v, the server gives %v", run, i, score, scores[id])
					}
					if rel, _ := d["relevance"].(float64); d["relevanceSource"] != "rerank" || math.Abs(rel-scaled(id)) > 1e-9 {
						t.Errorf("query %d, object %d: relevance %v from %v, want the reranker's scaled score %v",
							run, i, d["relevance"], d["relevanceSource"], scaled(id))
					}
				}
				if fmt.Sprint(got) != fmt.Sprint(wantIDs) {
					t.Errorf("query %d: selected %v, the library with the reranker's relevance selects %v", run, got, wantIDs)
				}
			}
		})
	}
}
