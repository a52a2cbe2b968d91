package integration

import (
	"fmt"
	"math"
	"net/url"
	"sort"
	"testing"

	"github.com/weaviate/weaviate/entities/models"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/tokens"
)

// strategyTests holds one integration test per registered strategy, each
// asserting the property that strategy exists for, through the real server.
var strategyTests = map[string]func(t *testing.T){
	"topk":     testTopk,
	"relcost":  testRelcost,
	"adagres":  testAdagres,
	"mmr":      testMMR,
	"cliff":    testCliff,
	"knapsack": testKnapsack,
	"facility": testFacility,
	"ngram":    testNgram,
	"dpp":      testDPP,
	"coverage": testCoverage,
}

// TestStrategies runs every strategy's test; a registered strategy without
// one fails, so a new strategy cannot ship untested end to end.
func TestStrategies(t *testing.T) {
	names := selectors.Names()
	if len(names) == 0 {
		t.Fatal("no strategy registered")
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			test, ok := strategyTests[name]
			if !ok {
				t.Fatalf("strategy %q has no integration test: add one to strategyTests", name)
			}
			// Common ground: a valid selection on the Health corpus under a budget.
			c := health(t)
			hits := get(t, c, sel(c, healthNear(10), fmt.Sprintf(`strategy: %q, tokenBudget: 90, candidates: 19`, name), "body"), nil)
			checkSelection(t, hits, 90, true)
			if hits[0].DS.Strategy != name {
				t.Errorf("strategy %q reported, want %q", hits[0].DS.Strategy, name)
			}
			test(t)
		})
	}
	for name := range strategyTests {
		if _, ok := selectors.Lookup(name); !ok {
			t.Errorf("strategyTests has %q, which is not a registered strategy", name)
		}
	}
}

// testTopk: topk is the plain search order, filled greedily within the
// budget (fit "skip": an item that does not fit is passed over).
func testTopk(t *testing.T) {
	c := health(t)
	const budget = 75
	count := bpeCount(t, tokens.CL100K)
	plainHits := get(t, c, plain(c, healthNear(len(healthDocs)), "body"), nil)
	var want []Hit
	used := 0
	for _, h := range plainHits {
		if n := count(h.Str("body")); used+n <= budget {
			used += n
			want = append(want, h)
		}
	}
	got := get(t, c, sel(c, healthNear(len(healthDocs)), fmt.Sprintf(`strategy: "topk", tokenBudget: %d, candidates: %d`, budget, len(healthDocs)), "body"), nil)
	checkSelection(t, got, budget, true)
	if len(got) != len(want) {
		t.Fatalf("topk selected %d items, plain top-k within the budget has %d", len(got), len(want))
	}
	for i := range got {
		// Equal distances may come in either order.
		if got[i].ID != want[i].ID && math.Abs(*got[i].Distance-*want[i].Distance) > 1e-6 {
			t.Errorf("position %d: topk %q (distance %v), plain order %q (distance %v)",
				i, got[i].Str("body"), *got[i].Distance, want[i].Str("body"), *want[i].Distance)
		}
	}
	t.Run("fit stop", func(t *testing.T) {
		hits := get(t, c, sel(c, healthNear(len(healthDocs)), fmt.Sprintf(`strategy: "topk", fit: "stop", tokenBudget: %d, candidates: %d`, budget, len(healthDocs)), "body"), nil)
		checkSelection(t, hits, budget, true)
		for i, h := range hits {
			if h.ID != plainHits[i].ID && math.Abs(*h.Distance-*plainHits[i].Distance) > 1e-6 {
				t.Errorf("fit stop: position %d is not the plain order's", i)
			}
		}
	})
}

