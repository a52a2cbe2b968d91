package integration

import (
	"fmt"
	"strings"
	"testing"

	"github.com/weaviate/weaviate/entities/models"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"

	dsclient "github.com/diverse-select/diverse-select/clients/go"
	"github.com/diverse-select/diverse-select/integration/stack"
)

// The Widen corpus: three facts, each in ten near-copies (one word added at
// a different place), are the 30 most relevant objects; twenty distinct
// facts follow. A fixed pool of 30 is all copies of three chunks.
var widenFacts = []string{
	"The Eiffel Tower grows about fifteen centimetres taller in summer because its iron expands in the heat.",
	"Octopuses have three hearts and blue blood that carries oxygen with a copper based protein.",
	"Honey found in ancient Egyptian tombs was still edible after thousands of years in sealed jars.",
}

var widenFillers = []string{"also", "really", "indeed", "still", "often", "truly", "largely", "simply", "surely"}

var widenDistinct = []string{
	"Bananas are berries while strawberries are not, by the botanical definition of a berry.",
	"A day on Venus lasts longer than its year because the planet rotates very slowly.",
	"Wombats produce cube shaped droppings that stay put on rocks and logs.",
	"The shortest war in recorded history lasted less than forty minutes in 1896.",
	"Sharks existed before trees appeared on land, more than four hundred million years ago.",
	"A teaspoon of neutron star material would weigh about a billion tonnes on Earth.",
	"Sloths can hold their breath longer than dolphins by slowing their heart rate.",
	"The inventor of the frisbee was cremated and made into a frisbee after his death.",
	"Scotland has more than four hundred words and phrases for snow in its old dialects.",
	"Cleopatra lived closer in time to the moon landing than to the building of the Great Pyramid.",
	"An adult human skeleton has two hundred and six bones, a newborn nearly three hundred.",
	"Lightning strikes the Earth about forty to fifty times every second worldwide.",
	"Some turtles can breathe through their rear ends while hibernating under ice.",
	"The Pacific Ocean is wider than the Moon seen from end to end.",
	"Butterflies taste with sensors on their feet when they land on leaves.",
	"A group of flamingos is called a flamboyance by birdwatchers.",
	"Hot water can freeze faster than cold water under some conditions, the Mpemba effect.",
	"Venus is the only planet in the solar system that spins clockwise.",
	"Koalas sleep up to twenty two hours a day to save energy from their diet.",
	"There are more possible chess games than atoms in the observable universe.",
}

const widenDims = 32

// widenDocs builds the corpus with planted vectors: the query is axis 0;
// copies of fact f point along axis 1+f with relevance 0.95-0.002k, the
// distinct facts along their own axes with relevance 0.80-0.004i.
func widenDocs() []Doc {
	var docs []Doc
	for f, text := range widenFacts {
		for k := range 10 {
			body := text
			if k > 0 {
				words := strings.Fields(text)
				at := 1 + (k*3)%(len(words)-1)
				body = strings.Join(append(words[:at:at], append([]string{widenFillers[k-1]}, words[at:]...)...), " ")
			}
			dir := make([]float64, widenDims)
			dir[1+f] = 1
			dir[4+k] = 0.02 // a slight tilt per copy: distinct vectors, cosine ~0.999
			docs = append(docs, Doc{Key: fmt.Sprintf("f%d-copy%d", f, k), Group: f + 1, Body: body,
				Vector: plantedIn(widenDims, 0.95-0.002*float64(k)-0.0005*float64(f), dir)})
		}
	}
	for i, text := range widenDistinct {
		dir := make([]float64, widenDims)
		dir[12+i%20] = 1
		dir[1+i%3] = 0.3 // loosely related to one of the facts, as real neighbours are
		docs = append(docs, Doc{Key: fmt.Sprintf("d%d", i), Group: 100 + i, Body: text,
			Vector: plantedIn(widenDims, 0.80-0.004*float64(i), dir)})
	}
	return docs
}

// plantedIn is planted in dims dimensions: cosine rel to axis 0, the rest along dir.
func plantedIn(dims int, rel float64, dir []float64) []float32 {
	v := planted(rel, dir)
	if len(v) >= dims {
		return v[:dims]
	}
	out := make([]float32, dims)
	copy(out, v)
	return out
}

func widenClass(t testing.TB) (string, []Doc) {
	t.Helper()
	const class = "Widen"
	docs := widenDocs()
	ensure(t, class, func(t testing.TB) {
		createClass(t, &models.Class{Class: class, Vectorizer: "none", Properties: bodyProps(),
			ModuleConfig: map[string]any{rerankerName: map[string]any{"strategy": "coverage", "fill": true}, "generative-dummy": map[string]any{}}})
		importDocs(t, class, docs)
	})
	return class, docs
}

