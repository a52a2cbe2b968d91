package coverage

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/diverse-select/diverse-select/selectors"
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
			assert.Equal(t, tc.want, outsideWindow(rho, c, tc.limit, tc.floor, nil))
		})
	}
	// Candidate 1 copies candidate 0: it adds no tokens, so the window
	// reaches candidate 3 as well (issue 42: a pool that begins with
	// copies of one paragraph).
	copyOf := func(members []int, d int) bool { return d == 1 && slices.Contains(members, 0) }
	assert.Equal(t, []bool{false, false, true, false, true, true}, outsideWindow(rho, c, 20, 1, copyOf))
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
