package integration

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate/entities/models"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"

	dsclient "github.com/diverse-select/diverse-select/clients/go"
	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/simcache"
)

// Multi-vector (ColBERT-style) targets: a class whose named vector "colbert"
// is a multi-vector (vectorizer none, vectors given by the test). Eight
// topics, each planted as 2-5 near-copies (the topic's vectors, perturbed,
// reordered, one dropped or added); the query's vectors are close to three
// topics, so the pool's top is full of copies. Every selection, in both
// GraphQL forms and over gRPC, equals the library's (selectors + simcache)
// on the same candidates read back from Weaviate.

const (
	mvClass    = "MultiVec"
	mvRerank   = "MultiVecRerank"
	mvTarget   = "colbert"
	mvDim      = 16
	mvTopics   = 8
	mvPoolSize = 24
)

// mvDoc is one object of the multi-vector corpus.
type mvDoc struct {
	key, body string
	topic     int
	vectors   [][]float32
}

// mvCorpus is the corpus and the query's multi-vector, from a fixed seed.
func mvCorpus() (docs []mvDoc, query [][]float32) {
	rng := rand.New(rand.NewPCG(19, 2))
	vec := func() []float32 {
		v := make([]float32, mvDim)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		return v
	}
	near := func(v []float32, eps float64) []float32 {
		out := make([]float32, len(v))
		for j, x := range v {
			out[j] = x + float32(eps*rng.NormFloat64())
		}
		return out
	}
	words := strings.Fields("solar panel wind turbine battery grid inverter roof storage meter cable fuse " +
		"voltage current charge sun light heat pump cold water tank pipe valve sensor")
	topics := make([][][]float32, mvTopics)
	for k := range topics {
		for range 4 + rng.IntN(4) {
			topics[k] = append(topics[k], vec())
		}
	}
	for k, base := range topics {
		for c := range 2 + rng.IntN(4) {
			var set [][]float32
			for _, p := range rng.Perm(len(base)) {
				set = append(set, near(base[p], 0.05))
			}
			if c%2 == 1 {
				set = set[1:]
			} else {
				set = append(set, vec())
			}
			var b []string
			for range 6 + rng.IntN(10) {
				b = append(b, words[rng.IntN(len(words))])
			}
			docs = append(docs, mvDoc{key: fmt.Sprintf("t%d-%d", k, c), topic: k, vectors: set,
				body: fmt.Sprintf("Topic %d, copy %d: %s.", k, c, strings.Join(b, " "))})
		}
	}
	for k := range 3 {
		query = append(query, near(topics[k][0], 0.3), near(topics[k][1], 0.3))
	}
	return docs, query
}

// mvClassOf creates class with the multi-vector corpus; rerank is its
// reranker-diverse-select config (nil: none); muvera indexes the
// multi-vectors by their MUVERA encoding.
func mvClassOf(t testing.TB, class string, rerank map[string]any, muvera bool) []mvDoc {
	t.Helper()
	docs, _ := mvCorpus()
	ensure(t, class, func(t testing.TB) {
		c := &models.Class{
			Class: class,
			VectorConfig: map[string]models.VectorConfig{mvTarget: {
				Vectorizer:      map[string]any{"none": map[string]any{}},
				VectorIndexType: "hnsw",
				VectorIndexConfig: map[string]any{"multivector": map[string]any{"enabled": true,
					"muvera": map[string]any{"enabled": muvera}}},
			}},
			Properties: []*models.Property{{Name: "body", DataType: []string{"text"}}},
		}
		if rerank != nil {
			c.ModuleConfig = map[string]any{rerankerName: rerank}
		}
		createClass(t, c)
		objs := make([]*models.Object, len(docs))
		for i, d := range docs {
			objs[i] = &models.Object{Class: class, ID: strfmt.UUID(uuidOf(class, d.key)),
				Properties: map[string]any{"body": d.body}, Vectors: models.Vectors{mvTarget: d.vectors}}
		}
		res, err := client.Batch().ObjectsBatcher().WithObjects(objs...).Do(ctx(t))
		if err != nil {
			t.Fatalf("batch import into %s: %v", class, err)
		}
		for i, r := range res {
			if r.Result != nil && r.Result.Errors != nil && len(r.Result.Errors.Error) > 0 {
				t.Fatalf("batch import into %s, object %q: %s", class, docs[i].key, r.Result.Errors.Error[0].Message)
			}
		}
	})
	return docs
}

