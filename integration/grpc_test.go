package integration

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/connection"
	"github.com/weaviate/weaviate/entities/models"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// The gRPC route: the official clients query over gRPC, whose SearchRequest
// carries `rerank {property, query}` but no module arguments. A collection
// that configures reranker-diverse-select gets diverse selection from that
// field. These tests send SearchRequests through the Go client's gRPC
// connection and compare each selection with the GraphQL _additional form
// given the same settings and pool, which loads vectors through the route
// patch: equal selections show the gRPC path loaded what it needed.

// rerankerName is the reranker-typed module of the gRPC route.
const rerankerName = "reranker-diverse-select"

// rerankCfg is the reranker config of the Health copy: adagres under a budget
// of planted token counts (ntok, which gRPC does not load: the module fetches it).
var rerankCfg = map[string]any{"strategy": "adagres", "tokenBudget": 120, "tokenProperty": "ntok"}

// rerankCfgField is rerankCfg as _additional { diverseSelect(...) } arguments.
const rerankCfgField = `strategy: "adagres", tokenBudget: 120, tokenProperty: "ntok", textProperty: "body"`

// withReranker returns a moduleConfig with text2vec-transformers' settings
// and reranker-diverse-select's cfg.
func withReranker(cfg map[string]any) map[string]any {
	mc := transformers()
	mc[rerankerName] = cfg
	return mc
}

// rerankHealth is the Health corpus in a class that configures only
// reranker-diverse-select as its reranker.
func rerankHealth(t testing.TB) string {
	t.Helper()
	const class = "RerankHealth"
	ensure(t, class, func(t testing.TB) { createHealthReranked(t, class, rerankCfg) })
	return class
}

// createHealthReranked creates class with the Health corpus, vectorised by
// text2vec-transformers, and reranker-diverse-select configured by cfg.
func createHealthReranked(t testing.TB, class string, cfg map[string]any) {
	t.Helper()
	createClass(t, &models.Class{
		Class:        class,
		Vectorizer:   "text2vec-transformers",
		ModuleConfig: withReranker(cfg),
		Properties:   bodyProps(),
	})
	importDocs(t, class, healthDocs)
}

var (
	grpcOnce sync.Once
	grpcConn *connection.GrpcClient
	grpcErr  error
)

// grpcc is the Go client's gRPC connection to the shared stack.
func grpcc(t testing.TB) *connection.GrpcClient {
	t.Helper()
	grpcOnce.Do(func() {
		grpcConn, grpcErr = connection.NewGrpcClient(srv.GRPCAddr, false, nil, nil, time.Minute, 30*time.Second)
	})
	if grpcErr != nil {
		t.Fatalf("gRPC connection: %v", grpcErr)
	}
	return grpcConn
}

// grpcHit is one result of a gRPC search.
type grpcHit struct {
	ID       string
	Body     string
	Score    float64
	HasScore bool
}

// rerankRequest is a gRPC SearchRequest of limit (the pool) with rerank on
// body and the Health query; the caller sets the search.
func rerankRequest(class string, limit int) *pb.SearchRequest {
	q := healthQuery
	return &pb.SearchRequest{
		Collection:  class,
		Limit:       uint32(limit),
		Rerank:      &pb.Rerank{Property: "body", Query: &q},
		Properties:  &pb.PropertiesRequest{NonRefProperties: []string{"body"}},
		Metadata:    &pb.MetadataRequest{Uuid: true},
		Uses_123Api: true, Uses_125Api: true, Uses_127Api: true,
	}
}

// grpcSearch sends req and returns its hits, or the error.
func grpcSearch(t testing.TB, req *pb.SearchRequest) ([]grpcHit, error) {
	t.Helper()
	reply, err := grpcc(t).Search(ctx(t), req)
	if err != nil {
		return nil, err
	}
	out := make([]grpcHit, len(reply.Results))
	for i, r := range reply.Results {
		out[i] = grpcHit{
			ID:       r.GetMetadata().GetId(),
			Body:     r.GetProperties().GetNonRefProps().GetFields()["body"].GetTextValue(),
			Score:    r.GetMetadata().GetRerankScore(),
			HasScore: r.GetMetadata().GetRerankScorePresent(),
		}
	}
	return out, nil
}

