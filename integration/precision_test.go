package integration

import (
	"fmt"
	"slices"
	"testing"

	"github.com/weaviate/weaviate/entities/models"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"

	dsclient "github.com/diverse-select/diverse-select/clients/go"
)

// Issues 29 and 34, as a new user meets them: a collection of four topics
// with four facets each, two facets per topic planted again as near-copies
// (the sentences reordered), and one broad question per topic; nearText
// with a pool of 30 (larger than one topic: the whole collection), a budget
// of 160 tokens. The default must cover more facets of the question's
// topic than top-k and spend fewer picks than top-k on chunks of other
// topics.

// facetTopic is one topic: its question and four facets (two sentences each).
type facetTopic struct {
	query  string
	facets [4][2]string
}

var facetTopics = []facetTopic{
	{
		query: "What should I know about volcanoes?",
		facets: [4][2]string{
			{"Volcanoes erupt when magma rises through cracks in the crust of the earth.", "Gas trapped in thick magma makes the eruptions of some volcanoes explosive."},
			{"Volcanic ash from erupting volcanoes can stop jet engines and close airspace.", "Fine ash also damages lungs and collapses roofs near volcanoes."},
			{"Volcanoes form where tectonic plates pull apart or one plate sinks under another.", "The ring of fire around the Pacific holds most active volcanoes."},
			{"Scientists monitor volcanoes for swelling ground and small earthquakes.", "Rising sulphur gas from volcanoes often warns of an eruption days ahead."},
		},
	},
	{
		query: "How is bread made?",
		facets: [4][2]string{
			{"Bread is made by mixing flour, water, salt and yeast into a dough.", "Kneading the bread dough builds gluten, which traps gas and gives bread its structure."},
			{"Yeast ferments the sugars in bread dough and releases carbon dioxide.", "The dough of bread rises for an hour or more while the yeast works."},
			{"Bread is baked in a hot oven until the crust browns and the inside sets.", "Steam in the oven early on lets the bread expand before the crust hardens."},
			{"Sourdough bread is made with a starter of wild yeast and bacteria instead of baker's yeast.", "The bacteria give sourdough bread its sour taste and keep it fresh longer."},
		},
	},
	{
		query: "How do honeybees live in a colony?",
		facets: [4][2]string{
			{"A honeybee colony has one queen, thousands of female workers and a few hundred male drones.", "The queen of the colony lays all the eggs while workers do every other job."},
			{"Honeybees tell each other where flowers are with a waggle dance in the colony.", "The angle of the dance shows the direction of the flowers and its length the distance."},
			{"Worker honeybees build wax comb of hexagonal cells inside the colony.", "The cells of the comb hold honey, pollen and the growing young bees."},
			{"In winter honeybees cluster together in the colony and shiver to keep warm.", "The colony lives on the honey stored during summer until spring flowers open."},
		},
	},
	{
		query: "What do satellites do in orbit?",
		facets: [4][2]string{
			{"Communication satellites in orbit relay television, phone and internet signals around the world.", "Geostationary satellites stay above one spot of the equator for this reason."},
			{"Navigation satellites in orbit send timed signals that receivers use to find their position.", "Four or more satellites must be in view for a position fix."},
			{"Weather satellites in orbit photograph clouds and measure the temperature of the air.", "Their images let forecasters track storms and hurricanes as they form."},
			{"Imaging satellites in orbit map land, forests, ice and cities in fine detail.", "Repeated images from satellites show how a coastline or a glacier changes over years."},
		},
	},
}

// facetGroup is the planted group of a topic's facet (near-copies share it).
func facetGroup(topic, facet int) int { return 100*topic + facet }

// facetDocs builds the corpus: every facet once, and facets 0 and 1 of
// every topic again with their sentences in the other order.
func facetDocs() []Doc {
	var docs []Doc
	for ti, tp := range facetTopics {
		for fi, f := range tp.facets {
			docs = append(docs, Doc{Key: fmt.Sprintf("t%d-f%d", ti, fi), Group: facetGroup(ti, fi), Body: f[0] + " " + f[1]})
			if fi < 2 {
				docs = append(docs, Doc{Key: fmt.Sprintf("t%d-f%d-copy", ti, fi), Group: facetGroup(ti, fi), Body: f[1] + " " + f[0]})
			}
		}
	}
	return docs
}

