package coverage

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/text"
)

// offTopicPool: six chunks on the query's topic (three facets, each said
// twice in partly other words: not near-copies), a cluster of six chunks on
// another topic, less relevant and alike, that covers itself, and one
// chunk on neither.
func offTopicPool() []selectors.Candidate {
	return []selectors.Candidate{
		cand(0.90, 20, "", 1, 0.8, 0, 0, 0, 0.3, 0, 0),
		cand(0.88, 20, "", 1, 0.8, 0, 0, 0, 0, 0.3, 0),
		cand(0.86, 20, "", 1, 0, 0.8, 0, 0, 0.3, 0, 0),
		cand(0.84, 20, "", 1, 0, 0.8, 0, 0, 0, 0.3, 0),
		cand(0.82, 20, "", 1, 0, 0, 0.8, 0, 0.3, 0, 0),
		cand(0.80, 20, "", 1, 0, 0, 0.8, 0, 0, 0.3, 0),
		cand(0.60, 20, "", 0, 0, 0, 0, 1, 0.3, 0, 0),
		cand(0.59, 20, "", 0, 0, 0, 0, 1, 0, 0.3, 0),
		cand(0.58, 20, "", 0, 0, 0, 0, 1, 0, 0, 0.3),
		cand(0.57, 20, "", 0, 0, 0, 0, 1, 0.2, 0.2, 0),
		cand(0.56, 20, "", 0, 0, 0, 0, 1, 0, 0.2, 0.2),
		cand(0.55, 20, "", 0, 0, 0, 0, 1, 0.2, 0, 0.2),
		cand(0.20, 20, "", 0, 0, 0, 0, 0, 0, 0, 1),
	}
}

// TestOffTopicClusterUnderBudget: filling the budget with demand in
// proportion to relevance (fill: true) takes a chunk of the other topic's
// cluster first, since it covers five more; the default's price (the
// sharper demand and the relevance window) takes none of it - only under a
// budget that admits at most a quarter of the pool.
func TestOffTopicClusterUnderBudget(t *testing.T) {
	fill := map[string]any{"fill": true}
	tests := []struct {
		name     string
		params   map[string]any
		budget   int
		picks    int
		offTopic int
		stop     selectors.StopReason
	}{
		{"fill, three chunks", fill, 60, 3, 1, selectors.StopBudget},
		{"fill, five chunks", fill, 100, 5, 2, selectors.StopBudget},
		{"default, three chunks", nil, 60, 3, 0, selectors.StopBudget},
		{"default, a budget for more than a quarter: no price", nil, 100, 5, 2, selectors.StopBudget},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &selectors.Problem{Candidates: offTopicPool(), Budget: tc.budget}
			res := run(t, tc.params, p)
			sel := res.Indices()
			off := 0
			for _, i := range sel {
				if i >= 6 {
					off++
				}
			}
			assert.Len(t, sel, tc.picks)
			assert.Equal(t, tc.offTopic, off, "selected %v", sel)
			assert.Equal(t, tc.stop, res.Stop)
		})
	}
}

func TestOutsideWindow(t *testing.T) {
	rho := []float64{1, 0.9, 0.3, 0.6, 0.2, 0.5}
	c := make([]selectors.Candidate, len(rho))
	for i := range c {
		c[i].Tokens = 10
	}
	tests := []struct {
		name         string
		limit, floor float64
		want         []bool
	}{
		{"the two most relevant fill the window; all after it are below the floor", 20, 1, []bool{false, false, true, true, true, true}},
		{"a floor keeps the relevant ones after the window in", 20, 0.55, []bool{false, false, true, false, true, true}},
		{"the window reaches past its limit to the candidate that crosses it", 15, 0.55, []bool{false, false, true, false, true, true}},
		{"a window for the whole pool: none out", 60, 1, nil},
		{"no floor: none out", 20, 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, outsideWindow(rho, c, tc.limit, tc.floor, nil, pageFloor, nil))
		})
	}
	// Near-copies: a copy of a candidate the window counted adds no tokens,
	// so the window reaches one candidate further down.
	texts := []string{"alpha beta gamma delta", "alpha beta gamma delta", "epsilon zeta eta theta", "iota kappa lambda mu",
		"nu xi omicron pi", "rho sigma tau upsilon"}
	copies := slices.Clone(c)
	for i := range copies {
		copies[i].Text = texts[i]
	}
	guard := selectors.NewCopyGuard(&selectors.Problem{Candidates: copies})
	assert.Equal(t, []bool{false, false, true, true, true, true}, outsideWindow(rho, copies, 20, 1, nil, pageFloor, nil),
		"without the guard the copy fills the window")
	assert.Equal(t, []bool{false, false, true, false, true, true}, outsideWindow(rho, copies, 20, 1, nil, pageFloor, guard),
		"with it the window holds the best, its copy and the next")
	// The guard is asked about the windowCopyScan most relevant candidates
	// only: in a pool of copies of the best, the ones after them fill the
	// window again.
	n := windowCopyScan + 16
	same := make([]selectors.Candidate, n)
	desc := make([]float64, n)
	for i := range same {
		same[i] = selectors.Candidate{Text: "alpha beta gamma delta", Tokens: 10}
		desc[i] = 1 - float64(i)/float64(n)
	}
	out := outsideWindow(desc, same, 100, 1, nil, pageFloor, selectors.NewCopyGuard(&selectors.Problem{Candidates: same}))
	first := slices.Index(out, true)
	assert.Equal(t, windowCopyScan+9, first, "the window: the best, then nine after the scan")
	// A later page: the shown candidates (0 and 1) neither fill the window
	// nor are marked; its budget part admits only candidates at least
	// pageFloor of the best.
	pages := []struct {
		name      string
		shown     []bool
		pageFloor float64
		want      []bool
	}{
		{"the two most relevant unshown fill the window", []bool{true, true, false, false, false, false}, 0,
			[]bool{false, false, true, false, true, false}},
		{"below the page floor: out even in the window's budget", []bool{true, true, false, false, false, false}, 0.55,
			[]bool{false, false, true, false, true, true}},
		{"all but the least relevant shown", []bool{true, true, true, true, false, true}, 0.25,
			[]bool{false, false, false, false, true, false}},
	}
	for _, tc := range pages {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, outsideWindow(rho, c, 20, 0.55, tc.shown, tc.pageFloor, nil))
		})
	}
}

