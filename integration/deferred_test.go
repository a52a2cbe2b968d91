package integration

import (
	"fmt"
	"strings"
	"testing"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate/entities/models"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
)

// deferredDelta runs query and returns how the module's deferred counters
// moved: selections over a pool loaded without properties, and the objects
// read by id for their text (uncached) and for the response (selected).
func deferredDelta(t *testing.T, query func()) (selections, uncached, selected float64) {
	t.Helper()
	d := deferredCounters(t, query)
	return d.selections, d.uncached, d.selected
}

type deferredMoves struct{ selections, uncached, selected, cachedVectors float64 }

// deferredCounters is deferredDelta with the candidates whose vector came
// from the feature cache (the search did not load it).
func deferredCounters(t *testing.T, query func()) deferredMoves {
	t.Helper()
	before := scrape(t)
	query()
	after := scrape(t)
	d := func(name string, labels ...string) float64 {
		return sample(after, name, labels...) - sample(before, name, labels...)
	}
	return deferredMoves{d("diverse_select_deferred_selections_total"),
		d("diverse_select_deferred_reads_total", "reason", "uncached"),
		d("diverse_select_deferred_reads_total", "reason", "selected"),
		d("diverse_select_cached_vectors_total")}
}

// TestDeferredProperties: on every route the search loads the pool without
// properties; the first query over new objects reads every candidate's text
// by id once, later ones read only the selected objects; and every selected
// object comes back whole, as stored (GraphQL both forms, GraphQL and gRPC
// rerank; nearText, hybrid and bm25).
func TestDeferredProperties(t *testing.T) {
	const class = "Deferred"
	createHealthReranked(t, class, map[string]any{"textProperty": "body"})
	idx := index(class, healthDocs)
	const props = "body grp ntok"
	checkWhole := func(t *testing.T, id string, got map[string]any) {
		t.Helper()
		d, ok := idx[id]
		if !ok {
			t.Fatalf("hit %s is no object of the class", id)
		}
		if got["body"] != d.Body || fmt.Sprint(got["grp"]) != fmt.Sprint(d.Group) || fmt.Sprint(got["ntok"]) != fmt.Sprint(d.Props["ntok"]) {
			t.Errorf("hit %s came back as %v, stored as body %q grp %d ntok %v", id, got, d.Body, d.Group, d.Props["ntok"])
		}
	}

	// Cold: the class's objects were never selected from.
	pool := len(healthDocs)
	var hits []Hit
	cold := deferredCounters(t, func() { hits = get(t, class, sel(class, healthNear(pool), "", props), nil) })
	checkSelection(t, hits, 0, true)
	if cold != (deferredMoves{1, float64(pool), 0, 0}) {
		t.Errorf("first query: %v deferred selections, %v texts and %v selected objects read by id, %v vectors from the cache; "+
			"want 1, %d (the whole pool, with their vectors), 0 (read with them) and 0", cold.selections, cold.uncached, cold.selected,
			cold.cachedVectors, pool)
	}

	q := healthQuery
	gqlRerank := fmt.Sprintf(`{ Get { %s(%s) { %s _additional { id rerank(property: "body", query: %q) { score } } } } }`,
		class, healthNear(15), props, q)
	for _, tc := range []struct {
		name string
		// cachedVectors: the candidates whose vector came from the feature
		// cache, the search not loading them: the whole pool (the argument
		// form's candidates default to more than the class holds; limit 15
		// elsewhere), on every search kind - the selection stage asks no
		// search for a vector the cache holds, bm25's included.
		cachedVectors float64
		run           func(t *testing.T) map[string]map[string]any // id -> properties
	}{
		{"argument nearText", float64(pool), func(t *testing.T) map[string]map[string]any {
			return byID(get(t, class, sel(class, healthNear(15), "", props), nil))
		}},
		{"field nearText", 15, func(t *testing.T) map[string]map[string]any {
			return byID(get(t, class, field(class, healthNear(15), "", props), nil))
		}},
		{"argument hybrid", float64(pool), func(t *testing.T) map[string]map[string]any {
			return byID(get(t, class, sel(class, fmt.Sprintf(`hybrid: {query: %q, alpha: 0.5}, limit: 15`, q), "", props), nil))
		}},
		{"argument bm25", -1, func(t *testing.T) map[string]map[string]any { // -1: every bm25 match
			return byID(get(t, class, sel(class, fmt.Sprintf(`bm25: {query: %q}, limit: 15`, q), "", props), nil))
		}},
		{"GraphQL rerank", 15, func(t *testing.T) map[string]map[string]any {
			return byID(get(t, class, gqlRerank, nil))
		}},
		{"gRPC rerank", 15, func(t *testing.T) map[string]map[string]any {
			req := rerankRequest(class, 15)
			req.NearText = &pb.NearTextSearch{Query: []string{q}}
			req.Properties = &pb.PropertiesRequest{NonRefProperties: []string{"body", "grp", "ntok"}}
			reply, err := grpcc(t).Search(ctx(t), req)
			if err != nil {
				t.Fatalf("gRPC search: %v", err)
			}
			out := map[string]map[string]any{}
			for _, r := range reply.Results {
				f := r.GetProperties().GetNonRefProps().GetFields()
				out[r.GetMetadata().GetId()] = map[string]any{"body": f["body"].GetTextValue(),
					"grp": f["grp"].GetIntValue(), "ntok": f["ntok"].GetIntValue()}
			}
			return out
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got map[string]map[string]any
			d := deferredCounters(t, func() { got = tc.run(t) })
			if len(got) == 0 || len(got) >= 15 {
				t.Fatalf("%d of 15 candidates selected", len(got))
			}
			if d.selections != 1 || d.uncached != 0 || d.selected != float64(len(got)) {
				t.Errorf("%v deferred selections, %v texts and %v selected objects read by id; want 1, 0 (the cache holds "+
					"every text) and %d (the selected)", d.selections, d.uncached, d.selected, len(got))
			}
			if tc.cachedVectors == -1 && (d.cachedVectors < float64(len(got)) || d.cachedVectors > float64(pool)) {
				t.Errorf("%v vectors taken from the feature cache; want every candidate bm25 matched", d.cachedVectors)
			} else if tc.cachedVectors >= 0 && d.cachedVectors != tc.cachedVectors {
				t.Errorf("%v vectors taken from the feature cache; want %v", d.cachedVectors, tc.cachedVectors)
			}
			for id, p := range got {
				checkWhole(t, id, p)
			}
		})
	}
}