// testRelcost: relcost prefers short relevant chunks (relevance per token):
// the most relevant but long chunk loses to four short ones that fit
// together, while topk takes the long one and nothing else fits.
func testRelcost(t *testing.T) {
	c := plantedClass(t)
	count := bpeCount(t, tokens.CL100K)
	long := count(relcostLong)
	shortSum, shortMin := 0, math.MaxInt
	for _, d := range plantedAll {
		if d.Props["scen"] == scenRelcost && d.Key != "long" {
			shortSum += count(d.Body)
			shortMin = min(shortMin, count(d.Body))
		}
	}
	budget := long
	if shortSum > budget || long+shortMin <= budget {
		t.Fatalf("scenario broken: long %d tokens, shorts %d (min %d), budget %d", long, shortSum, shortMin, budget)
	}
	rel := get(t, c, sel(c, scenario(scenRelcost), fmt.Sprintf(`strategy: "relcost", tokenBudget: %d`, budget), "body"), nil)
	checkSelection(t, rel, budget, true)
	if len(rel) != 4 {
		t.Errorf("relcost selected %d items, want the 4 short ones", len(rel))
	}
	for i, h := range rel {
		if plantedIdx[h.ID].Key == "long" {
			t.Errorf("relcost selected the long chunk")
		}
		if i > 0 {
			prev := rel[i-1].DS.Relevance / float64(rel[i-1].DS.Tokens)
			if cur := h.DS.Relevance / float64(h.DS.Tokens); cur > prev+1e-12 {
				t.Errorf("position %d: relevance/token %v after %v: not in relcost order", i, cur, prev)
			}
		}
	}
	top := get(t, c, sel(c, scenario(scenRelcost), fmt.Sprintf(`strategy: "topk", tokenBudget: %d`, budget), "body"), nil)
	if len(top) != 1 || plantedIdx[top[0].ID].Key != "long" {
		t.Errorf("topk selected %d items starting with %q, want only the long chunk", len(top), plantedIdx[top[0].ID].Key)
	}
}

// testAdagres: adagres drops the planted duplicates, reports its calibrated
// beta, and a fixed beta of 0 (no redundancy penalty) brings them back.
func testAdagres(t *testing.T) {
	c := health(t)
	hits := get(t, c, sel(c, healthNear(10), `strategy: "adagres", tokenBudget: 120, candidates: 19`, "body"), nil)
	checkSelection(t, hits, 120, true)
	if pairs := duplicatePairs(groupsOf(t, hits, healthIdx)); len(pairs) > 0 || len(hits) < 2 {
		t.Errorf("adagres: %d items, duplicate pairs %v", len(hits), pairs)
	}
	d := hits[0].DS
	if d.Beta == nil || *d.Beta <= 0 {
		t.Fatalf("adagres reports beta %v, want the calibrated positive beta", d.Beta)
	}
	for _, s := range []string{"betaStar", "kbar", "eq", "ep"} {
		if _, ok := d.Stat(s); !ok {
			t.Errorf("adagres stats %v lack %q", d.Stats, s)
		}
	}
	// beta = lambda * beta* + beta0, clipped: lambda 0.5 halves it.
	half := get(t, c, sel(c, healthNear(10), `strategy: "adagres", tokenBudget: 120, candidates: 19, lambda: 0.5`, "body"), nil)
	if hb := *half[0].DS.Beta; math.Abs(hb-*d.Beta/2) > 1e-9 {
		t.Errorf("lambda 0.5 gives beta %v, want half of %v", hb, *d.Beta)
	}
	noPenalty := get(t, c, sel(c, healthNear(10), `strategy: "adagres", tokenBudget: 120, candidates: 19, beta: 0`, "body"), nil)
	if len(duplicatePairs(groupsOf(t, noPenalty, healthIdx))) == 0 {
		t.Errorf("adagres with beta 0 avoided every duplicate (%v): the penalty is not what removes them", groupsOf(t, noPenalty, healthIdx))
	}
	// On the planted clusters the zero-gain stop can end early: still >= 2 items, no duplicates.
	p := plantedClass(t)
	cl := get(t, p, sel(p, scenario(scenClusters), `strategy: "adagres", maxResults: 3`, "body"), nil)
	checkSelection(t, cl, 0, true)
	if pairs := duplicatePairs(groupsOf(t, cl, plantedIdx)); len(pairs) > 0 || len(cl) < 2 {
		t.Errorf("adagres on clusters: groups %v", groupsOf(t, cl, plantedIdx))
	}
}

