package all_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/internal/testprob"
)

// pages returns the indices of pages 1..n of p, each in selection order.
func pages(t *testing.T, s *selectors.Selector, p *selectors.Problem, n int) [][]int {
	t.Helper()
	var out [][]int
	offset := 0
	for range n {
		pg, err := s.RunPage(context.Background(), p, offset, false)
		require.NoError(t, err)
		require.Equal(t, offset, pg.Shown)
		idx := bySelection(pg.Items)
		for k, it := range pg.Items {
			require.Equal(t, offset+k+1, it.Rank, "ranks continue across pages")
		}
		out = append(out, idx)
		offset += len(idx)
	}
	return out
}

func bySelection(items []selectors.Item) []int {
	sorted := slices.Clone(items)
	slices.SortFunc(sorted, func(a, b selectors.Item) int { return a.Rank - b.Rank })
	idx := make([]int, len(sorted))
	for k, it := range sorted {
		idx[k] = it.Index
	}
	return idx
}

// The greedy strategies' pages are one greedy run cut into pieces: the
// union of pages 1..p (in order) is the selection with p times the page's
// limit, and, with equal token costs, p times its budget. The strategies'
// budget-calibrated terms are fixed or off here (adagres beta, coverage's
// query coverage, hop and fill): those are calibrated per page. Coverage
// under a budget that prices tokens pages past the run's end while a
// relevant chunk is left: there the run is the start of the pages.
func TestPagesContinueOneGreedyRun(t *testing.T) {
	strategies := []struct {
		name   string
		params map[string]any
	}{
		{"mmr", map[string]any{"lambda": 0.6}},
		{"adagres", map[string]any{"beta": 0.4}},
		{"dpp", nil},
		{"facility", nil},
		{"coverage", map[string]any{"fill": false, "queryCoverage": 0.0, "hop": 0.0, "parts": 0.0, "lexicalWeight": 0.0}},
		{"knapsack", map[string]any{"concepts": "clusters"}},
		{"topk", nil},
	}
	constraints := []struct {
		name           string
		limit, budget  int
		minTok, maxTok int
	}{
		{"limit", 4, 0, 1, 100},
		{"equal-cost budget", 0, 150, 50, 50},
		{"limit and equal-cost budget", 3, 200, 40, 40},
	}
	const nPages = 4
	for _, st := range strategies {
		for _, c := range constraints {
			t.Run(st.name+"/"+c.name, func(t *testing.T) {
				s, err := selectors.New(st.name, st.params)
				require.NoError(t, err)
				for seed := range uint64(5) {
					rng := rand.New(rand.NewPCG(seed, 19))
					p := testprob.Random(rng, testprob.Options{N: 60, Dim: 12, Clusters: 8, Positive: seed%2 == 0,
						MaxResults: c.limit, Budget: c.budget, MinTokens: c.minTok, MaxTokens: c.maxTok})
					got := pages(t, s, p, nPages)
					var union []int
					for _, pg := range got {
						union = append(union, pg...)
					}
					whole := *p
					whole.MaxResults, whole.Budget = c.limit*nPages, c.budget*nPages
					res, err := s.Run(context.Background(), &whole)
					require.NoError(t, err)
					if st.name == "coverage" && c.budget > 0 && len(union) > len(res.Items) {
						// Under a budget that prices tokens the one run ends
						// where nothing in its window pays; the pages go on
						// while an unshown relevant chunk is left (issue 42):
						// the run is where they start.
						union = union[:len(res.Items)]
					}
					require.Equal(t, bySelection(res.Items), union, "seed %d: pages %v", seed, got)
				}
			})
		}
	}
}

// Every strategy pages: pages never overlap, the same offset gives the same
// page, page 1 is Run's selection, and pages end (empty, exhausted) when the
// pool is spent.
func TestPagesEveryStrategy(t *testing.T) {
	for _, name := range selectors.Names() {
		t.Run(name, func(t *testing.T) {
			s, err := selectors.New(name, nil)
			require.NoError(t, err)
			rng := rand.New(rand.NewPCG(7, 19))
			p := testprob.Random(rng, testprob.Options{N: 40, Dim: 8, Clusters: 5, MaxResults: 5, Budget: 300})
			for i := range p.Candidates {
				p.Candidates[i].Text = textprobSentence(i)
			}
			first, err := s.Run(context.Background(), p)
			require.NoError(t, err)
			got := pages(t, s, p, 12)
			require.Equal(t, first.Indices(), pageOrder(t, s, p, 0), "page 1 is the selection, in its order")
			seen := map[int]bool{}
			ended := false
			for k, pg := range got {
				if ended {
					require.Empty(t, pg, "page %d after an empty page", k+1)
				}
				ended = len(pg) == 0
				for _, i := range pg {
					require.False(t, seen[i], "candidate %d on two pages", i)
					seen[i] = true
				}
			}
			require.True(t, ended, "12 pages of 5 spend a pool of 40")
			// The same offset, again: the same page.
			offset := len(got[0]) + len(got[1])
			a, err := s.RunPage(context.Background(), p, offset, true)
			require.NoError(t, err)
			b, err := s.RunPage(context.Background(), p, offset, true)
			require.NoError(t, err)
			require.Equal(t, a.Items, b.Items)
			require.Equal(t, got[2], bySelection(a.Items))
			// The last non-empty page says the pool is spent; the one before does not.
			last := 0
			offset = 0
			for k, pg := range got {
				if len(pg) > 0 {
					last = k
				}
			}
			for k := range last {
				offset += len(got[k])
			}
			end, err := s.RunPage(context.Background(), p, offset, true)
			require.NoError(t, err)
			require.Equal(t, got[last], bySelection(end.Items))
			require.True(t, end.Exhausted, "page %d is the last", last+1)
			if last > 0 {
				before, err := s.RunPage(context.Background(), p, offset-len(got[last-1]), true)
				require.NoError(t, err)
				require.False(t, before.Exhausted)
			}
		})
	}
}