// mvNear is the GraphQL nearVector search with the query's multi-vector.
func mvNear(limit int) string {
	_, q := mvCorpus()
	parts := make([]string, len(q))
	for i, v := range q {
		parts[i] = vectorLiteral(v)
	}
	return fmt.Sprintf("nearVector: {vector: [%s], targetVectors: [%q]}, limit: %d", strings.Join(parts, ", "), mvTarget, limit)
}

// mvPoolItem is a candidate as the module sees it.
type mvPoolItem struct {
	id, body string
	dist     float64
	vectors  [][]float32
}

// mvPool runs search without selection and reads back each candidate's
// distance, body and multi-vector.
func mvPool(t testing.TB, class, search string) []mvPoolItem {
	t.Helper()
	res := graphql(t, fmt.Sprintf("{ Get { %s(%s) { body _additional { id distance vectors { %s } } } } }", class, search, mvTarget), nil)
	if len(res.Errors) > 0 {
		t.Fatalf("pool query: %s", res.errText())
	}
	var out []mvPoolItem
	for _, row := range res.Data.Get[class] {
		add, _ := row["_additional"].(map[string]any)
		it := mvPoolItem{id: fmt.Sprint(add["id"])}
		it.body, _ = row["body"].(string)
		d, _ := add["distance"].(float64)
		it.dist = float64(float32(d))
		vs, _ := add["vectors"].(map[string]any)
		rows, _ := vs[mvTarget].([]any)
		for _, r := range rows {
			var v []float32
			for _, x := range r.([]any) {
				v = append(v, float32(x.(float64)))
			}
			it.vectors = append(it.vectors, v)
		}
		if len(it.vectors) == 0 {
			t.Fatalf("pool query returned no multi-vector for %s: %v", it.id, add["vectors"])
		}
		out = append(out, it)
	}
	return out
}

// mvRun is one library selection over a multi-vector pool.
type mvRun struct {
	strategy string
	params   map[string]any
	budget   int
	mode     string    // multiVector: maxsim or mean
	dedup    float64   // dedupThreshold (0 = off)
	scores   []float64 // bm25 scores in pool order; nil: relevance from the distance
}