// testMMR: mmr drops the planted duplicates; lambda 1 (relevance only) is
// topk's order without the near-copies.
func testMMR(t *testing.T) {
	c := health(t)
	hits := get(t, c, sel(c, healthNear(10), `strategy: "mmr", tokenBudget: 120, candidates: 19`, "body"), nil)
	checkSelection(t, hits, 120, true)
	if pairs := duplicatePairs(groupsOf(t, hits, healthIdx)); len(pairs) > 0 || len(hits) < 3 {
		t.Errorf("mmr: %d items, duplicate pairs %v", len(hits), pairs)
	}
	for i, h := range hits[1:] {
		if h.DS.Redundancy <= 0 || h.DS.Redundancy > 1+1e-6 {
			t.Errorf("pick %d: redundancy %v, want the max cosine to earlier picks in (0, 1]", i+2, h.DS.Redundancy)
		}
	}
	p := plantedClass(t)
	cl := get(t, p, sel(p, scenario(scenClusters), `strategy: "mmr", maxResults: 3`, "body"), nil)
	if g := groupsOf(t, cl, plantedIdx); len(cl) != 3 || len(duplicatePairs(g)) > 0 {
		t.Errorf("mmr on the clusters: groups %v, want one per cluster", g)
	}
	// lambda 1 ranks by relevance alone, but a near-copy of a pick is never
	// taken (selectors.CopyGuard): the planted cluster members are near-copies.
	rel := get(t, p, sel(p, scenario(scenClusters), `strategy: "mmr", maxResults: 3, lambda: 1`, "body"), nil)
	top := get(t, p, sel(p, scenario(scenClusters), `strategy: "topk", maxResults: 3`, "body"), nil)
	if g := groupsOf(t, rel, plantedIdx); fmt.Sprint(g) != "[301 302 303]" || rel[0].ID != top[0].ID {
		t.Errorf("mmr lambda 1 groups %v, want the most relevant, then no near-copy of it", g)
	}
}

// expectedCliff applies the cliff rule to relevances sorted descending: the
// first minK, then while the relative drop from the predecessor is <= g.
func expectedCliff(rel []float64, minK int, g float64) int {
	for i := 1; i < len(rel); i++ {
		if i < minK {
			continue
		}
		if rel[i-1] <= 0 || (rel[i-1]-rel[i])/rel[i-1] > g {
			return i
		}
	}
	return len(rel)
}

// testCliff: cliff stops at the planted score drop (nearVector with planted
// distances); the expected cutoff is computed from the plain search.
func testCliff(t *testing.T) {
	c := plantedClass(t)
	plainHits := get(t, c, plain(c, scenario(scenCliff), "body"), nil)
	rel := make([]float64, len(plainHits))
	for i, h := range plainHits {
		rel[i] = 1 - *h.Distance
	}
	if !sort.SliceIsSorted(rel, func(a, b int) bool { return rel[a] > rel[b] }) || len(rel) != len(cliffRelevances) {
		t.Fatalf("plain search relevances %v", rel)
	}
	for _, tc := range []struct {
		args string
		minK int
		g    float64
		want int // planted expectation, checked against the computed one
	}{
		{``, 1, 0.3, 4},
		{`minK: 6`, 6, 0.3, 7},
		{`g: 0.5`, 1, 0.5, 7},
		{`g: 0.01`, 1, 0.01, 1},
		{`minK: 9`, 9, 0.3, 9},
	} {
		t.Run(fmt.Sprintf("minK %d g %v", tc.minK, tc.g), func(t *testing.T) {
			want := expectedCliff(rel, tc.minK, tc.g)
			if want != tc.want {
				t.Fatalf("computed cutoff %d, planted %d: the scenario changed", want, tc.want)
			}
			args := `strategy: "cliff"`
			if tc.args != "" {
				args += ", " + tc.args
			}
			hits := get(t, c, sel(c, scenario(scenCliff), args, "body"), nil)
			checkSelection(t, hits, 0, true)
			if len(hits) != want {
				t.Fatalf("cliff kept %d items, want %d (relevances %v)", len(hits), want, rel)
			}
			for i, h := range hits {
				if h.ID != plainHits[i].ID {
					t.Errorf("position %d: %s, want %s (the cliff keeps the head of the ranking)", i, h.ID, plainHits[i].ID)
				}
			}
			if want < len(rel) {
				if r, _ := hits[0].DS.Stat("cutoffRank"); int(r) != want+1 {
					t.Errorf("cutoffRank %v, want %d", r, want+1)
				}
			}
		})
	}
}

// aspirinDocs: three near-duplicate statements (group 1) and three
// complementary facts with their own terms.
var aspirinDocs = []Doc{
	{Key: "a1", Group: 1, Body: "Aspirin reduces fever and eases mild pain."},
	{Key: "a2", Group: 1, Body: "Aspirin reduces fever and eases mild pain quickly."},
	{Key: "a3", Group: 1, Body: "Aspirin reduces a fever and eases mild pain."},
	{Key: "b", Group: 2, Body: "Aspirin thins the blood and prevents clots after a stroke."},
	{Key: "c", Group: 3, Body: "Aspirin irritates the stomach lining and can cause ulcers."},
	{Key: "d", Group: 4, Body: "Children with viral infections should not take aspirin because of Reye syndrome."},
}