// TestDefaultAnswersTheQuery: summed over the four questions, the default
// covers more facets of the question's topic than top-k, picks fewer
// chunks of other topics than top-k, and never two forms of one facet.
func TestDefaultAnswersTheQuery(t *testing.T) {
	const class = "FacetTopics"
	docs := facetDocs()
	ensure(t, class, func(t testing.TB) {
		createClass(t, &models.Class{Class: class, Vectorizer: "text2vec-transformers", ModuleConfig: transformers(), Properties: bodyProps()})
		importDocs(t, class, docs)
	})
	idx := index(class, docs)
	const defaultArgs = `strategy: "coverage"`
	type tally struct{ facets, offTopic, picks int }
	count := func(args string) tally {
		var n tally
		for ti, tp := range facetTopics {
			search := fmt.Sprintf(`nearText: {concepts: [%q]}`, tp.query)
			hits := get(t, class, sel(class, search, args+`, tokenBudget: 160, candidates: 30`, "body"), nil)
			checkSelection(t, hits, 160, true)
			seen := map[int]bool{}
			for i, g := range groupsOf(t, hits, idx) {
				n.picks++
				switch {
				case g/100 != ti:
					n.offTopic++
					t.Logf("%s, %q: pick %d is of another topic: %q", args, tp.query, i+1, hits[i].Str("body"))
				case !seen[g]:
					seen[g] = true
					n.facets++
				}
			}
			if args == defaultArgs && len(duplicatePairs(groupsOf(t, hits, idx))) > 0 {
				t.Errorf("%q: the default selected two forms of one facet", tp.query)
			}
		}
		return n
	}
	def, top, before := count(defaultArgs), count(`strategy: "topk"`), count(`strategy: "coverage", fill: true`)
	t.Logf("default: %d facets, %d of %d picks of other topics; top-k: %d facets, %d of %d; fill: true (the default before): %d facets, %d of %d",
		def.facets, def.offTopic, def.picks, top.facets, top.offTopic, top.picks, before.facets, before.offTopic, before.picks)
	if def.offTopic >= top.offTopic {
		t.Errorf("the default picked %d chunks of other topics, top-k %d (want fewer)", def.offTopic, top.offTopic)
	}
	if def.facets <= top.facets {
		t.Errorf("the default covered %d facets, top-k %d (want more)", def.facets, top.facets)
	}
}

// TestStopReason: each pick's explanation says why the selection ended and
// what it left of the budget, through GraphQL and the gRPC explainScore
// (read by the Go client helper), for each of the four reasons.
func TestStopReason(t *testing.T) {
	const class = "FacetTopics"
	docs := facetDocs()
	ensure(t, class, func(t testing.TB) {
		createClass(t, &models.Class{Class: class, Vectorizer: "text2vec-transformers", ModuleConfig: transformers(), Properties: bodyProps()})
		importDocs(t, class, docs)
	})
	search := fmt.Sprintf(`nearText: {concepts: [%q]}`, facetTopics[1].query)
	for _, tc := range []struct {
		name, args string
		budget     int
		want       []string
	}{
		{"top-k: the next chunk does not fit", `strategy: "topk", tokenBudget: 160, candidates: 30`, 160, []string{"budget"}},
		{"maxResults", `strategy: "coverage", tokenBudget: 1000, maxResults: 2, candidates: 30`, 1000, []string{"maxResults"}},
		{"the pool is spent", `strategy: "topk", tokenBudget: 100000, candidates: 3`, 100000, []string{"pool"}},
		// The default under a budget for a fraction of the pool: it ends by
		// the budget or because nothing left pays for its tokens.
		{"the default", `strategy: "coverage", tokenBudget: 160, candidates: 30`, 160, []string{"budget", "price"}},
	} {
		hits := get(t, class, sel(class, search, tc.args, "body"), nil)
		checkSelection(t, hits, tc.budget, true)
		for _, h := range hits {
			if !slices.Contains(tc.want, h.DS.StopReason) || h.DS.TokensLeft != tc.budget-h.DS.TokensUsed {
				t.Errorf("%s: stopReason %q, tokensLeft %d (used %d of %d); want one of %v", tc.name, h.DS.StopReason,
					h.DS.TokensLeft, h.DS.TokensUsed, tc.budget, tc.want)
			}
		}
		t.Logf("%s: stopReason %s, %d of %d tokens left", tc.name, hits[0].DS.StopReason, hits[0].DS.TokensLeft, tc.budget)
	}

	// gRPC: the official client's connection, the reranker route, the
	// explanation in explainScore as the Go helper reads it.
	c := rerankHealth(t)
	for _, tc := range []struct {
		name string
		o    dsclient.Options
		want string
	}{
		{"maxResults", dsclient.Options{Strategy: dsclient.StrategyMMR, MaxResults: dsclient.Int(2)}, "maxResults"},
		{"budget", dsclient.Options{Strategy: dsclient.StrategyTopK, TokenBudget: dsclient.Int(60)}, "budget"},
	} {
		req := rerankRequest(c, len(healthDocs))
		req.NearText = &pb.NearTextSearch{Query: []string{healthQuery}}
		req.Metadata.ExplainScore = true
		req.Rerank.Property = rerankProperty(t, "body", tc.o)
		reply, err := grpcc(t).Search(ctx(t), req)
		if err != nil {
			t.Fatalf("gRPC %s: %v", tc.name, err)
		}
		if len(reply.Results) == 0 {
			t.Fatalf("gRPC %s: no results", tc.name)
		}
		for _, r := range reply.Results {
			e := dsclient.Explain(r.GetMetadata().GetExplainScore())
			if e == nil {
				t.Fatalf("gRPC %s: no explanation in %q", tc.name, r.GetMetadata().GetExplainScore())
			}
			if e.StopReason != tc.want || (e.Budget > 0 && e.TokensLeft != e.Budget-e.TokensUsed) {
				t.Errorf("gRPC %s: stopReason %q, tokensLeft %d (used %d of %d); want %q", tc.name, e.StopReason,
					e.TokensLeft, e.TokensUsed, e.Budget, tc.want)
			}
		}
	}
}