func byID(hits []Hit) map[string]map[string]any {
	out := make(map[string]map[string]any, len(hits))
	for _, h := range hits {
		out[h.ID] = h.Props
	}
	return out
}

// TestDeferredPropertiesUpdate: an object updated without a new vector keeps
// its place in the vector index (Weaviate keeps its doc id), but its update
// time moves: the next selection reads its new text by id - only its - and
// returns the new text, never the cached old one.
func TestDeferredPropertiesUpdate(t *testing.T) {
	const class = "DeferredUpdate"
	docs := twelveFacts(t, class, ", told once")
	query := sel(class, `nearVector: {vector: [1, 0.5, 0, 0, 0, 0, 0, 0]}, limit: 12`, "", "body")
	first := get(t, class, query, nil)
	checkSelection(t, first, 0, true)
	target := first[0].ID
	newBody := strings.Replace(first[0].Str("body"), "told once", "told again", 1)
	if err := client.Data().Updater().WithMerge().WithClassName(class).WithID(target).
		WithProperties(map[string]any{"body": newBody}).Do(ctx(t)); err != nil {
		t.Fatalf("update %s: %v", target, err)
	}
	obj, err := client.Data().ObjectsGetter().WithClassName(class).WithID(target).WithVector().Do(ctx(t))
	if err != nil || len(obj) != 1 || fmt.Sprint(obj[0].Vector) != fmt.Sprint(docs[indexOfKey(class, docs, target)].Vector) {
		t.Fatalf("the update changed the vector or the object is gone: %v %v", err, obj)
	}
	var second []Hit
	_, uncached, _ := deferredDelta(t, func() { second = get(t, class, query, nil) })
	if uncached != 1 {
		t.Errorf("%v texts read by id after one object changed; want 1", uncached)
	}
	found := false
	for _, h := range second {
		if h.ID == target {
			found = true
			if h.Str("body") != newBody {
				t.Errorf("the updated object came back as %q; stored %q", h.Str("body"), newBody)
			}
		}
		if strings.Contains(h.Str("body"), "told once") && h.ID == target {
			t.Errorf("the old text of %s came back", target)
		}
	}
	if !found {
		t.Errorf("the updated object (same vector, same length) dropped out of the selection: %v", ids(second))
	}
}