// testKnapsack: knapsack (concepts: terms) covers the complementary facts
// instead of restating one, within the budget.
func testKnapsack(t *testing.T) {
	const class = "Aspirin"
	ensure(t, class, func(t testing.TB) {
		createClass(t, &models.Class{Class: class, Vectorizer: "text2vec-transformers", ModuleConfig: transformers(), Properties: bodyProps()})
		importDocs(t, class, aspirinDocs)
	})
	idx := index(class, aspirinDocs)
	search := `nearText: {concepts: ["aspirin"]}, limit: 6`
	top := get(t, class, sel(class, search, `strategy: "topk", maxResults: 4`, "body"), nil)
	if len(duplicatePairs(groupsOf(t, top, idx))) == 0 {
		t.Logf("note: topk's four %v hold no duplicate pair", groupsOf(t, top, idx))
	}
	// A budget that fits one chunk of each fact but not a second near-duplicate.
	count := bpeCount(t, tokens.CL100K)
	minA, facts := math.MaxInt, 0
	for _, d := range aspirinDocs {
		if d.Group == 1 {
			minA = min(minA, count(d.Body))
		} else {
			facts += count(d.Body)
		}
	}
	maxA := 0
	for _, d := range aspirinDocs {
		if d.Group == 1 {
			maxA = max(maxA, count(d.Body))
		}
	}
	budget := facts + maxA + minA - 1
	for _, b := range []int{0, budget} {
		args := `maxResults: 4`
		if b > 0 {
			args = fmt.Sprintf(`tokenBudget: %d`, b)
		}
		t.Run(args, func(t *testing.T) {
			hits := get(t, class, sel(class, search, `strategy: "knapsack", concepts: "terms", `+args, "body"), nil)
			checkSelection(t, hits, b, true)
			groups := groupsOf(t, hits, idx)
			covered := map[int]bool{}
			for _, g := range groups {
				covered[g] = true
			}
			if len(covered) != 4 || len(hits) != 4 {
				t.Errorf("knapsack groups %v, want each of the 4 facts once", groups)
			}
			if u, ok := hits[0].DS.Stat("universe"); !ok || u < 10 {
				t.Errorf("concept universe %v, want the pool's terms", u)
			}
		})
	}
}

// testFacility: facility location covers the three planted clusters with
// three picks, where topk takes three from the most relevant cluster.
func testFacility(t *testing.T) {
	c := plantedClass(t)
	top := get(t, c, sel(c, scenario(scenClusters), `strategy: "topk", maxResults: 3`, "body"), nil)
	if g := groupsOf(t, top, plantedIdx); fmt.Sprint(g) != "[301 301 301]" {
		t.Fatalf("scenario broken: topk groups %v", g)
	}
	for _, args := range []string{``, `, kernel: "euclidean"`, `, w2: 0.5`, `, nnz: 3`} {
		t.Run("facility"+args, func(t *testing.T) {
			hits := get(t, c, sel(c, scenario(scenClusters), `strategy: "facility", maxResults: 3`+args, "body"), nil)
			checkSelection(t, hits, 0, true)
			g := groupsOf(t, hits, plantedIdx)
			sort.Ints(g)
			if fmt.Sprint(g) != "[301 302 303]" {
				t.Errorf("facility groups %v, want one pick per cluster", g)
			}
		})
	}
}

// sourcesDocs: four chunks from one host, two from others.
var sourcesDocs = []Doc{
	{Key: "s1", Group: 1, Body: "Vitamin D helps the gut absorb calcium for strong bones.", Props: map[string]any{"url": "https://a.example/vitamin-d/1"}},
	{Key: "s2", Group: 1, Body: "Vitamin D and calcium together keep bones strong in older adults.", Props: map[string]any{"url": "https://a.example/vitamin-d/2"}},
	{Key: "s3", Group: 1, Body: "Vitamin D deficiency softens bones and causes rickets in children.", Props: map[string]any{"url": "https://a.example/vitamin-d/3"}},
	{Key: "s4", Group: 1, Body: "Sunlight on skin makes vitamin D, which bones need.", Props: map[string]any{"url": "https://a.example/vitamin-d/4"}},
	{Key: "s5", Group: 2, Body: "Vitamin D supplements reduce falls and fractures in some elderly people.", Props: map[string]any{"url": "https://b.example/falls"}},
	{Key: "s6", Group: 3, Body: "Too much vitamin D raises blood calcium and can damage the kidneys.", Props: map[string]any{"url": "https://c.example/too-much"}},
}