// selectIDs is the library's selection over pool (selectors + simcache, as
// the module runs them): relevance the MaxSim score (minus the distance), or
// the bm25 score, min-max over the pool; tokens cl100k of the body; each
// candidate's mean-pooled vector, and the Chamfer engine under maxsim.
func (r mvRun) selectIDs(t testing.TB, pool []mvPoolItem) []string {
	t.Helper()
	rel := make([]float64, len(pool))
	for i, it := range pool {
		rel[i] = -it.dist
		if r.scores != nil {
			rel[i] = r.scores[i]
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range rel {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	p := &selectors.Problem{Budget: r.budget, DedupThreshold: r.dedup}
	sets := make([][][]float32, len(pool))
	pooled := make([][]float32, len(pool))
	for i, it := range pool {
		rn := 1.0
		if hi > lo {
			rn = (rel[i] - lo) / (hi - lo)
		}
		sets[i], pooled[i] = it.vectors, simcache.MeanPool(it.vectors)
		p.Candidates = append(p.Candidates, selectors.Candidate{ID: it.id, Relevance: rn, Tokens: cl100k(t, it.body),
			Text: it.body, Vector: pooled[i]})
	}
	if r.mode == "mean" {
		e, err := simcache.New(pooled)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Release()
		p.Similarities = e
	} else {
		e := simcache.NewMulti(sets)
		defer e.Release()
		p.Similarities = e
	}
	s, err := selectors.New(r.strategy, r.params)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if r.dedup > 0 && res.Removed == 0 {
		t.Errorf("dedupThreshold %v removed nothing: the planted copies are not near-copies under %s", r.dedup, r.mode)
	}
	out := make([]string, len(res.Items))
	for i, it := range res.Items {
		out[i] = pool[it.Index].id
	}
	return out
}

// mvStrategies are the strategies that read vectors, as GraphQL arguments
// and as library parameters.
var mvStrategies = []struct {
	name, args string
	params     map[string]any
	dedup      float64
}{
	{"coverage", ``, nil, 0},
	{"mmr", `, lambda: 0.5`, map[string]any{"lambda": 0.5}, 0},
	{"adagres", ``, nil, 0},
	{"dpp", ``, nil, 0},
	{"facility", ``, nil, 0},
	{"knapsack", `, concepts: "clusters"`, map[string]any{"concepts": "clusters"}, 0},
	{"topk", `, dedupThreshold: 0.9`, nil, 0.9},
}

// TestMultiVectorSelection: on a multi-vector target every strategy that
// reads vectors selects, in both GraphQL forms and both multiVector modes,
// exactly what the library selects from the same candidates; with maxsim,
// mmr takes one object per planted topic where top-k takes copies.
func TestMultiVectorSelection(t *testing.T) {
	docs := mvClassOf(t, mvClass, nil, false)
	topic := map[string]int{}
	for _, d := range docs {
		topic[uuidOf(mvClass, d.key)] = d.topic
	}
	search := mvNear(mvPoolSize)
	pool := mvPool(t, mvClass, search)
	if len(pool) != mvPoolSize {
		t.Fatalf("pool of %d, want %d", len(pool), mvPoolSize)
	}
	const budget = 120
	byMode := map[string][]string{} // every strategy's expected selection, per mode
	for _, mode := range []string{"maxsim", "mean"} {
		for _, st := range mvStrategies {
			args := fmt.Sprintf(`strategy: %q, tokenBudget: %d, multiVector: %q%s`, st.name, budget, mode, st.args)
			want := mvRun{strategy: st.name, params: st.params, budget: budget, mode: mode, dedup: st.dedup}.selectIDs(t, pool)
			byMode[mode] = append(byMode[mode], fmt.Sprint(want))
			for _, form := range []string{"argument", "field"} {
				t.Run(mode+"/"+st.name+"/"+form, func(t *testing.T) {
					var hits []Hit
					if form == "argument" {
						hits = get(t, mvClass, sel(mvClass, strings.Replace(search, fmt.Sprintf("limit: %d", mvPoolSize), "limit: 10", 1),
							args+fmt.Sprintf(", candidates: %d", mvPoolSize), "body"), nil)
					} else {
						hits = get(t, mvClass, field(mvClass, search, args, "body"), nil)
					}
					checkSelection(t, hits, budget, true)
					if got := fmt.Sprint(ids(hits)); got != fmt.Sprint(want) {
						t.Errorf("selection %v differs from the library's %v", got, want)
					}
					if hits[0].DS.Candidates != mvPoolSize {
						t.Errorf("candidates %d, want %d", hits[0].DS.Candidates, mvPoolSize)
					}
				})
			}
		}
	}
	if fmt.Sprint(byMode["maxsim"]) == fmt.Sprint(byMode["mean"]) {
		t.Errorf("maxsim and mean select alike for every strategy: the test cannot tell which comparison the module made")
	}
	t.Run("maxsim mmr takes one object per topic, top-k takes copies", func(t *testing.T) {
		groups := func(hits []Hit) []int {
			out := make([]int, len(hits))
			for i, h := range hits {
				out[i] = topic[h.ID]
			}
			return out
		}
		mmr := get(t, mvClass, field(mvClass, search, `strategy: "mmr", lambda: 0.3, maxResults: 4`, "body"), nil)
		top := get(t, mvClass, field(mvClass, search, `strategy: "topk", maxResults: 4`, "body"), nil)
		if g := groups(mmr); len(duplicatePairs(g)) > 0 {
			t.Errorf("mmr on the multi-vector picked topics %v: copies of one topic", g)
		}
		if g := groups(top); len(duplicatePairs(g)) == 0 {
			t.Errorf("top-k picked topics %v: the corpus no longer plants copies at the top", g)
		}
	})
}

// TestMultiVectorMuvera: with MUVERA the index holds one encoded vector per
// object, the objects keep their multi-vectors, and the selection reads
// those: it equals the library's on the candidates read back.
func TestMultiVectorMuvera(t *testing.T) {
	const class = "MultiVecMuvera"
	mvClassOf(t, class, nil, true)
	search := mvNear(mvPoolSize)
	pool := mvPool(t, class, search)
	for _, st := range mvStrategies[:2] { // coverage (the matrix), mmr (rows)
		args := fmt.Sprintf(`strategy: %q, tokenBudget: 120%s`, st.name, st.args)
		want := mvRun{strategy: st.name, params: st.params, budget: 120, mode: "maxsim"}.selectIDs(t, pool)
		hits := get(t, class, field(class, search, args, "body"), nil)
		checkSelection(t, hits, 120, true)
		if got := fmt.Sprint(ids(hits)); got != fmt.Sprint(want) {
			t.Errorf("%s: selection %v differs from the library's %v", st.name, got, want)
		}
	}
}

// TestMultiVectorErrors: a bad multiVector value is refused with the key and
// its allowed values, in the query and in a class config; the server keeps
// serving.
func TestMultiVectorErrors(t *testing.T) {
	mvClassOf(t, mvClass, nil, false)
	for _, q := range []string{
		sel(mvClass, mvNear(10), `strategy: "mmr", multiVector: "colbert"`, "body"),
		field(mvClass, mvNear(10), `strategy: "mmr", multiVector: "max"`, "body"),
	} {
		msg := gqlError(t, q, nil)
		for _, w := range []string{"multiVector", "maxsim, mean"} {
			if !strings.Contains(msg, w) {
				t.Errorf("error %q does not mention %q", msg, w)
			}
		}
	}
	err := client.Schema().ClassCreator().WithClass(&models.Class{Class: "MultiVecBad", Vectorizer: "text2vec-transformers",
		ModuleConfig: withDiverse(map[string]any{"multiVector": "sum"})}).Do(ctx(t))
	if err == nil || !strings.Contains(err.Error(), "multiVector") || !strings.Contains(err.Error(), "maxsim, mean") {
		t.Errorf("class config multiVector \"sum\": error %v, want one naming multiVector and maxsim, mean", err)
	}
	assertAlive(t)
}

// TestGRPCMultiVector: the gRPC rerank route on a multi-vector class (the
// query's multi-vector as gRPC bytes, and bm25, whose hook loads the vectors
// itself) selects what the GraphQL field form and the library select.
func TestGRPCMultiVector(t *testing.T) {
	t.Run("per-query multiVector in the rerank settings", func(t *testing.T) {
		class := mvRerank + "Maxsim"
		mvClassOf(t, class, map[string]any{"strategy": "mmr", "lambda": 0.5, "tokenBudget": 120, "multiVector": "maxsim"}, false)
		req := &pb.SearchRequest{
			Collection: class, Limit: mvPoolSize,
			Rerank:      &pb.Rerank{Property: rerankProperty(t, "body", dsclient.Options{MultiVector: "mean"})},
			Properties:  &pb.PropertiesRequest{NonRefProperties: []string{"body"}},
			Metadata:    &pb.MetadataRequest{Uuid: true},
			Uses_123Api: true, Uses_125Api: true, Uses_127Api: true,
			Bm25Search: &pb.BM25{Query: "solar battery grid"},
		}
		gql := fmt.Sprintf(`bm25: {query: "solar battery grid"}, limit: %d`, mvPoolSize)
		hits := mustGRPC(t, req)
		run := mvRun{strategy: "mmr", params: map[string]any{"lambda": 0.5}, budget: 120, scores: bm25Scores(t, class, gql)}
		pool := mvPool(t, class, gql)
		run.mode = "mean"
		if got, exp := fmt.Sprint(grpcIDs(hits)), fmt.Sprint(run.selectIDs(t, pool)); got != exp {
			t.Errorf("gRPC selection with multiVector \"mean\" in the rerank settings %v differs from the library's %v", got, exp)
		}
		run.mode = "maxsim"
		if fmt.Sprint(grpcIDs(hits)) == fmt.Sprint(run.selectIDs(t, pool)) {
			t.Errorf("maxsim selects the same on this pool: the test cannot tell the override was applied")
		}
	})
	for _, mode := range []string{"maxsim", "mean"} {
		t.Run(mode, func(t *testing.T) {
			class := mvRerank + strings.ToUpper(mode[:1]) + mode[1:]
			cfg := map[string]any{"strategy": "mmr", "lambda": 0.5, "tokenBudget": 120, "multiVector": mode}
			mvClassOf(t, class, cfg, false)
			_, q := mvCorpus()
			nearReq := func(r *pb.SearchRequest) {
				r.NearVector = &pb.NearVector{
					Vectors: []*pb.Vectors{{Name: mvTarget, VectorBytes: multiVectorBytes(q), Type: pb.Vectors_VECTOR_TYPE_MULTI_FP32}},
					Targets: &pb.Targets{TargetVectors: []string{mvTarget}},
				}
			}
			bm25Req := func(r *pb.SearchRequest) { r.Bm25Search = &pb.BM25{Query: "solar battery grid"} }
			for _, tc := range []struct {
				name, gql string
				set       func(*pb.SearchRequest)
				bm25      bool
			}{
				{"nearVector", mvNear(mvPoolSize), nearReq, false},
				{"bm25", fmt.Sprintf(`bm25: {query: "solar battery grid"}, limit: %d`, mvPoolSize), bm25Req, true},
			} {
				t.Run(tc.name, func(t *testing.T) {
					req := &pb.SearchRequest{
						Collection: class, Limit: mvPoolSize,
						Rerank:      &pb.Rerank{Property: "body"},
						Properties:  &pb.PropertiesRequest{NonRefProperties: []string{"body"}},
						Metadata:    &pb.MetadataRequest{Uuid: true},
						Uses_123Api: true, Uses_125Api: true, Uses_127Api: true,
					}
					tc.set(req)
					hits := mustGRPC(t, req)
					checkRerankScores(t, hits)
					want := get(t, class, field(class, tc.gql, fmt.Sprintf(`strategy: "mmr", lambda: 0.5, tokenBudget: 120, multiVector: %q`, mode), "body"), nil)
					if got, exp := fmt.Sprint(grpcIDs(hits)), fmt.Sprint(ids(want)); got != exp {
						t.Errorf("gRPC selection %v differs from GraphQL's %v", got, exp)
					}
					pool := mvPool(t, class, tc.gql)
					var scores []float64
					if tc.bm25 {
						scores = bm25Scores(t, class, tc.gql)
					}
					lib := mvRun{strategy: "mmr", params: map[string]any{"lambda": 0.5}, budget: 120, mode: mode, scores: scores}.selectIDs(t, pool)
					if got, exp := fmt.Sprint(grpcIDs(hits)), fmt.Sprint(lib); got != exp {
						t.Errorf("gRPC selection %v differs from the library's %v", got, exp)
					}
				})
			}
		})
	}
}

// bm25Scores are the pool's bm25 scores, in retrieval order.
func bm25Scores(t testing.TB, class, search string) []float64 {
	t.Helper()
	res := graphql(t, fmt.Sprintf("{ Get { %s(%s) { _additional { score } } } }", class, search), nil)
	if len(res.Errors) > 0 {
		t.Fatalf("score query: %s", res.errText())
	}
	var out []float64
	for _, row := range res.Data.Get[class] {
		add, _ := row["_additional"].(map[string]any)
		var s float64
		fmt.Sscan(fmt.Sprint(add["score"]), &s)
		out = append(out, float64(float32(s)))
	}
	return out
}

// multiVectorBytes encodes a multi-vector as gRPC's MULTI_FP32 bytes: the
// dimension as a little-endian uint16, then the vectors' floats.
func multiVectorBytes(vs [][]float32) []byte {
	out := binary.LittleEndian.AppendUint16(nil, uint16(len(vs[0])))
	for _, v := range vs {
		out = append(out, float32Bytes(v)...)
	}
	return out
}
