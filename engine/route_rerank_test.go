package engine

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate/entities/additional"
	"github.com/weaviate/weaviate/entities/dto"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/multi"
	"github.com/weaviate/weaviate/entities/search"
	"github.com/weaviate/weaviate/entities/searchparams"
	rankmodels "github.com/weaviate/weaviate/usecases/modulecomponents/additional/models"
	"github.com/weaviate/weaviate/usecases/modulecomponents/additional/rank"
)

func rerankClass(cfg map[string]any, others ...string) *models.Class {
	mc := map[string]any{RerankerName: cfg}
	for _, o := range others {
		mc[o] = map[string]any{}
	}
	return &models.Class{
		Class:        "Doc",
		ModuleConfig: mc,
		Properties: []*models.Property{
			{Name: "body", DataType: []string{"text"}},
			{Name: "ntok", DataType: []string{"int"}},
		},
	}
}

func TestRerankerValidateClass(t *testing.T) {
	rr := NewReranker(New(nil), true)
	for _, tc := range []struct {
		name    string
		class   *models.Class
		wantErr []string
	}{
		{"valid", rerankClass(map[string]any{"strategy": "mmr", "tokenBudget": 100.0, "tokenProperty": "ntok"}), nil},
		{"not configured", &models.Class{Class: "Doc", ModuleConfig: map[string]any{"reranker-cohere": map[string]any{}}}, nil},
		{"bad strategy", rerankClass(map[string]any{"strategy": "nope"}), []string{"strategy", "nope"}},
		{"bad property", rerankClass(map[string]any{"textProperty": "missing"}), []string{"textProperty", "missing"}},
		{"query is no class setting", rerankClass(map[string]any{"query": "x"}), []string{"query"}},
		{"second reranker", rerankClass(map[string]any{}, "reranker-cohere", "text2vec-transformers"), []string{RerankerName, "reranker-cohere", "one reranker"}},
		{"diverse-select next to it is fine", rerankClass(map[string]any{}, Name), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := rr.e.ValidateRerankerClass(tc.class)
			if len(tc.wantErr) == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted, want an error mentioning %v", tc.wantErr)
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// fakeDB serves MultiGet from a map and records the tenant asked for.
type fakeDB struct {
	objects map[strfmt.UUID]search.Result
	tenant  string
	calls   int
}

func (f *fakeDB) MultiGet(_ context.Context, q []multi.Identifier, _ additional.Properties, tenant string) ([]search.Result, error) {
	f.calls++
	f.tenant = tenant
	out := make([]search.Result, len(q))
	for i, id := range q {
		out[i] = f.objects[strfmt.UUID(id.ID)]
	}
	return out, nil
}

// TestRerankStageAsksTheSearch: on the rerank route of a gRPC hybrid search
// (scores, the rerank property only), the stage asks the pool's search for
// the named vector it compares and the tokenProperty, in the request's
// tenant: nothing is read again by id.
func TestRerankStageAsksTheSearch(t *testing.T) {
	ids := []strfmt.UUID{"00000000-0000-0000-0000-000000000001", "00000000-0000-0000-0000-000000000002", "00000000-0000-0000-0000-000000000003"}
	bodies := []string{"statins lower cholesterol", "statins lower cholesterol levels", "exercise strengthens the heart"}
	vecs := [][]float32{{1, 0}, {0.999, 0.04}, {0, 1}}
	db := &fakeDB{objects: map[strfmt.UUID]search.Result{}}
	class := &models.Class{
		Class:              "Doc",
		MultiTenancyConfig: &models.MultiTenancyConfig{Enabled: true},
		ModuleConfig:       map[string]any{RerankerName: map[string]any{"strategy": "topk", "dedupThreshold": 0.95, "tokenProperty": "ntok"}},
		Properties: []*models.Property{
			{Name: "body", DataType: []string{"text"}},
			{Name: "ntok", DataType: []string{"int"}},
		},
		VectorConfig: map[string]models.VectorConfig{"title": {Vectorizer: map[string]any{"none": map[string]any{}}, VectorIndexType: "hnsw"}},
	}
	m := New(func(string) *models.Class { return class })
	m.multiGet = db.MultiGet
	// The objects as the search can load them: scores from the hybrid search.
	stored := make([]search.Result, len(ids))
	for i, id := range ids {
		stored[i] = search.Result{ID: id, ClassName: "Doc", Score: float32(3 - i), Schema: map[string]any{"body": bodies[i], "ntok": float64(5)},
			Vectors: models.Vectors{"title": vecs[i]}}
	}
	p := rerankParams(3, 0, "body", "statins")
	p.NearVector, p.HybridSearch, p.Tenant = nil, &searchparams.HybridSearch{Query: "statins"}, "alpha"
	out, f, err := runStage(m, p, stored)
	if err != nil {
		t.Fatal(err)
	}
	pool := f.pools[0]
	if pool.Tenant != "alpha" || !slices.Contains(pool.AdditionalProperties.Vectors, "title") ||
		!slices.ContainsFunc(pool.Properties, func(p search.SelectProperty) bool { return p.Name == "ntok" }) {
		t.Errorf("pool search: tenant %q, vectors %v, properties %v; want alpha, title, ntok", pool.Tenant, pool.AdditionalProperties.Vectors, pool.Properties)
	}
	if db.calls != 0 {
		t.Errorf("%d reads by id, want none", db.calls)
	}
	if len(out) != 2 || out[0].ID != ids[0] || out[1].ID != ids[2] {
		t.Fatalf("selected %v, want the first and third (the second duplicates the first)", out)
	}
	for i, o := range out {
		rs, ok := o.AdditionalProperties["rerank"].([]*rankmodels.RankResult)
		want := float64(2-i) / 2
		if !ok || len(rs) != 1 || *rs[0].Score != want {
			t.Errorf("result %d: rerank %v, want score %v", i, o.AdditionalProperties["rerank"], want)
		}
		if ds, _ := o.AdditionalProperties[ArgName].(map[string]any); ds["tokens"] != 5 {
			t.Errorf("result %d: tokens %v, want the fetched ntok 5", i, ds["tokens"])
		}
	}

	t.Run("a class that does not configure it", func(t *testing.T) {
		bare := *class
		bare.ModuleConfig = map[string]any{"reranker-transformers": map[string]any{}}
		rr := NewReranker(New(func(string) *models.Class { return &bare }), true)
		prop := "body"
		if _, err := rr.rerankStage(context.Background(), stored, &rank.Params{Property: &prop}); err != errNotSelected {
			t.Errorf("the stage took it: %v", err)
		}
		if _, err := rr.e.rerankHook(context.Background(), stored, &rank.Params{Property: &prop}, nil, nil, nil); err == nil || !strings.Contains(err.Error(), "does not configure") {
			t.Errorf("error %v, want a refusal asking to configure it", err)
		}
	})
}

// TestOtherRerankersMessage: the refusal of a class with two rerankers names
// the module once, on class validation and on a query alike (a class created
// without validation reaches the stage).
func TestOtherRerankersMessage(t *testing.T) {
	class := rerankClass(map[string]any{"strategy": "topk"}, "reranker-cohere")
	const cause = "class Doc also configures the reranker reranker-cohere; Weaviate would give each query's rerank " +
		"to one of them at random: configure one reranker per collection"
	m := New(func(string) *models.Class { return class })
	rr := NewReranker(m, false)
	for _, tc := range []struct {
		name, want string
		err        func() error
	}{
		{"class validation", RerankerName + ": " + cause, func() error {
			return rr.e.ValidateRerankerClass(class)
		}},
		{"query", RerankerName + ": rerank: " + cause, func() error {
			_, _, err := m.SelectResults(context.Background(), rerankParams(10, 0, "body", "q"),
				func(context.Context, dto.GetParams) ([]search.Result, error) { return results(10, 1), nil })
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.err(); err == nil || err.Error() != tc.want {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}
