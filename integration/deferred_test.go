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
	before := scrape(t)
	query()
	after := scrape(t)
	d := func(name string, labels ...string) float64 {
		return sample(after, name, labels...) - sample(before, name, labels...)
	}
	return d("diverse_select_deferred_selections_total"),
		d("diverse_select_deferred_reads_total", "reason", "uncached"),
		d("diverse_select_deferred_reads_total", "reason", "selected")
}

// TestDeferredProperties: on every route the search loads the pool without
// properties; the first query over new objects reads every candidate's text
// by id once, later ones read only the selected objects; and every selected
// object comes back whole, as stored (GraphQL both forms, GraphQL and gRPC
// rerank; nearText, hybrid and bm25).
func TestDeferredProperties(t *testing.T) {
	const class = "Deferred"
	createClass(t, &models.Class{
		Class:        class,
		Vectorizer:   "text2vec-transformers",
		ModuleConfig: withReranker(map[string]any{"textProperty": "body"}),
		Properties:   bodyProps(),
	})
	importDocs(t, class, healthDocs)
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
	n, uncached, selected := deferredDelta(t, func() { hits = get(t, class, sel(class, healthNear(pool), "", props), nil) })
	checkSelection(t, hits, 0, true)
	if n != 1 || uncached != float64(pool) || selected != 0 {
		t.Errorf("first query: %v deferred selections, %v texts and %v selected objects read by id; want 1, %d (the whole pool) and 0 (read with them)",
			n, uncached, selected, pool)
	}

	q := healthQuery
	gqlRerank := fmt.Sprintf(`{ Get { %s(%s) { %s _additional { id rerank(property: "body", query: %q) { score } } } } }`,
		class, healthNear(15), props, q)
	for _, tc := range []struct {
		name string
		run  func(t *testing.T) map[string]map[string]any // id -> properties
	}{
		{"argument nearText", func(t *testing.T) map[string]map[string]any {
			return byID(get(t, class, sel(class, healthNear(15), "", props), nil))
		}},
		{"field nearText", func(t *testing.T) map[string]map[string]any {
			return byID(get(t, class, field(class, healthNear(15), "", props), nil))
		}},
		{"argument hybrid", func(t *testing.T) map[string]map[string]any {
			return byID(get(t, class, sel(class, fmt.Sprintf(`hybrid: {query: %q, alpha: 0.5}, limit: 15`, q), "", props), nil))
		}},
		{"argument bm25", func(t *testing.T) map[string]map[string]any {
			return byID(get(t, class, sel(class, fmt.Sprintf(`bm25: {query: %q}, limit: 15`, q), "", props), nil))
		}},
		{"GraphQL rerank", func(t *testing.T) map[string]map[string]any {
			return byID(get(t, class, gqlRerank, nil))
		}},
		{"gRPC rerank", func(t *testing.T) map[string]map[string]any {
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
			n, uncached, selected := deferredDelta(t, func() { got = tc.run(t) })
			if len(got) == 0 || len(got) >= 15 {
				t.Fatalf("%d of 15 candidates selected", len(got))
			}
			if n != 1 || uncached != 0 || selected != float64(len(got)) {
				t.Errorf("%v deferred selections, %v texts and %v selected objects read by id; want 1, 0 (the cache holds "+
					"every text) and %d (the selected)", n, uncached, selected, len(got))
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
	createClass(t, &models.Class{Class: class, Vectorizer: "none", Properties: bodyProps()})
	docs := make([]Doc, 12)
	for i := range docs {
		v := make([]float32, 8)
		v[i%8], v[(i+1)%8] = 1, float32(i)/12
		docs[i] = Doc{Key: fmt.Sprint(i), Group: i, Body: fmt.Sprintf("fact %d about statins and the liver, told once", i), Vector: v}
	}
	importDocs(t, class, docs)
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

func indexOfKey(class string, docs []Doc, id string) int {
	for i, d := range docs {
		if strfmt.UUID(uuidOf(class, d.Tenant+"/"+d.Key)).String() == id {
			return i
		}
	}
	return -1
}