func mustGRPC(t testing.TB, req *pb.SearchRequest) []grpcHit {
	t.Helper()
	hits, err := grpcSearch(t, req)
	if err != nil {
		t.Fatalf("gRPC search: %v", err)
	}
	return hits
}

func grpcIDs(hits []grpcHit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

// checkRerankScores: every hit carries the route's score, 1 for the first
// down to 1/n for the last.
func checkRerankScores(t testing.TB, hits []grpcHit) {
	t.Helper()
	if len(hits) == 0 {
		t.Fatal("empty selection")
	}
	for i, h := range hits {
		want := float64(len(hits)-i) / float64(len(hits))
		if !h.HasScore || h.Score < want-1e-9 || h.Score > want+1e-9 {
			t.Errorf("hit %d: rerank score %v (present %v), want %v", i, h.Score, h.HasScore, want)
		}
	}
}

// ntokOf returns the planted token counts of the hits.
func ntokOf(t testing.TB, class string, hits []grpcHit, docs []Doc) int {
	t.Helper()
	idx := index(class, docs)
	sum := 0
	for _, h := range hits {
		d, ok := idx[h.ID]
		if !ok {
			t.Fatalf("hit %s is not an object of this corpus", h.ID)
		}
		sum += d.Props["ntok"].(int)
	}
	return sum
}

// TestGRPCRerankRoute: nearText, bm25, hybrid, nearVector and nearObject over
// gRPC with rerank on a class configuring reranker-diverse-select return the
// diverse selection -
// the same objects in the same order as the GraphQL _additional form with the
// same settings and pool - with planted duplicates removed and the budget held.
func TestGRPCRerankRoute(t *testing.T) {
	c := rerankHealth(t)
	idx := index(c, healthDocs)
	const pool = 15
	alpha := float32(0.5)
	qvec := hashEmbedder.Embed(healthQuery)
	for _, tc := range []struct {
		name, gql string
		set       func(*pb.SearchRequest)
	}{
		{"nearText", healthNear(pool), func(r *pb.SearchRequest) { r.NearText = &pb.NearTextSearch{Query: []string{healthQuery}} }},
		{"bm25", fmt.Sprintf(`bm25: {query: %q}, limit: %d`, healthQuery, pool), func(r *pb.SearchRequest) { r.Bm25Search = &pb.BM25{Query: healthQuery} }},
		{"hybrid", fmt.Sprintf(`hybrid: {query: %q, alpha: 0.5}, limit: %d`, healthQuery, pool), func(r *pb.SearchRequest) {
			r.HybridSearch = &pb.Hybrid{Query: healthQuery, AlphaParam: &alpha, UseAlphaParam: true}
		}},
		{"nearVector", fmt.Sprintf(`nearVector: {vector: %s}, limit: %d`, vectorLiteral(qvec), pool), func(r *pb.SearchRequest) {
			r.NearVector = &pb.NearVector{Vectors: []*pb.Vectors{{VectorBytes: float32Bytes(qvec)}}}
		}},
		{"nearObject", fmt.Sprintf(`nearObject: {id: %q}, limit: %d`, uuidOf(c, "/g1a"), pool), func(r *pb.SearchRequest) {
			r.NearObject = &pb.NearObject{Id: uuidOf(c, "/g1a")}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := rerankRequest(c, pool)
			tc.set(req)
			hits := mustGRPC(t, req)
			checkRerankScores(t, hits)
			groups := make([]int, len(hits))
			for i, h := range hits {
				groups[i] = idx[h.ID].Group
			}
			if pairs := duplicatePairs(groups); len(pairs) > 0 {
				t.Errorf("planted duplicates selected: groups %v", groups)
			}
			if n := ntokOf(t, c, hits, healthDocs); n > 120 {
				t.Errorf("selection uses %d tokens, budget 120", n)
			}
			if len(hits) >= pool {
				t.Errorf("%d of %d candidates selected", len(hits), pool)
			}
			want := get(t, c, field(c, tc.gql, rerankCfgField+fmt.Sprintf(", query: %q", healthQuery), "body"), nil)
			if got, exp := fmt.Sprint(grpcIDs(hits)), fmt.Sprint(ids(want)); got != exp {
				t.Errorf("gRPC selection %v (groups %v) differs from GraphQL's %v (groups %v)", got, groups, exp, groupsOf(t, want, idx))
			}
		})
	}
}

// TestGRPCRerankCapture: Weaviate picks the reranker per class - a reranker
// module is exposed on a class only when its moduleConfig names it (or it is
// the only reranker enabled); the stack runs the five API-based rerankers
// (reranker-cohere and others, no keys) besides ours. On a class configuring
// only reranker-diverse-select, 30 gRPC queries all return the same diverse
// selection: no other reranker took the call.
func TestGRPCRerankCapture(t *testing.T) {
	c := rerankHealth(t)
	req := rerankRequest(c, 15)
	req.NearText = &pb.NearTextSearch{Query: []string{healthQuery}}
	first := mustGRPC(t, req)
	checkRerankScores(t, first)
	same := 0
	for i := 0; i < 30; i++ {
		hits, err := grpcSearch(t, req)
		if err != nil {
			t.Errorf("query %d: %v", i, err)
			continue
		}
		if fmt.Sprint(grpcIDs(hits)) == fmt.Sprint(grpcIDs(first)) && len(hits) < 15 {
			same++
		}
	}
	if same != 30 {
		t.Errorf("%d of 30 gRPC queries returned the diverse selection", same)
	}
	t.Logf("%d/30 gRPC rerank queries returned the diverse selection of %d from 15 candidates", same, len(first))

	t.Run("class without a reranker config: no reranker", func(t *testing.T) {
		class := health(t)
		req := rerankRequest(class, 15)
		req.NearText = &pb.NearTextSearch{Query: []string{healthQuery}}
		_, err := grpcSearch(t, req)
		// not Weaviate's "unknown capability: rerank": the collection and the fix
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "collection "+class+" has no reranker") ||
			!strings.Contains(err.Error(), `moduleConfig {"reranker-diverse-select": {}}`) {
			t.Errorf("rerank on a class configuring no reranker: error %v, want InvalidArgument naming the collection and the fix", err)
		}
	})
}