// twelveFacts creates class (vectors given) with twelve facts of distinct
// 8-d vectors, each body ending in tail, and returns them.
func twelveFacts(t *testing.T, class, tail string) []Doc {
	t.Helper()
	createClass(t, &models.Class{Class: class, Vectorizer: "none", Properties: bodyProps()})
	docs := make([]Doc, 12)
	for i := range docs {
		v := make([]float32, 8)
		v[i%8], v[(i+1)%8] = 1, float32(i)/12
		docs[i] = Doc{Key: fmt.Sprint(i), Group: i, Body: fmt.Sprintf("fact %d about statins and the liver%s", i, tail), Vector: v}
	}
	importDocs(t, class, docs)
	return docs
}

func indexOfKey(class string, docs []Doc, id string) int {
	for i, d := range docs {
		if strfmt.UUID(uuidOf(class, d.Tenant+"/"+d.Key)).String() == id {
			return i
		}
	}
	return -1
}

// TestDeferredVectorUpdate: the search no longer loads the vectors the
// selection compares, which it takes from the feature cache by object
// version; an object whose vector is updated is a new version, so the next
// selection reads it - only it - and compares its new vector, never the
// cached old one: made a copy of another object's vector, one of the two is
// dropped as a near-copy.
func TestDeferredVectorUpdate(t *testing.T) {
	const class = "DeferredVector"
	docs := twelveFacts(t, class, "")
	query := sel(class, `nearVector: {vector: [1, 0.5, 0, 0, 0, 0, 0, 0]}, limit: 12`,
		`strategy: "topk", dedupThreshold: 0.999, maxResults: 12`, "body")
	get(t, class, query, nil) // the cache now holds every text and vector
	var first []Hit
	warm := deferredCounters(t, func() { first = get(t, class, query, nil) })
	if len(first) != 12 || warm.uncached != 0 || warm.cachedVectors != 12 {
		t.Fatalf("warm query: %d of 12 selected, %v read by id, %v vectors from the cache; want 12, 0, 12",
			len(first), warm.uncached, warm.cachedVectors)
	}
	a, b := uuidOf(class, "/0"), uuidOf(class, "/5")
	if err := client.Data().Updater().WithMerge().WithClassName(class).WithID(b).
		WithProperties(map[string]any{"body": docs[5].Body}).WithVector(docs[0].Vector).Do(ctx(t)); err != nil {
		t.Fatalf("update %s: %v", b, err)
	}
	var second []Hit
	after := deferredCounters(t, func() { second = get(t, class, query, nil) })
	if after.uncached != 1 || after.cachedVectors != 11 {
		t.Errorf("after one object's vector changed: %v read by id, %v vectors from the cache; want 1 and 11",
			after.uncached, after.cachedVectors)
	}
	both := 0
	for _, h := range second {
		if h.ID == a || h.ID == b {
			both++
		}
	}
	if len(second) != 11 || both != 1 {
		t.Errorf("%d selected, %d of the two objects that now share a vector; want 11 and 1 (the stale vector was compared): %v",
			len(second), both, ids(second))
	}
}
