package coverage

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/diverse-select/diverse-select/selectors"
)

func TestDemandPowerResolves(t *testing.T) {
	tests := []struct {
		name         string
		param, kbar  float64
		budget, pool int
		want         float64
	}{
		{"auto, a budget for a quarter of the pool", 0, 2.5, 100, 10, DefaultBudgetDemandPower},
		{"auto, a budget for more than a quarter", 0, 2.6, 100, 10, 1},
		{"auto without a budget", 0, 10, 0, 10, 1},
		{"explicit under a budget", 2, 5, 100, 10, 2},
		{"explicit without a budget", 3, 10, 0, 10, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &selectors.Problem{Budget: tc.budget, Candidates: make([]selectors.Candidate, tc.pool)}
			assert.Equal(t, tc.want, demandPower(tc.param, tc.kbar, p))
		})
	}
}

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

// TestOffTopicClusterUnderBudget: demand in proportion to relevance
// (demandPower 1, the default) takes a chunk of the other topic's cluster
// first, since it covers five more; the budget rule (demandPower 0), the
// relevance window and the cliff leave the cluster until the facets are
// covered and spend less of the budget on it - all three only under a
// budget that admits at most a quarter of the pool.
func TestOffTopicClusterUnderBudget(t *testing.T) {
	tests := []struct {
		name     string
		params   map[string]any
		budget   int
		offTopic int
	}{
		{"budget rule, three chunks", map[string]any{"demandPower": 0.0}, 60, 0},
		{"default (demand = relevance), three chunks", nil, 60, 1},
		{"budget rule, a budget for more than a quarter: demand = relevance", map[string]any{"demandPower": 0.0}, 100, 2},
		{"default (demand = relevance), five chunks", nil, 100, 2},
		{"window, three chunks", map[string]any{"window": 1.0}, 60, 0},
		{"window, a budget for more than a quarter: off", map[string]any{"window": 1.0}, 100, 2},
		// The largest drop is before the chunk on neither topic, not
		// between the topics: the cliff leaves the cluster's demand as it is.
		{"cliff, three chunks", map[string]any{"cliff": 0.2}, 60, 1},
		{"cliff, a budget for more than a quarter: off", map[string]any{"cliff": 0.2}, 100, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &selectors.Problem{Candidates: offTopicPool(), Budget: tc.budget}
			sel := run(t, tc.params, p).Indices()
			off := 0
			for _, i := range sel {
				if i >= 6 {
					off++
				}
			}
			assert.Len(t, sel, tc.budget/20)
			assert.Equal(t, tc.offTopic, off, "selected %v", sel)
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
			assert.Equal(t, tc.want, outsideWindow(rho, c, tc.limit, tc.floor))
		})
	}
}

func TestPastCliff(t *testing.T) {
	tests := []struct {
		name string
		rho  []float64
		gap  float64
		want []bool
	}{
		{"the largest drop, after two", []float64{0.9, 1, 0.3, 0.2}, 0.2, []bool{false, false, true, true}},
		{"a drop below gap: no cliff", []float64{1, 0.9, 0.8, 0.7}, 0.2, nil},
		{"ties keep pool order", []float64{1, 0.4, 1, 0.4}, 0.5, []bool{false, true, false, true}},
		{"one candidate", []float64{1}, 0.1, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, pastCliff(tc.rho, tc.gap))
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