// TestGraphQLRerankField: on a class configuring reranker-diverse-select,
// GraphQL's _additional { rerank(property, query) { score } } reaches the same
// selection as gRPC's rerank field (the query limit is the pool).
func TestGraphQLRerankField(t *testing.T) {
	c := rerankHealth(t)
	req := rerankRequest(c, 15)
	req.NearText = &pb.NearTextSearch{Query: []string{healthQuery}}
	viaGRPC := mustGRPC(t, req)
	q := fmt.Sprintf(`{ Get { %s(%s) { body _additional { id rerank(property: "body", query: %q) { score } } } } }`, c, healthNear(15), healthQuery)
	res := graphql(t, q, nil)
	if len(res.Errors) > 0 {
		t.Fatalf("GraphQL rerank: %s", res.errText())
	}
	objs := res.Data.Get[c]
	var got []string
	for i, o := range objs {
		add, _ := o["_additional"].(map[string]any)
		id, _ := add["id"].(string)
		got = append(got, id)
		scores, _ := add["rerank"].([]any)
		s, _ := func() (float64, bool) {
			if len(scores) != 1 {
				return 0, false
			}
			m, _ := scores[0].(map[string]any)
			f, ok := m["score"].(float64)
			return f, ok
		}()
		if want := float64(len(objs)-i) / float64(len(objs)); math.Abs(s-want) > 1e-9 {
			t.Errorf("object %d: rerank score %v, want %v", i, scores, want)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(grpcIDs(viaGRPC)) {
		t.Errorf("GraphQL rerank selects %v, gRPC rerank %v", got, grpcIDs(viaGRPC))
	}
}

// TestGRPCTwoRerankers: a class that configures reranker-diverse-select and
// another reranker is refused on create (Weaviate would pick one at random
// per query); the refusal names both.
func TestGRPCTwoRerankers(t *testing.T) {
	const class = "TwoRerankers"
	_ = client.Schema().ClassDeleter().WithClassName(class).Do(ctx(t))
	mc := withReranker(map[string]any{"strategy": "mmr"})
	mc["reranker-cohere"] = map[string]any{}
	err := client.Schema().ClassCreator().WithClass(&models.Class{
		Class: class, Vectorizer: "text2vec-transformers", ModuleConfig: mc, Properties: bodyProps(),
	}).Do(ctx(t))
	if err == nil {
		t.Fatal("a class configuring reranker-cohere and reranker-diverse-select was created")
	}
	for _, w := range []string{rerankerName, "reranker-cohere", "one reranker"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("refusal %q does not mention %q", err, w)
		}
	}
}

// TestGRPCVectors: the vectors a strategy compares are found on the gRPC
// path too: the selection stage takes them from the feature cache or the
// pool's search (TestGRPCRerankOneFetch shows no second read of the pool) and
// reads what neither holds in one batched read (with the tenant on
// multi-tenant classes). No request asks for
// vectors. dedupThreshold shows which vector was compared (as in
// TestNamedVectors); every selection equals the GraphQL _additional form's.
func TestGRPCVectors(t *testing.T) {
	bare := namedRerankClass(t, "RerankNamedBare", map[string]any{"strategy": "topk", "dedupThreshold": 0.95})
	cfg := namedRerankClass(t, "RerankNamedCfg", map[string]any{"strategy": "topk", "dedupThreshold": 0.95, "targetVector": "title"})
	const q = "statins cholesterol"
	alpha := float32(0.5)
	near := func(target string) func(*pb.SearchRequest) {
		return func(r *pb.SearchRequest) {
			r.NearText = &pb.NearTextSearch{Query: []string{q}, Targets: &pb.Targets{TargetVectors: []string{target}}}
		}
	}
	bm25 := func(r *pb.SearchRequest) { r.Bm25Search = &pb.BM25{Query: q} }
	// Weaviate requires a target for hybrid on several named vectors; the
	// module does not see it (hybrid is no module argument) and compares the
	// configured targetVector.
	hybrid := func(r *pb.SearchRequest) {
		r.HybridSearch = &pb.Hybrid{Query: q, Targets: &pb.Targets{TargetVectors: []string{"title"}}, AlphaParam: &alpha, UseAlphaParam: true}
	}
	gNear := `nearText: {concepts: ["statins cholesterol"], targetVectors: [%q]}, limit: 6`
	gBM25 := `bm25: {query: "statins cholesterol"}, limit: 6`
	gHybrid := `hybrid: {query: "statins cholesterol", targetVectors: ["title"], alpha: 0.5}, limit: 6`
	for _, tc := range []struct {
		name, class, gql, fieldArgs string
		set                         func(*pb.SearchRequest)
		titleDuplicatesRemoved      bool
	}{
		{"nearText target title", bare, fmt.Sprintf(gNear, "title"), ``, near("title"), true},
		{"nearText target body", bare, fmt.Sprintf(gNear, "body"), ``, near("body"), false},
		{"configured target, bm25", cfg, gBM25, ``, bm25, true},
		{"configured target, hybrid", cfg, gHybrid, ``, hybrid, true},
		{"search target beats the configured one", cfg, fmt.Sprintf(gNear, "body"), ``, near("body"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := rerankRequest(tc.class, 6)
			*req.Rerank.Query = q
			tc.set(req)
			hits := mustGRPC(t, req)
			checkRerankScores(t, hits)
			idx := index(tc.class, namedDocs)
			groups := make([]int, len(hits))
			for i, h := range hits {
				groups[i] = idx[h.ID].Group
			}
			dups := len(duplicatePairs(groups)) > 0
			if tc.titleDuplicatesRemoved && (dups || len(hits) > 4) {
				t.Errorf("compared on title: groups %v, want the 2 extra same-title objects removed", groups)
			}
			if !tc.titleDuplicatesRemoved && len(hits) != 6 {
				t.Errorf("compared on body: %d of 6 kept (groups %v), want all: the title vector was used", len(hits), groups)
			}
			fieldArgs := `strategy: "topk", dedupThreshold: 0.95, textProperty: "body"`
			if tc.class == cfg && !strings.Contains(tc.gql, "nearText") {
				fieldArgs += `, targetVector: "title"`
			}
			want := get(t, tc.class, field(tc.class, tc.gql, fieldArgs, "body"), nil)
			if got, exp := fmt.Sprint(grpcIDs(hits)), fmt.Sprint(ids(want)); got != exp {
				t.Errorf("gRPC selection %v differs from GraphQL's %v", got, exp)
			}
		})
	}
	t.Run("hybrid on two named vectors compares on the search's target", func(t *testing.T) {
		req := rerankRequest(bare, 6)
		hybrid(req) // targets title: the stage sees the hybrid's target, as over GraphQL
		if _, err := grpcSearch(t, req); err != nil {
			t.Fatalf("hybrid rerank targeting title on a class with two named vectors: %v", err)
		}
	})
	t.Run("bm25 on two named vectors without a configured targetVector is a clear error", func(t *testing.T) {
		// The search names no target vector, and the class configures none.
		req := rerankRequest(bare, 6)
		req.Bm25Search = &pb.BM25{Query: q}
		_, err := grpcSearch(t, req)
		if err == nil {
			t.Fatal("hybrid rerank on a class with two named vectors and no targetVector succeeded")
		}
		for _, w := range []string{"targetVector", "title", "body"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q does not mention %q", err, w)
			}
		}
	})
}