// pagedPool: six chunks on the query's topic, each on a facet of its own,
// of falling relevance (scaled: 1 down to 0.43, the last two below
// windowFloor), and five of another topic, alike and far less relevant
// (0.14 and under: below pageFloor).
func pagedPool() []selectors.Candidate {
	return []selectors.Candidate{
		cand(0.90, 40, "", 1, 0, 0, 0, 0, 0, 0),
		cand(0.85, 40, "", 0, 1, 0, 0, 0, 0, 0),
		cand(0.70, 40, "", 0, 0, 1, 0, 0, 0, 0),
		cand(0.60, 40, "", 0, 0, 0, 1, 0, 0, 0),
		cand(0.55, 40, "", 0, 0, 0, 0, 1, 0, 0),
		cand(0.50, 40, "", 0, 0, 0, 0, 0, 1, 0),
		cand(0.30, 40, "", 0, 0, 0, 0, 0, 0.3, 1),
		cand(0.28, 40, "", 0, 0, 0, 0, 0.2, 0, 1),
		cand(0.26, 40, "", 0, 0, 0.2, 0, 0, 0, 1),
		cand(0.24, 40, "", 0, 0.2, 0, 0, 0, 0, 1),
		cand(0.20, 40, "", 0.2, 0, 0, 0, 0, 0, 1),
	}
}

// TestPagesUntilNothingRelevant (issue 42): under a budget for one chunk
// (priced: the window is one chunk), pages continue while a chunk on the
// query's topic is unshown - also the two below windowFloor, which the
// first page's window leaves out - and the page after the last of them is
// empty, the last one exhausted, while the other topic's chunks are left.
func TestPagesUntilNothingRelevant(t *testing.T) {
	s, err := selectors.New(Name, nil)
	require.NoError(t, err)
	tests := []struct {
		name   string
		budget int
		pages  [][]int
	}{
		{"one chunk a page", 50, [][]int{{0}, {1}, {2}, {3}, {4}, {5}}},
		{"two chunks a page", 80, [][]int{{0, 1}, {2, 3}, {4, 5}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &selectors.Problem{Candidates: pagedPool(), Budget: tc.budget}
			var got [][]int
			offset := 0
			for k := 0; k < 12; k++ {
				pg, err := s.RunPage(context.Background(), p, offset, true)
				require.NoError(t, err)
				if len(pg.Items) == 0 {
					require.True(t, pg.Exhausted, "an empty page is exhausted")
					break
				}
				got = append(got, pg.Indices())
				assert.Equal(t, k == len(tc.pages)-1, pg.Exhausted, "page %d of %d: exhausted", k+1, len(tc.pages))
				offset += len(pg.Items)
			}
			assert.Equal(t, tc.pages, got)
		})
	}
}

func TestTightBudget(t *testing.T) {
	tests := []struct {
		name         string
		kbar         float64
		budget, pool int
		want         bool
	}{
		{"a quarter of the pool", 2.5, 100, 10, true},
		{"more than a quarter", 2.6, 100, 10, false},
		{"no budget", 1, 0, 10, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &selectors.Problem{Budget: tc.budget, Candidates: make([]selectors.Candidate, tc.pool)}
			assert.Equal(t, tc.want, tightBudget(tc.kbar, p))
		})
	}
}