func pageOrder(t *testing.T, s *selectors.Selector, p *selectors.Problem, offset int) []int {
	t.Helper()
	pg, err := s.RunPage(context.Background(), p, offset, false)
	require.NoError(t, err)
	return pg.Indices()
}

var pageWords = []string{"coffee", "storage", "espresso", "caffeine", "chain", "tyre", "pressure", "bean", "light", "heat",
	"degreaser", "kilometre", "shot", "container", "flavour", "bicycle"}

// textprobSentence is a deterministic distinct sentence per index, so the
// text strategies have something to read and no two texts are near-copies.
func textprobSentence(i int) string {
	out := ""
	for k := range 8 {
		out += pageWords[(i*7+k*k+i/3*k)%len(pageWords)] + " "
	}
	return out + pageWords[i%len(pageWords)]
}

// A strategy that continues never selects a near-copy of an item an
// earlier page showed.
func TestPagesNoNearCopyOfEarlierPages(t *testing.T) {
	base := []string{
		"Coffee beans keep their flavour longest in an airtight container away from light and heat.",
		"A single shot of espresso contains about sixty milligrams of caffeine.",
		"A bicycle chain should be cleaned with a degreaser every few hundred kilometres.",
		"Road bike tyres usually run between six and eight bar of pressure.",
	}
	var facts []plantedFact
	for _, b := range base {
		facts = append(facts, plantedFact{text: b, copies: []string{addWordAfterFirst(b, "also"), addWordAfterFirst(b, "really")}})
	}
	p, group := plantedPool(facts, 0.05)
	p.MaxResults = 1
	for _, name := range copyFree {
		t.Run(name, func(t *testing.T) {
			s, err := selectors.New(name, nil)
			require.NoError(t, err)
			got := pages(t, s, p, 6)
			facts := map[int]bool{}
			n := 0
			for _, pg := range got {
				for _, i := range pg {
					require.False(t, facts[group[i]], "page shows a copy of fact %d again", group[i])
					facts[group[i]] = true
					n++
				}
			}
			require.LessOrEqual(t, n, len(base))
		})
	}
}

func TestPageErrors(t *testing.T) {
	s, err := selectors.New("mmr", nil)
	require.NoError(t, err)
	p := testprob.Random(rand.New(rand.NewPCG(1, 2)), testprob.Options{N: 5, Dim: 4})
	_, err = s.RunPage(context.Background(), p, -1, false)
	require.ErrorContains(t, err, "offset must be >= 0")
	k, err := selectors.New("knapsack", map[string]any{"enumerate": 3})
	require.NoError(t, err)
	for i := range p.Candidates {
		p.Candidates[i].Text = textprobSentence(i)
	}
	p.MaxResults = 1
	_, err = k.RunPage(context.Background(), p, 1, false)
	require.ErrorContains(t, err, "enumerate")
	bad := *p
	bad.Preselected = []int{1, 1}
	_, err = s.Run(context.Background(), &bad)
	require.ErrorContains(t, err, "listed twice")
}

// An offset inside a page (a UI that showed part of a page) continues after
// the results shown: for a greedy strategy under a limit, the same run.
func TestPageOffsetInsideAPage(t *testing.T) {
	s, err := selectors.New("mmr", nil)
	require.NoError(t, err)
	p := testprob.Random(rand.New(rand.NewPCG(3, 19)), testprob.Options{N: 30, Dim: 8, Clusters: 4, MaxResults: 3})
	whole := *p
	whole.MaxResults = 9
	res, err := s.Run(context.Background(), &whole)
	require.NoError(t, err)
	run := bySelection(res.Items)
	pg, err := s.RunPage(context.Background(), p, 2, false)
	require.NoError(t, err)
	require.Equal(t, 2, pg.Shown)
	require.Equal(t, run[2:5], bySelection(pg.Items))
}