// namedRerankClass is namedDocs in a class with two named vectors (title,
// body) configuring reranker-diverse-select with cfg.
func namedRerankClass(t testing.TB, name string, cfg map[string]any) string {
	t.Helper()
	ensure(t, name, func(t testing.TB) {
		vc := func(prop string) models.VectorConfig {
			return models.VectorConfig{
				Vectorizer:      map[string]any{"text2vec-transformers": map[string]any{"properties": []any{prop}, "vectorizeClassName": false}},
				VectorIndexType: "hnsw",
			}
		}
		createClass(t, &models.Class{
			Class:        name,
			VectorConfig: map[string]models.VectorConfig{"title": vc("title"), "body": vc("body")},
			Properties:   bodyProps(&models.Property{Name: "title", DataType: []string{"text"}}),
			ModuleConfig: map[string]any{rerankerName: cfg},
		})
		importDocs(t, name, namedDocs)
	})
	return name
}

// TestGRPCMultiTenant: on a multi-tenant class the selection holds only the
// queried tenant's objects, and vectors the search did not load (hybrid) are
// fetched from that tenant.
func TestGRPCMultiTenant(t *testing.T) {
	const class = "RerankTenanted"
	var docs []Doc
	for _, d := range healthDocs[:12] {
		d.Tenant = "alpha"
		docs = append(docs, d)
	}
	for _, d := range healthDocs[4:] {
		d.Tenant = "beta"
		docs = append(docs, d)
	}
	createClass(t, &models.Class{
		Class:              class,
		Vectorizer:         "text2vec-transformers",
		ModuleConfig:       withReranker(map[string]any{"strategy": "mmr", "tokenBudget": 100, "dedupThreshold": 0.8}),
		Properties:         bodyProps(),
		MultiTenancyConfig: &models.MultiTenancyConfig{Enabled: true},
	})
	if err := client.Schema().TenantsCreator().WithClassName(class).
		WithTenants(models.Tenant{Name: "alpha"}, models.Tenant{Name: "beta"}).Do(ctx(t)); err != nil {
		t.Fatalf("create tenants: %v", err)
	}
	importDocs(t, class, docs)
	idx := index(class, docs)
	alpha := float32(0.5)
	for _, tenant := range []string{"alpha", "beta"} {
		for _, tc := range []struct {
			name, gql string
			set       func(*pb.SearchRequest)
		}{
			{"nearText", healthNear(10), func(r *pb.SearchRequest) { r.NearText = &pb.NearTextSearch{Query: []string{healthQuery}} }},
			{"hybrid", fmt.Sprintf(`hybrid: {query: %q, alpha: 0.5}, limit: 10`, healthQuery), func(r *pb.SearchRequest) {
				r.HybridSearch = &pb.Hybrid{Query: healthQuery, AlphaParam: &alpha, UseAlphaParam: true}
			}},
			{"bm25", fmt.Sprintf(`bm25: {query: %q}, limit: 10`, healthQuery), func(r *pb.SearchRequest) { r.Bm25Search = &pb.BM25{Query: healthQuery} }},
		} {
			t.Run(tenant+"/"+tc.name, func(t *testing.T) {
				req := rerankRequest(class, 10)
				req.Tenant = tenant
				tc.set(req)
				hits := mustGRPC(t, req)
				checkRerankScores(t, hits)
				for _, h := range hits {
					if d, ok := idx[h.ID]; !ok || d.Tenant != tenant {
						t.Errorf("tenant %s: selection contains %s of tenant %q", tenant, h.ID, d.Tenant)
					}
				}
				for i := range hits {
					for j := i + 1; j < len(hits); j++ {
						if cosine(hits[i].Body, hits[j].Body) >= 0.8 {
							t.Errorf("near-duplicates %q and %q both selected: the tenant's vectors were not used", hits[i].Body, hits[j].Body)
						}
					}
				}
				gql := fmt.Sprintf("tenant: %q, %s", tenant, tc.gql)
				want := get(t, class, field(class, gql, `strategy: "mmr", tokenBudget: 100, dedupThreshold: 0.8, textProperty: "body"`+
					fmt.Sprintf(", query: %q", healthQuery), "body"), nil)
				if got, exp := fmt.Sprint(grpcIDs(hits)), fmt.Sprint(ids(want)); got != exp {
					t.Errorf("gRPC selection %v differs from GraphQL's %v", got, exp)
				}
			})
		}
	}
	// GraphQL's _additional { rerank } on a multi-tenant hybrid search, whose
	// vectors Weaviate does not load: the hook reads them from the query's
	// tenant (the explorer glue hands it over) and selects as the field form.
	t.Run("GraphQL rerank field, multi-tenant hybrid", func(t *testing.T) {
		search := fmt.Sprintf(`tenant: "alpha", hybrid: {query: %q}, limit: 10`, healthQuery)
		q := fmt.Sprintf(`{ Get { %s(%s) { body _additional { id rerank(property: "body", query: %q) { score } } } } }`,
			class, search, healthQuery)
		got := get(t, class, q, nil)
		want := get(t, class, field(class, search, `strategy: "mmr", tokenBudget: 100, dedupThreshold: 0.8, textProperty: "body"`+
			fmt.Sprintf(", query: %q", healthQuery), "body"), nil)
		if len(got) == 0 || len(got) >= 10 {
			t.Fatalf("%d of 10 candidates selected", len(got))
		}
		if fmt.Sprint(ids(got)) != fmt.Sprint(ids(want)) {
			t.Errorf("rerank selection %v differs from the field form's %v", ids(got), ids(want))
		}
	})
}