func hostOf(t testing.TB, h Hit) string {
	u, err := url.Parse(h.Str("url"))
	if err != nil || u.Host == "" {
		t.Fatalf("hit %s has no URL: %q", h.ID, h.Str("url"))
	}
	return u.Host
}

// testNgram: ngram spreads its picks over sources (sourceProperty from the
// class config), where topk takes them from the one host that ranks first.
func testNgram(t *testing.T) {
	const class = "Sources"
	ensure(t, class, func(t testing.TB) {
		createClass(t, &models.Class{
			Class:      class,
			Vectorizer: "text2vec-transformers",
			ModuleConfig: withDiverse(map[string]any{
				"textProperty": "body", "sourceProperty": "url",
			}),
			Properties: bodyProps(&models.Property{Name: "url", DataType: []string{"text"}, ModuleConfig: skipVectorization()}),
		})
		importDocs(t, class, sourcesDocs)
	})
	search := `nearText: {concepts: ["vitamin d bones"]}, limit: 6`
	hosts := func(hits []Hit) map[string]int {
		m := map[string]int{}
		for _, h := range hits {
			m[hostOf(t, h)]++
		}
		return m
	}
	top := get(t, class, sel(class, search, `strategy: "topk", maxResults: 3`, "body url"), nil)
	if h := hosts(top); len(h) != 1 {
		t.Logf("note: topk's three come from %v", h)
	}
	hits := get(t, class, sel(class, search, `strategy: "ngram", maxResults: 3, gamma: 1`, "body url"), nil)
	checkSelection(t, hits, 0, true)
	if h := hosts(hits); len(h) != 3 {
		t.Errorf("ngram's three picks come from hosts %v, want three different hosts", h)
	}
	t.Run("without a source every pick may share a host", func(t *testing.T) {
		noSrc := get(t, class, sel(class, search, `strategy: "ngram", maxResults: 3, gamma: 0`, "body url"), nil)
		checkSelection(t, noSrc, 0, true)
		if h := hosts(noSrc); len(h) == 3 {
			t.Logf("note: with gamma 0 the picks still come from %v", h)
		}
	})
	t.Run("k caps the selection", func(t *testing.T) {
		k := get(t, class, sel(class, search, `strategy: "ngram", k: 2`, "body url"), nil)
		checkSelection(t, k, 0, true)
		if len(k) != 2 {
			t.Errorf("ngram k 2 selected %d", len(k))
		}
	})
}

// testDPP: the DPP's greedy MAP avoids duplicates: one pick per planted
// cluster, and no duplicate pair on the Health corpus.
func testDPP(t *testing.T) {
	p := plantedClass(t)
	cl := get(t, p, sel(p, scenario(scenClusters), `strategy: "dpp", maxResults: 3`, "body"), nil)
	checkSelection(t, cl, 0, true)
	g := groupsOf(t, cl, plantedIdx)
	sort.Ints(g)
	if fmt.Sprint(g) != "[301 302 303]" {
		t.Errorf("dpp on the clusters: groups %v, want one per cluster", g)
	}
	c := health(t)
	hits := get(t, c, sel(c, healthNear(10), `strategy: "dpp", tokenBudget: 120, candidates: 19`, "body"), nil)
	checkSelection(t, hits, 120, true)
	if pairs := duplicatePairs(groupsOf(t, hits, healthIdx)); len(pairs) > 0 || len(hits) < 3 {
		t.Errorf("dpp: %d items, duplicate pairs %v", len(hits), pairs)
	}
}