// TestStopsWhenNothingPays: two chunks on the query, one more relevant
// chunk too long for what is left, and a tail of chunks far below the best
// that fit: the default stops under budget (price), fill: true spends the
// rest on the tail.
func TestStopsWhenNothingPays(t *testing.T) {
	c := []selectors.Candidate{
		cand(0.90, 20, "", 1, 0, 0, 0.2),
		cand(0.88, 20, "", 0, 1, 0, 0.2),
		cand(0.60, 50, "", 0, 0, 1, 0.2),
	}
	for i := range 12 {
		c = append(c, cand(0.30-0.001*float64(i), 20, "", 0, 0, float32(i%3)*0.3, 1))
	}
	p := &selectors.Problem{Candidates: c, Budget: 80}
	res := run(t, nil, p)
	assert.Equal(t, []int{0, 1}, res.Indices())
	assert.Equal(t, selectors.StopPrice, res.Stop)
	assert.Equal(t, 40, res.TokensLeft())
	res = run(t, map[string]any{"fill": true}, p)
	assert.Len(t, res.Indices(), 4)
	assert.Equal(t, selectors.StopBudget, res.Stop)
}

func TestTermGates(t *testing.T) {
	// One chunk far above nine alike: (1 - 0.2) / 0.24 = 3.0 deviations.
	decisive := rels(1, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2)
	tests := []struct {
		name   string
		c      []selectors.Candidate
		rho    []float64
		height float64
		want   []float64
	}{
		{"decisive: credit by relevance share cubed", decisive,
			[]float64{1, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.25}, 3,
			[]float64{1, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.015625}},
		// Even steps: the best is sqrt(3) (n-1)/sqrt(n^2-1) = 1.57 deviations up.
		{"flat: whole credit", rels(1, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1),
			[]float64{1, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1}, 1.57, nil},
		{"equal relevance: whole credit", rels(0.5, 0.5, 0.5), []float64{1, 1, 1}, 0, nil},
		{"no relevance at all: whole credit", decisive, make([]float64, 10), 3, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.InDelta(t, tc.height, headHeight(tc.c), 0.01)
			got := termGates(tc.rho, tc.c)
			if tc.want == nil {
				assert.Nil(t, got)
				return
			}
			assert.InDeltaSlice(t, tc.want, got, 1e-12)
		})
	}
}

// TestDecisivePoolCreditsTermsByRelevance: under a priced budget, a chunk
// far down a decisive ranking that names the question's rare word outbids,
// per token, the relevant chunk beside the best on its word alone; with the
// gate it no longer does and is not selected. In a flat pool its credit is
// whole.
func TestDecisivePoolCreditsTermsByRelevance(t *testing.T) {
	pool := func(rest float64) []selectors.Candidate {
		c := []selectors.Candidate{
			cand(0.95, 40, "Alpha river delta facts", 1, 0, 0),
			cand(0.90, 40, "Alpha river source", 0.9, 0.3, 0),
			cand(rest, 30, "zygote", 0, 0, 1),
		}
		for i := range 17 {
			c = append(c, cand(rest-0.001*float64(i), 40, "other things", 0, 0.1*float32(i%5), 1))
		}
		return c
	}
	p := &selectors.Problem{Candidates: pool(0.2), Budget: 80, Query: "alpha river zygote"}
	_, o := build(t, nil, p)
	require.NotNil(t, o.gate, "a decisive pool is gated")
	o.add(0) // the best goes first either way
	gated := []float64{o.gain(1) / 40, o.gain(2) / 30}
	gate := o.gate
	o.gate = nil
	whole := []float64{o.gain(1) / 40, o.gain(2) / 30}
	t.Logf("per token after the best, gated %v, whole %v, gates %v", gated, whole, gate[:3])
	assert.Greater(t, whole[1], whole[0], "without the gate the rare word outbids per token")
	assert.Less(t, gated[1], gated[0], "with it the relevant chunk wins")
	assert.Equal(t, []int{0, 1}, run(t, nil, p).Indices())

	flat := pool(0.2)
	for i := range flat {
		flat[i].Relevance = 0.95 - 0.04*float64(i)
	}
	// The decisive gate alone: in this flat pool the ranking agrees with the
	// query's words, and outsideTerms auto would gate the chunks outside
	// the window (TestOutsideTerms).
	fp := &selectors.Problem{Candidates: flat, Budget: 80, Query: "alpha river zygote"}
	require.GreaterOrEqual(t, poolAgreement(fp), wordsAgree, "the flat pool's ranking agrees with its words")
	_, o = build(t, map[string]any{"outsideTerms": OutsideTermsWhole}, fp)
	assert.Nil(t, o.gate, "a flat pool is not gated")
}