// updateModuleConfig replaces a class's moduleConfig entries (GET, modify,
// PUT): set adds or replaces, drop removes.
func updateModuleConfig(t testing.TB, class string, set map[string]any, drop ...string) error {
	t.Helper()
	c, err := client.Schema().ClassGetter().WithClassName(class).Do(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	mc, _ := c.ModuleConfig.(map[string]any)
	if mc == nil {
		mc = map[string]any{}
	}
	for _, k := range drop {
		delete(mc, k)
	}
	for k, v := range set {
		mc[k] = v
	}
	c.ModuleConfig = mc
	return client.Schema().ClassUpdater().WithClass(c).Do(ctx(t))
}

// moduleConfigKeys lists the class's moduleConfig keys as stored.
func moduleConfigKeys(t testing.TB, class string) []string {
	t.Helper()
	c, err := client.Schema().ClassGetter().WithClassName(class).Do(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	mc, _ := c.ModuleConfig.(map[string]any)
	var out []string
	for k := range mc {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestRerankConfigUpdate: the reranker config is updatable (reranker configs
// are, natively); a bad update is refused naming the key and leaves the old
// config in force; switching the class to another reranker replaces ours, as
// Weaviate does for any reranker, and back.
func TestRerankConfigUpdate(t *testing.T) {
	const class = "RerankMutable"
	createClass(t, &models.Class{
		Class: class, Vectorizer: "text2vec-transformers", ModuleConfig: withReranker(rerankCfg), Properties: bodyProps(),
	})
	importDocs(t, class, healthDocs)
	req := rerankRequest(class, 15)
	req.NearText = &pb.NearTextSearch{Query: []string{healthQuery}}
	before := mustGRPC(t, req)
	if n := ntokOf(t, class, before, healthDocs); n > 120 {
		t.Fatalf("%d tokens selected, budget 120", n)
	}
	for _, tc := range []struct {
		name string
		cfg  map[string]any
		want []string
	}{
		{"unknown strategy", map[string]any{"strategy": "nope"}, []string{"strategy", "nope", "allowed"}},
		{"negative tokenBudget", map[string]any{"tokenBudget": -1}, []string{"tokenBudget"}},
		{"missing textProperty", map[string]any{"textProperty": "missing"}, []string{"textProperty", "missing"}},
	} {
		t.Run("refused: "+tc.name, func(t *testing.T) {
			err := updateModuleConfig(t, class, map[string]any{rerankerName: tc.cfg})
			if err == nil {
				t.Fatalf("update to %v accepted", tc.cfg)
			}
			for _, w := range append(tc.want, rerankerName) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if got := mustGRPC(t, req); fmt.Sprint(grpcIDs(got)) != fmt.Sprint(grpcIDs(before)) {
				t.Errorf("selection changed after a refused update")
			}
		})
	}
	t.Run("good update applies to the next query", func(t *testing.T) {
		cfg := map[string]any{"strategy": "topk", "tokenBudget": 40, "tokenProperty": "ntok"}
		if err := updateModuleConfig(t, class, map[string]any{rerankerName: cfg}); err != nil {
			t.Fatalf("good update refused: %v", err)
		}
		hits := mustGRPC(t, req)
		checkRerankScores(t, hits)
		want := get(t, class, field(class, healthNear(15), `strategy: "topk", tokenBudget: 40, tokenProperty: "ntok", textProperty: "body"`, "body"), nil)
		if fmt.Sprint(grpcIDs(hits)) != fmt.Sprint(ids(want)) {
			t.Errorf("after the update gRPC selects %v, GraphQL with the new settings %v", grpcIDs(hits), ids(want))
		}
		if n := ntokOf(t, class, hits, healthDocs); n > 40 {
			t.Errorf("%d tokens selected, new budget 40", n)
		}
	})
	t.Run("switching to another reranker replaces ours, and back", func(t *testing.T) {
		if err := updateModuleConfig(t, class, map[string]any{"reranker-cohere": map[string]any{}}, rerankerName); err != nil {
			t.Fatalf("switch to reranker-cohere refused: %v", err)
		}
		if keys := fmt.Sprint(moduleConfigKeys(t, class)); strings.Contains(keys, rerankerName) || !strings.Contains(keys, "reranker-cohere") {
			t.Errorf("moduleConfig keys %s after the switch, want reranker-cohere instead of ours", keys)
		}
		if err := updateModuleConfig(t, class, map[string]any{rerankerName: rerankCfg}, "reranker-cohere"); err != nil {
			t.Fatalf("switch back refused: %v", err)
		}
		if keys := fmt.Sprint(moduleConfigKeys(t, class)); !strings.Contains(keys, rerankerName) || strings.Contains(keys, "reranker-cohere") {
			t.Errorf("moduleConfig keys %s after switching back, want ours instead of reranker-cohere", keys)
		}
		if got := mustGRPC(t, req); fmt.Sprint(grpcIDs(got)) != fmt.Sprint(grpcIDs(before)) {
			t.Errorf("selection %v after switching back, want the original %v", grpcIDs(got), grpcIDs(before))
		}
	})
}

// TestRerankTwoRerankersUnvalidated documents a limit: Weaviate validates no
// module config of a legacy class with vectorizer "none", so such a class can
// configure two rerankers; Weaviate then hands each rerank call to one of
// them at random. Ours refuses such a call with a clear error, so no query
// silently gets one or the other: every call fails (reranker-cohere's for
// its missing key, or ours naming both).
func TestRerankTwoRerankersUnvalidated(t *testing.T) {
	const class = "TwoRerankersNone"
	_ = client.Schema().ClassDeleter().WithClassName(class).Do(ctx(t))
	err := client.Schema().ClassCreator().WithClass(&models.Class{
		Class: class, Vectorizer: "none", Properties: bodyProps(),
		ModuleConfig: map[string]any{rerankerName: map[string]any{"strategy": "mmr"}, "reranker-cohere": map[string]any{}},
	}).Do(ctx(t))
	if err != nil {
		t.Logf("Weaviate now validates vectorizer-none classes on create: %v", err)
		return
	}
	importDocs(t, class, []Doc{
		{Key: "a", Body: "first chunk", Vector: []float32{1, 0, 0}},
		{Key: "b", Body: "second chunk", Vector: []float32{0.9, 0.1, 0}},
		{Key: "c", Body: "third chunk", Vector: []float32{0, 1, 0}},
	})
	// Weaviate keeps the last module of a map walk, so the share of calls each
	// reranker gets depends on where the two land in that process's map
	// (seen from 1 in 8 to 7 in 8): send until ours has answered once.
	const maxCalls = 500
	ours, other, calls := 0, 0, 0
	for ours == 0 && calls < maxCalls {
		calls++
		req := rerankRequest(class, 3)
		req.NearVector = &pb.NearVector{Vectors: []*pb.Vectors{{VectorBytes: float32Bytes([]float32{1, 0, 0})}}}
		_, err := grpcSearch(t, req)
		switch {
		case err == nil:
			t.Fatalf("query %d succeeded on a class configuring two rerankers", calls)
		case strings.Contains(err.Error(), "also configures the reranker reranker-cohere"):
			ours++
		default:
			other++
			if other == 1 {
				t.Logf("reranker-cohere took a call: %v", err)
			}
		}
	}
	t.Logf("two rerankers configured: reranker-diverse-select refused call %d naming both; reranker-cohere took %d before", calls, other)
	if ours == 0 {
		t.Errorf("reranker-diverse-select took none of %d calls: Weaviate no longer picks at random? then update the README's limit", maxCalls)
	}
}

// float32Bytes encodes a vector as gRPC's little-endian vector bytes.
func float32Bytes(v []float32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
	}
	return out
}

// vectorLiteral writes a vector as a GraphQL list.
func vectorLiteral(v []float32) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprint(x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
