package integration

import (
	"fmt"
	"strings"
	"testing"

	"github.com/weaviate/weaviate/entities/models"
)

// The planted near-copies of issue 15, as a new user meets them: a small
// corpus where each fact is written once, and two facts per topic are
// planted again as near-copies - the sentences reordered, one added word,
// an added clause. Asked about a topic under a budget of 160 tokens, the
// default strategy must never return two copies of one fact: with a pool
// of 6 (the 4 + 2 copies), with autocut leaving a small pool, and with a
// pool of 30 where the fill phase has room to spare.

// copyTopic is one topic: a query, the two planted facts (two sentences
// each) and facts written once.
type copyTopic struct {
	query  string
	a, b   [2]string
	others []string
}

var copyTopics = []copyTopic{
	{
		query: "How should coffee beans be stored and how much caffeine does espresso contain?",
		a: [2]string{"Coffee beans keep their flavour longest in an airtight container away from light and heat.",
			"Storing coffee beans in the fridge lets them absorb moisture and the smell of other food."},
		b: [2]string{"A single shot of espresso contains about sixty milligrams of caffeine.",
			"Espresso has more caffeine per millilitre than drip coffee but less per serving."},
		others: []string{
			"Arabica plants grow best at high altitude in tropical climates with steady rainfall.",
			"Cold brew is made by steeping ground coffee in cold water for twelve to twenty hours.",
			"Light roasts keep more of the bean's acidity while dark roasts taste more bitter.",
			"Decaffeinated coffee is usually processed with water or carbon dioxide before roasting.",
		},
	},
	{
		query: "How do I keep a bicycle chain clean and what tyre pressure should road bikes use?",
		a: [2]string{"A bicycle chain should be cleaned with a degreaser and a brush every few hundred kilometres.",
			"After cleaning, a drop of lubricant on each roller keeps the chain quiet and protects it from rust."},
		b: [2]string{"Road bike tyres usually run between six and eight bar of pressure.",
			"Heavier riders and narrow tyres need pressure near the top of that range."},
		others: []string{
			"Disc brakes stop reliably in the rain because the rotor sits far from the muddy rim.",
			"A worn cassette makes a new chain skip under load, so both are often replaced together.",
			"Tubeless tyres seal small punctures with liquid sealant inside the tyre.",
			"Saddle height is right when the knee stays slightly bent at the bottom of the pedal stroke.",
		},
	},
	{
		query: "Why do volcanoes erupt explosively and how is volcanic ash dangerous to aircraft?",
		a: [2]string{"Explosive eruptions happen when thick magma traps gas until the pressure shatters the rock above.",
			"Magma rich in silica is viscous, so gas bubbles cannot escape gently as they do in runny basalt."},
		b: [2]string{"Volcanic ash melts inside jet engines and can make them stall in flight.",
			"Aviation authorities close airspace when an ash cloud drifts across flight routes."},
		others: []string{
			"Shield volcanoes such as those of Hawaii are built from many thin flows of fluid lava.",
			"Lahars are mudflows of ash and water that race down river valleys after an eruption.",
			"Scientists watch for swelling ground and rising sulphur dioxide before an eruption.",
			"Volcanic soils are fertile because the weathered ash releases potassium and phosphorus.",
		},
	},
	{
		query: "How do honeybees communicate where flowers are and why are bee colonies collapsing?",
		a: [2]string{"Honeybees share the location of flowers with a waggle dance inside the hive.",
			"The angle of the dance shows the direction of the food and its length shows the distance."},
		b: [2]string{"Colony collapse is linked to varroa mites, pesticides and a lack of varied forage.",
			"Weakened colonies lose their worker bees while the queen and the brood are left behind."},
		others: []string{
			"A queen bee can lay more than a thousand eggs a day in early summer.",
			"Bees make wax from glands on their abdomen and shape it into hexagonal cells.",
			"Beekeepers wear veils and use smoke to calm the colony while inspecting frames.",
			"Honey never spoils because its low water content and acidity stop microbes from growing.",
		},
	},
}

// nearCopyDocs builds the corpus: per topic, fact a in four forms and
// fact b in two (the copies share a group), then the other facts once.
func nearCopyDocs() []Doc {
	var docs []Doc
	for ti, tp := range copyTopics {
		ga, gb := 100*ti+1, 100*ti+2
		a, b := tp.a, tp.b
		forms := []struct {
			group int
			body  string
		}{
			{ga, a[0] + " " + a[1]},
			{ga, a[1] + " " + a[0]},                  // sentences reordered
			{ga, addWord(a[0], "also") + " " + a[1]}, // one added word
			{ga, a[0] + " " + strings.TrimSuffix(a[1], ".") + ", as most guides point out at length."}, // an added clause
			{gb, b[0] + " " + b[1]},
			{gb, addWord(b[0], "really") + " " + b[1]},
		}
		for k, f := range forms {
			docs = append(docs, Doc{Key: fmt.Sprintf("t%d-copy%d", ti, k), Group: f.group, Body: f.body})
		}
		for k, o := range tp.others {
			docs = append(docs, Doc{Key: fmt.Sprintf("t%d-other%d", ti, k), Group: 100*ti + 10 + k, Body: o})
		}
	}
	return docs
}

// addWord inserts w after the first word of s.
func addWord(s, w string) string {
	first, rest, _ := strings.Cut(s, " ")
	return first + " " + w + " " + rest
}

// TestDefaultSelectsNoNearCopy: the default strategy returns no two copies
// of one fact, in every case of the issue, on every topic; topk on the
// same pools does (so the scenario really plants copies in the pool).
func TestDefaultSelectsNoNearCopy(t *testing.T) {
	const class = "PlantedCopies"
	docs := nearCopyDocs()
	ensure(t, class, func(t testing.TB) {
		createClass(t, &models.Class{Class: class, Vectorizer: "text2vec-transformers", ModuleConfig: transformers(), Properties: bodyProps()})
		importDocs(t, class, docs)
	})
	idx := index(class, docs)
	cases := []struct {
		name, search, args string
	}{
		{"pool of 6", `nearText: {concepts: [%q]}`, `candidates: 6`},
		{"autocut 1", `nearText: {concepts: [%q]}, autocut: 1`, `candidates: 30`},
		{"pool of 30", `nearText: {concepts: [%q]}`, `candidates: 30`},
	}
	topkCopies := 0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, tp := range copyTopics {
				search := fmt.Sprintf(tc.search, tp.query)
				hits := get(t, class, sel(class, search, `tokenBudget: 160, `+tc.args, "body"), nil)
				checkSelection(t, hits, 160, true)
				groups := groupsOf(t, hits, idx)
				for _, p := range duplicatePairs(groups) {
					t.Errorf("%q: near-copies selected together:\n  %q\n  %q", tp.query, hits[p[0]].Str("body"), hits[p[1]].Str("body"))
				}
				top := get(t, class, sel(class, search, `strategy: "topk", tokenBudget: 160, `+tc.args, "body"), nil)
				topkCopies += len(duplicatePairs(groupsOf(t, top, idx)))
			}
		})
	}
	if topkCopies == 0 {
		t.Errorf("scenario broken: topk selected no near-copy pair on these pools, so the test shows nothing")
	}
	t.Logf("topk selected %d near-copy pairs on the same pools", topkCopies)
}