// TestWidenPool: on a corpus whose fixed pool of 30 is all copies of three
// chunks, the selection with that pool returns the three chunks and leaves
// the rest of its room unused; with widenTo the pool is retrieved again
// wider and the selection fills its limit with distinct facts - in both
// GraphQL forms and over gRPC.
func TestWidenPool(t *testing.T) {
	c, docs := widenClass(t)
	idx := index(c, docs)
	near := "nearVector: {vector: [1" + strings.Repeat(",0", widenDims-1) + "]}"
	distinct := func(hits []string) (groups map[int]int, copies int) {
		groups = map[int]int{}
		for _, id := range hits {
			d, ok := idx[id]
			if !ok {
				t.Fatalf("hit %s is not in the corpus", id)
			}
			groups[d.Group]++
			if groups[d.Group] > 1 {
				copies++
			}
		}
		return groups, copies
	}
	for _, strategy := range []string{"coverage", "mmr"} {
		for _, form := range []string{"argument", "field"} {
			t.Run(strategy+"/"+form, func(t *testing.T) {
				query := func(widen string) string {
					st := fmt.Sprintf("strategy: %q", strategy) + widen
					if strategy == "coverage" {
						st += ", fill: true" // widening aims at maxResults; the default would stop by its price first (TestStopReason)
					}
					if form == "argument" {
						return sel(c, near+", limit: 8", st+", candidates: 30", "body")
					}
					return field(c, near+", limit: 30", st+", maxResults: 8", "body")
				}
				fixed := get(t, c, query(""), nil)
				wide := get(t, c, query(", widenTo: 200"), nil)
				fg, fc := distinct(ids(fixed))
				wg, wc := distinct(ids(wide))
				t.Logf("fixed pool of 30: %d selected, %d distinct facts, %d copies, candidates %d; widened: %d selected, %d distinct, %d copies, candidates %d",
					len(fixed), len(fg), fc, fixed[0].DS.Candidates, len(wide), len(wg), wc, wide[0].DS.Candidates)
				if len(fixed) != 3 || fc != 0 {
					t.Errorf("fixed pool: %d selected with %d copies, want the 3 facts once each", len(fixed), fc)
				}
				if len(wide) != 8 || wc != 0 {
					t.Errorf("widened pool: %d selected with %d copies, want 8 distinct", len(wide), wc)
				}
				if got := wide[0].DS.Candidates; got != len(docs) {
					t.Errorf("widened selection saw %d candidates, want the whole corpus of %d", got, len(docs))
				}
				if from, ok := wide[0].DS.Stat("widenedFrom"); !ok || from != 30 {
					t.Errorf("stats widenedFrom = %v (%v), want 30", from, ok)
				}
				if _, ok := fixed[0].DS.Stat("widenedFrom"); ok {
					t.Error("the fixed pool says it was widened")
				}
			})
		}
	}
	t.Run("not widened when the pool has room for something new", func(t *testing.T) {
		hits := get(t, c, sel(c, near+", limit: 3", `strategy: "coverage", candidates: 30, widenTo: 200`, "body"), nil)
		if _, ok := hits[0].DS.Stat("widenedFrom"); ok || hits[0].DS.Candidates != 30 {
			t.Errorf("widened although the 3 results fill the limit: candidates %d", hits[0].DS.Candidates)
		}
	})
	t.Run("generate sees only the widened selection", func(t *testing.T) {
		q := fmt.Sprintf(`{ Get { %s(%s, limit: 8, diverseSelect: {candidates: 30, widenTo: 200, fill: true}) { body
			_additional { id generate(groupedResult: {task: "summarise", properties: ["body"]}) { groupedResult error } } } } }`, c, near)
		res := graphql(t, q, nil)
		if len(res.Errors) > 0 {
			t.Fatalf("query failed: %s", res.errText())
		}
		objs := res.Data.Get[c]
		var bodies []string
		for _, o := range objs {
			bodies = append(bodies, o["body"].(string))
		}
		gen, _ := objs[0]["_additional"].(map[string]any)["generate"].(map[string]any)
		answer, _ := gen["groupedResult"].(string)
		prompt, ok := stack.DummyPrompt(answer)
		if len(bodies) != 8 || !ok || !strings.HasSuffix(prompt, contextJSON(bodies)) {
			t.Errorf("%d objects; the LLM got %.300q, want the widened selection %.300q", len(bodies), prompt, contextJSON(bodies))
		}
	})
	t.Run("gRPC rerank", func(t *testing.T) {
		qv := make([]float32, widenDims)
		qv[0] = 1
		grpcIDsOf := func(widenTo int) []string {
			q := "facts"
			settings := dsclient.Options{MaxResults: dsclient.Int(8)}
			if widenTo > 0 {
				settings.WidenTo = dsclient.Int(widenTo)
			}
			reply, err := grpcc(t).Search(ctx(t), &pb.SearchRequest{
				Collection: c, Limit: 30,
				NearVector:  &pb.NearVector{Vectors: []*pb.Vectors{{VectorBytes: float32Bytes(qv)}}},
				Rerank:      &pb.Rerank{Property: rerankProperty(t, "body", settings), Query: &q},
				Metadata:    &pb.MetadataRequest{Uuid: true},
				Uses_123Api: true, Uses_125Api: true, Uses_127Api: true,
			})
			if err != nil {
				t.Fatalf("gRPC search: %v", err)
			}
			var out []string
			for _, r := range reply.Results {
				out = append(out, r.GetMetadata().GetId())
			}
			return out
		}
		fixed, wide := grpcIDsOf(0), grpcIDsOf(200)
		fg, fc := distinct(fixed)
		wg, wc := distinct(wide)
		t.Logf("gRPC: fixed %d selected (%d distinct), widened %d (%d distinct)", len(fixed), len(fg), len(wide), len(wg))
		if len(fixed) != 3 || fc != 0 || len(wide) != 8 || wc != 0 {
			t.Errorf("gRPC: fixed %d with %d copies (want 3, 0), widened %d with %d copies (want 8, 0)", len(fixed), fc, len(wide), wc)
		}
	})
}