// TestOutputOrder: order "relevance" and "edges" return the same set as
// "selection", rearranged as documented.
func TestOutputOrder(t *testing.T) {
	c := health(t)
	base := `strategy: "mmr", tokenBudget: 150, candidates: 19`
	selOrder := get(t, c, sel(c, healthNear(10), base, "body"), nil)
	checkSelection(t, selOrder, 150, true)
	n := len(selOrder)
	if n < 5 {
		t.Fatalf("only %d items: too few to see an order", n)
	}
	byRank := map[int]string{}
	for _, h := range selOrder {
		byRank[h.DS.Rank] = h.ID
	}
	for _, form := range []string{"argument", "field"} {
		t.Run("relevance/"+form, func(t *testing.T) {
			q := sel(c, healthNear(10), base+`, order: "relevance"`, "body")
			if form == "field" {
				q = field(c, healthNear(19), `strategy: "mmr", tokenBudget: 150, order: "relevance"`, "body")
			}
			hits := get(t, c, q, nil)
			checkSelection(t, hits, 150, false)
			if fmt.Sprint(sortedIDs(hits)) != fmt.Sprint(sortedIDs(selOrder)) {
				t.Errorf("order relevance returned another set")
			}
			for i := 1; i < len(hits); i++ {
				if hits[i].DS.Relevance > hits[i-1].DS.Relevance {
					t.Errorf("position %d: relevance %v after %v", i, hits[i].DS.Relevance, hits[i-1].DS.Relevance)
				}
			}
		})
		t.Run("edges/"+form, func(t *testing.T) {
			q := sel(c, healthNear(10), base+`, order: "edges"`, "body")
			if form == "field" {
				q = field(c, healthNear(19), `strategy: "mmr", tokenBudget: 150, order: "edges"`, "body")
			}
			hits := get(t, c, q, nil)
			checkSelection(t, hits, 150, false)
			// Ranks 1, 3, 5, ... fill the list from the front; 2, 4, 6, ... from the back.
			want := make([]int, n)
			front, back := 0, n-1
			for r := 1; r <= n; r++ {
				if r%2 == 1 {
					want[front] = r
					front++
				} else {
					want[back] = r
					back--
				}
			}
			got := make([]int, len(hits))
			for i, h := range hits {
				got[i] = h.DS.Rank
				if h.ID != byRank[h.DS.Rank] {
					t.Errorf("rank %d is %s in edges order but %s in selection order", h.DS.Rank, h.ID, byRank[h.DS.Rank])
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("edges order ranks %v, want %v", got, want)
			}
		})
	}
}

func sortedIDs(hits []Hit) []string {
	out := ids(hits)
	sort.Strings(out)
	return out
}

// TestDedupThreshold: candidates whose cosine to a more relevant one is >=
// the threshold are removed before selection; the count and the survivors
// match what the test computes from the hash vectors.
func TestDedupThreshold(t *testing.T) {
	c := health(t)
	all := get(t, c, plain(c, healthNear(len(healthDocs)), "body"), nil)
	for _, threshold := range []float64{0.99, 0.85, 0.6} {
		t.Run(fmt.Sprint(threshold), func(t *testing.T) {
			// Expected: j is removed when a more relevant i has cosine >= threshold.
			removed := 0
			for j := range all {
				for i := range all {
					ri, rj := 1-*all[i].Distance, 1-*all[j].Distance
					if ri > rj || (ri == rj && i < j) {
						s := cosine(all[i].Str("body"), all[j].Str("body"))
						if math.Abs(s-threshold) < 1e-3 {
							t.Fatalf("a pair's cosine %v is too close to the threshold %v for a stable test", s, threshold)
						}
						if s >= threshold {
							removed++
							break
						}
					}
				}
			}
			if removed == 0 {
				t.Fatalf("threshold %v removes nothing: not a test", threshold)
			}
			hits := get(t, c, sel(c, healthNear(len(healthDocs)), fmt.Sprintf(`strategy: "topk", dedupThreshold: %v, candidates: %d`, threshold, len(healthDocs)), "body"), nil)
			checkSelection(t, hits, 0, true)
			if got := hits[0].DS.Removed; got != removed {
				t.Errorf("removed %d, computed %d", got, removed)
			}
			if len(hits) != len(healthDocs)-removed {
				t.Errorf("%d selected, want all %d survivors", len(hits), len(healthDocs)-removed)
			}
			for i := range hits {
				for j := i + 1; j < len(hits); j++ {
					if s := cosine(hits[i].Str("body"), hits[j].Str("body")); s >= threshold {
						t.Errorf("survivors %q and %q have cosine %.3f >= %v", hits[i].Str("body"), hits[j].Str("body"), s, threshold)
					}
				}
			}
		})
	}
	t.Run("off by default", func(t *testing.T) {
		hits := get(t, c, sel(c, healthNear(len(healthDocs)), `strategy: "topk"`, "body"), nil)
		if hits[0].DS.Removed != 0 || len(duplicatePairs(groupsOf(t, hits, healthIdx))) == 0 {
			t.Errorf("without dedupThreshold: removed %d, groups %v", hits[0].DS.Removed, groupsOf(t, hits, healthIdx))
		}
	})
}

// testCoverage: the default strategy (chosen by tools/eval) is what a query
// without a strategy runs; it reports its statistics, spends the budget on
// new information rather than near-copies, and covers the three planted
// clusters with three picks.
func testCoverage(t *testing.T) {
	c := health(t)
	hits := get(t, c, sel(c, healthNear(10), `tokenBudget: 120, candidates: 19`, "body"), nil)
	checkSelection(t, hits, 120, true)
	if hits[0].DS.Strategy != "coverage" {
		t.Errorf("a query without a strategy ran %q, want the default coverage", hits[0].DS.Strategy)
	}
	for _, s := range []string{"kappa", "queryTerms"} {
		if _, ok := hits[0].DS.Stat(s); !ok {
			t.Errorf("coverage stats %v lack %q", hits[0].DS.Stats, s)
		}
	}
	// A selected chunk covers a candidate by their centred cosine squared.
	// The test embedder (feature hashing) puts the planted near-copies at a
	// cosine of only about 0.86 (GloVe: 0.997), so by default a near-copy
	// still counts a quarter new; it may come in late, once the distinct
	// chunks worth more are in, but far less often than in top-k.
	top := get(t, c, sel(c, healthNear(10), `strategy: "topk", tokenBudget: 120, candidates: 19`, "body"), nil)
	dup, topDup := duplicatePairs(groupsOf(t, hits, healthIdx)), duplicatePairs(groupsOf(t, top, healthIdx))
	if len(hits) < 5 || len(dup) > 1 || len(dup) >= len(topDup) {
		t.Errorf("coverage: %d items, duplicate pairs %v (topk: %v)", len(hits), dup, topDup)
	}
	for i, h := range hits[:min(5, len(hits))] {
		for _, g := range groupsOf(t, hits[:i], healthIdx) {
			if g == healthIdx[h.ID].Group {
				t.Errorf("pick %d repeats group %d among the first five", i+1, g)
			}
		}
	}
	// Cosine as coverage (power 1) covers the near-copies fully: none at all.
	lin := get(t, c, sel(c, healthNear(10), `tokenBudget: 120, candidates: 19, similarityPower: 1`, "body"), nil)
	checkSelection(t, lin, 120, true)
	if pairs := duplicatePairs(groupsOf(t, lin, healthIdx)); len(pairs) > 0 || len(lin) < 5 {
		t.Errorf("coverage with similarityPower 1: %d items, duplicate pairs %v", len(lin), pairs)
	}
	p := plantedClass(t)
	cl := get(t, p, sel(p, scenario(scenClusters), `strategy: "coverage", maxResults: 3`, "body"), nil)
	checkSelection(t, cl, 0, true)
	g := groupsOf(t, cl, plantedIdx)
	sort.Ints(g)
	if fmt.Sprint(g) != "[301 302 303]" {
		t.Errorf("coverage groups %v, want one pick per cluster", g)
	}
	t.Run("greedy both", testCoverageGreedyBoth)
	t.Run("outsideTerms", testCoverageOutsideTerms)
}

// testCoverageOutsideTerms: outsideTerms reaches the strategy through the
// module. On the Planted scenarios of words bought far down, at some budget
// "relevance" selects other chunks than "whole", and what it leaves out is
// less relevant than what it takes instead: a short chunk outside the
// relevance window no longer buys one of the query's words ahead of a
// relevant chunk that names it too. The default, "auto", selects as
// "whole" where the pool's ranking disagrees with its words (scenOutside:
// the chunks that name them are at the top and at the bottom) and as
// "relevance" where it agrees (scenOutsideWide).
func testCoverageOutsideTerms(t *testing.T) {
	c := plantedClass(t)
	for _, tc := range []struct {
		name  string
		scen  int
		agree bool
	}{
		{"ranking and words disagree", scenOutside, false},
		{"ranking and words agree", scenOutsideWide, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			query := func(budget int, outsideTerms string) []Hit {
				hits := get(t, c, sel(c, scenario(tc.scen), fmt.Sprintf(`tokenBudget: %d, query: %q, outsideTerms: %q`,
					budget, outsideQuery, outsideTerms), "body"), nil)
				checkSelection(t, hits, budget, true)
				return hits
			}
			for b := 40; b <= 200; b += 5 {
				whole, rel := query(b, "whole"), query(b, "relevance")
				if fmt.Sprint(ids(whole)) == fmt.Sprint(ids(rel)) {
					continue
				}
				left, taken := only(whole, rel), only(rel, whole)
				if len(left) == 0 || len(taken) == 0 {
					t.Fatalf("budget %d: outsideTerms \"relevance\" reorders \"whole\"'s selection %v as %v", b, ids(whole), ids(rel))
				}
				if !(maxDistance(left) > maxDistance(taken)) {
					t.Errorf("budget %d: \"relevance\" leaves out %v (farthest %.3f) for %v (farthest %.3f): not less relevant",
						b, plantedKeys(left), maxDistance(left), plantedKeys(taken), maxDistance(taken))
				}
				want, wantName := whole, "whole"
				if tc.agree {
					want, wantName = rel, "relevance"
				}
				if auto := query(b, "auto"); fmt.Sprint(ids(auto)) != fmt.Sprint(ids(want)) {
					t.Errorf("budget %d: \"auto\" selects %v, want \"%s\"'s %v", b, plantedKeys(auto), wantName, plantedKeys(want))
				}
				t.Logf("budget %d: \"whole\" %v, \"relevance\" %v", b, plantedKeys(whole), plantedKeys(rel))
				return
			}
			t.Fatal("scenario broken: outsideTerms \"relevance\" selects as \"whole\" at every budget from 40 to 200")
		})
	}
}

