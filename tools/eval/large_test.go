package main

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/coverage"
)

func TestOpenCorpusTop(t *testing.T) {
	// Cosines to q = (1, 0): 1, 0, 0.6, 0.6, -1 (unit vectors).
	c := &openCorpus{vecs: [][]float32{{1, 0}, {0, 1}, {0.6, 0.8}, {0.6, -0.8}, {-1, 0}}}
	tests := []struct {
		n    int
		want []int
	}{
		{1, []int{0}},
		{3, []int{0, 2, 3}}, // the tie 2/3 in corpus order
		{5, []int{0, 2, 3, 1, 4}},
		{9, []int{0, 2, 3, 1, 4}}, // a pool larger than the corpus is the corpus
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, c.top([]float32{1, 0}, tc.n), "n=%d", tc.n)
	}
}

func TestHotpotCorpus(t *testing.T) {
	qs := []hotpotQuestion{
		{Paras: []hotpotPara{{Title: "A", Text: "a"}, {Title: "B", Text: "b", Gold: true}}},
		{Paras: []hotpotPara{{Title: "B", Text: "b"}, {Title: "C", Text: "c"}, {Title: "A", Text: "other"}}},
	}
	// Distinct texts in first-appearance order; a title with another text is another paragraph.
	assert.Equal(t, []string{"A\na", "B\nb", "C\nc", "A\nother"}, hotpotCorpus(qs))
}

func TestPerspCorpus(t *testing.T) {
	d := &perspData{
		Claims: []perspClaim{{Pids: []int{7, 3}}, {Pids: []int{3, 5}}},
		Text:   map[int]string{3: "three", 5: "five", 7: "seven", 9: "not a claim's"},
	}
	pids, texts := perspCorpus(d)
	assert.Equal(t, []int{3, 5, 7}, pids)
	assert.Equal(t, []string{"three", "five", "seven"}, texts)
}

func TestPoolCeiling(t *testing.T) {
	cands := make([]selectors.Candidate, 4)
	tests := []struct {
		name    string
		labels  [][]int
		nLabels int
		c       constraint
		want    float64
	}{
		{"hotpot both gold in the pool", [][]int{nil, {0}, nil, {1}}, 2, constraint{Budget: 300}, 1},
		{"hotpot one gold out of the pool", [][]int{nil, {0}, nil, nil}, 2, constraint{Budget: 300}, 0},
		{"persp 2 of 4 clusters, K=3", [][]int{{0}, {0}, {1}, nil}, 4, constraint{K: 3}, 2.0 / 3},
		{"persp 2 of 4 clusters, K=8", [][]int{{0}, {0}, {1}, nil}, 4, constraint{K: 8}, 2.0 / 4},
		{"persp K below the clusters held", [][]int{{0}, {1}, {2, 3}, nil}, 5, constraint{K: 3}, 1},
	}
	for _, tc := range tests {
		in := &instance{Cands: cands, Labels: tc.labels, NLabels: tc.nLabels}
		assert.InDelta(t, tc.want, poolCeiling(in, tc.c), 1e-12, tc.name)
	}
}

func TestMedian(t *testing.T) {
	tests := []struct {
		in   []time.Duration
		want time.Duration
	}{
		{nil, 0},
		{[]time.Duration{5}, 5},
		{[]time.Duration{9, 1, 5}, 5},
		{[]time.Duration{4, 1, 3, 2}, 3}, // the upper middle of an even count
	}
	for _, tc := range tests {
		orig := append([]time.Duration(nil), tc.in...)
		assert.Equal(t, tc.want, median(tc.in))
		assert.Equal(t, orig, tc.in, "median must not reorder its input")
	}
}

func TestLargeConfigs(t *testing.T) {
	cfgs := largeConfigs()
	labels := map[string]config{}
	sweep := 0
	for _, c := range cfgs {
		labels[c.Label] = c
		if c.Sweep {
			sweep++
		}
		// Every row is a valid selector configuration.
		_, err := selectors.New(c.Strategy, c.Params)
		require.NoError(t, err, c.Label)
	}
	assert.Equal(t, len(mmrLambdas), sweep)
	for _, n := range baselineNames {
		assert.Contains(t, labels, n)
	}
	for _, tv := range largeTargets {
		c, ok := labels[targetsLabel(tv)]
		require.True(t, ok, "targets %d", tv)
		assert.Equal(t, "coverage", c.Strategy)
		assert.Equal(t, tv, c.Params["targets"])
	}
	assert.Contains(t, largeTargets, coverage.DefaultTargets, "the default's row is measured")
	assert.Contains(t, largeTargets, 0, "the exact objective's row is measured")
}

func TestParsePools(t *testing.T) {
	tests := []struct {
		in   string
		want []int
		err  bool
	}{
		{"", nil, false},
		{"1000,2000", []int{1000, 2000}, false},
		{" 250 , 500", []int{250, 500}, false},
		{"0", nil, true},
		{"1000,x", nil, true},
	}
	for _, tc := range tests {
		got, err := parsePools(tc.in)
		if tc.err {
			assert.Error(t, err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
}

func TestRowLabel(t *testing.T) {
	tests := []struct {
		c    config
		want string
	}{
		{config{Label: "topk", Strategy: "topk"}, "`topk`"},
		{config{Label: targetsLabel(0), Strategy: "coverage", Params: map[string]any{"targets": 0}}, "`coverage`, targets 0 (exact)"},
		{config{Label: targetsLabel(coverage.DefaultTargets), Strategy: "coverage", Params: map[string]any{"targets": coverage.DefaultTargets}},
			fmt.Sprintf("**`coverage`, targets %d (default)**", coverage.DefaultTargets)},
		{config{Label: targetsLabel(64), Strategy: "coverage", Params: map[string]any{"targets": 64}}, "`coverage`, targets 64"},
		// An -extra config (parsed numbers are float64) keeps its label.
		{config{Label: "coverage:targets=16", Strategy: "coverage", Params: map[string]any{"targets": 16.0}}, "`coverage:targets=16`"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, rowLabel(tc.c))
	}
}

func TestDetailed(t *testing.T) {
	tests := []struct {
		in, want []int
	}{
		{[]int{100, 250, 500, 1000, 2000}, []int{1000, 2000}},
		{[]int{1000}, []int{1000}},
		{[]int{100, 250}, []int{100, 250}}, // none of the detail pools ran: every pool
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, detailed(tc.in))
	}
}

// TestLargeTargets: the large-pool tables hold a row for coverage's default.
func TestLargeTargets(t *testing.T) {
	if !slices.Contains(largeTargets, coverage.DefaultTargets) {
		t.Errorf("largeTargets %v has no row for the default targets %d", largeTargets, coverage.DefaultTargets)
	}
}