func TestOutsideGates(t *testing.T) {
	rho := []float64{1, 0.8, 0.5, 0.25}
	out := []bool{false, false, true, true}
	tests := []struct {
		name      string
		gate, rho []float64
		outside   []bool
		want      []float64
	}{
		{"outside: relevance share cubed", nil, rho, out, []float64{1, 1, 0.125, 0.015625}},
		{"a decisive pool's smaller gate stays", []float64{1, 0.512, 0.1, 0.5}, rho, out, []float64{1, 0.512, 0.1, 0.015625}},
		{"nothing outside: as given", nil, rho, nil, nil},
		{"an empty pool: as given", nil, nil, nil, nil},
		{"no relevance at all: as given", nil, make([]float64, 4), out, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := outsideGates(tc.gate, tc.rho, tc.outside)
			if tc.want == nil {
				assert.Nil(t, got)
				return
			}
			assert.InDeltaSlice(t, tc.want, got, 1e-12)
		})
	}
}

// TestOutsideTerms: under a priced budget, a short chunk outside the
// relevance window that names the question's rare word buys it per token
// ahead of the relevant chunk beside the best when its words count whole;
// with "relevance" it earns a share of the word by its relevance, and the
// relevant chunk is selected instead. "auto" (the default) does the latter
// only where the dense ranking agrees with the query's words: in a pool
// whose other chunks, without the query's words, rank below the short one
// (a pool wider than the query's topic), not where they rank above it (every
// chunk on the topic, the words telling them apart).
func TestOutsideTerms(t *testing.T) {
	// flat: seventeen chunks without the query's words rank above the short
	// one (dense ranking and words disagree); wide: four naming "river" rank
	// above it and thirteen without the query's words below it (they agree).
	pool := func(wide bool) *selectors.Problem {
		c := []selectors.Candidate{
			cand(0.95, 40, "Alpha river delta facts", 1, 0, 0),
			cand(0.90, 40, "Alpha river source", 0.9, 0.3, 0),
			cand(0.30, 20, "zygote", 0, 0, 1),
		}
		switch {
		case wide:
			for i := range 4 {
				c = append(c, cand(0.7-0.01*float64(i), 40, "river notes", 0, 0.1*float32(i%5), 1))
			}
			for i := range 13 {
				c = append(c, cand(0.25-0.01*float64(i), 40, "other things", 0, 0.1*float32(i%5), 1))
			}
		default:
			for i := range 17 {
				c = append(c, cand(0.85-0.03*float64(i), 40, "other things", 0, 0.1*float32(i%5), 1))
			}
		}
		return &selectors.Problem{Candidates: c, Budget: 80, Query: "alpha river zygote"}
	}
	tests := []struct {
		name         string
		p            *selectors.Problem
		agree        bool
		outsideTerms string
		want         []int
	}{
		{"flat pool, whole", pool(false), false, OutsideTermsWhole, []int{0, 2}},
		{"flat pool, relevance", pool(false), false, OutsideTermsRelevance, []int{0, 1}},
		{"flat pool, auto", pool(false), false, OutsideTermsAuto, []int{0, 2}},
		{"wide pool, whole", pool(true), true, OutsideTermsWhole, []int{0, 2}},
		{"wide pool, relevance", pool(true), true, OutsideTermsRelevance, []int{0, 1}},
		{"wide pool, auto", pool(true), true, OutsideTermsAuto, []int{0, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, o := build(t, map[string]any{"outsideTerms": OutsideTermsWhole}, tc.p)
			require.Nil(t, o.gate, "no decisive gate")
			require.True(t, o.outside[2], "the short chunk is outside the window")
			require.Equal(t, tc.agree, poolAgreement(tc.p) >= wordsAgree)
			res := run(t, map[string]any{"outsideTerms": tc.outsideTerms}, tc.p)
			assert.ElementsMatch(t, tc.want, res.Indices())
		})
	}
}

// poolAgreement is the rank agreement outsideTerms auto reads from p: its
// dense relevance against its lexical match with the query.
func poolAgreement(p *selectors.Problem) float64 {
	_, _, lex, _ := queryTerms(p, text.NewAnalyzer(), nil, nil)
	return rankAgreement(denseRelevance(p.Candidates), lex)
}

// TestByRho: decreasing relevance, ties in pool order, as a stable sort
// gives them - on random pools with many ties, against sorting indices.
func TestByRho(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	for n := range 200 {
		rho := make([]float64, n)
		for i := range rho {
			rho[i] = float64(rng.IntN(5)) / 4
		}
		want := make([]int, n)
		for i := range want {
			want[i] = i
		}
		slices.SortStableFunc(want, func(a, b int) int { return cmp.Compare(rho[b], rho[a]) })
		require.Equal(t, want, byRho(rho), "pool of %d", n)
	}
}