// plantedKeys returns the Planted keys of hits.
func plantedKeys(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = plantedIdx[h.ID].Key
	}
	return out
}

// healthCoverage selects with the default strategy from the whole Health
// pool (19 chunks) under budget, with these more settings, and checks the
// selection's contract.
func healthCoverage(t *testing.T, budget int, settings string) []Hit {
	t.Helper()
	const n = 19
	c := health(t)
	hits := get(t, c, sel(c, healthNear(n), fmt.Sprintf(`tokenBudget: %d, candidates: %d, %s`, budget, n, settings), "body"), nil)
	checkSelection(t, hits, budget, true)
	return hits
}

// only returns the hits of a whose IDs b lacks.
func only(a, b []Hit) []Hit {
	in := map[string]bool{}
	for _, h := range b {
		in[h.ID] = true
	}
	var out []Hit
	for _, h := range a {
		if !in[h.ID] {
			out = append(out, h)
		}
	}
	return out
}

// maxDistance is the largest query distance among hits.
func maxDistance(hits []Hit) float64 {
	d := 0.0
	for _, h := range hits {
		if h.Distance != nil {
			d = max(d, *h.Distance)
		}
	}
	return d
}

// testCoverageGreedyBoth: greedy "both" reaches the strategy and keeps its
// contract through the module. At some budget on the Health pool the
// plain-gain greedy's selection is kept (Stats "plainGain"); there it is
// not the density greedy's selection, and its objective is the larger.
func testCoverageGreedyBoth(t *testing.T) {
	query := func(greedy string, budget int) []Hit {
		return healthCoverage(t, budget, fmt.Sprintf(`greedy: %q`, greedy))
	}
	var both []Hit
	budget := 0
	for b := 30; b <= 600 && budget == 0; b += 5 {
		if hits := query("both", b); len(hits) > 0 {
			if v, _ := hits[0].DS.Stat("plainGain"); v == 1 {
				both, budget = hits, b
			}
		}
	}
	if budget == 0 {
		t.Fatal("scenario broken: greedy \"both\" kept the density greedy's selection at every budget from 30 to 600")
	}
	density := query("density", budget)
	if _, ok := density[0].DS.Stat("plainGain"); ok {
		t.Errorf("greedy \"density\" reports plainGain")
	}
	if fmt.Sprint(ids(both)) == fmt.Sprint(ids(density)) {
		t.Errorf("budget %d: greedy \"both\" kept the plain gain's selection, and it is the density greedy's %v", budget, ids(density))
	}
	if !(both[0].DS.Objective > density[0].DS.Objective) {
		t.Errorf("budget %d: greedy \"both\" objective %v, not above the density greedy's %v", budget, both[0].DS.Objective, density[0].DS.Objective)
	}
}
