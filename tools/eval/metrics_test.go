package main

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/diverse-select/diverse-select/selectors"
)

func TestMetrics(t *testing.T) {
	// Candidates 0..5: 0 and 3 carry label 0 (a cluster with two members),
	// 1 carries labels 1 and 2 (a perspective in two clusters), 4 label 2,
	// 2 and 5 are distractors.
	labels := [][]int{{0}, {1, 2}, nil, {0}, {2}, nil}
	tests := []struct {
		name             string
		sel              []int
		nLabels, k       int
		hit, distr       int
		all, recall, cov float64
	}{
		{"empty selection", nil, 3, 5, 0, 0, 0, 0, 0},
		{"one label twice", []int{0, 3}, 3, 2, 1, 0, 0, 1.0 / 3, 1.0 / 2},
		{"multi-label candidate", []int{1}, 3, 1, 2, 0, 0, 2.0 / 3, 1}, // 2 hits / min(K=1, 3), capped at 1
		{"partial coverage at K", []int{0, 2, 4}, 3, 3, 2, 1, 0, 2.0 / 3, 2.0 / 3},
		{"everything", []int{0, 1, 2, 3, 4, 5}, 3, 6, 3, 2, 1, 1, 1},           // min(6, 3) = 3
		{"distractors only", []int{2, 5}, 3, 5, 0, 2, 0, 0, 0},                 //
		{"all labels, K above labels", []int{4, 0, 1, 5}, 3, 8, 3, 1, 1, 1, 1}, // min(8, 3) = 3
		{"no labels at all", []int{2}, 0, 3, 0, 1, 0, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.hit, labelsHit(tc.sel, labels))
			assert.Equal(t, tc.distr, distractors(tc.sel, labels))
			assert.Equal(t, tc.all, allHit(tc.sel, labels, tc.nLabels))
			assert.InDelta(t, tc.recall, recall(tc.sel, labels, tc.nLabels), 1e-12)
			assert.InDelta(t, tc.cov, coverageAtK(tc.sel, labels, tc.nLabels, tc.k), 1e-12)
		})
	}
}

func TestHotpotOracle(t *testing.T) {
	in := &instance{NLabels: 2, Labels: [][]int{{0}, nil, {1}}, Cands: []selectors.Candidate{{Tokens: 100}, {Tokens: 10}, {Tokens: 300}}}
	tests := []struct {
		budget int
		want   []float64
	}{
		{99, []float64{0, 0}},
		{100, []float64{0, 0.5}},
		{399, []float64{0, 0.5}},
		{400, []float64{1, 1}},
	}
	for _, tc := range tests {
		got := hotpotOracle(in, constraint{Budget: tc.budget})
		assert.Equal(t, tc.want, got[:2], "B=%d", tc.budget)
		assert.True(t, math.IsNaN(got[2]), "no answers: answer-in-context not measured")
	}
	// The answer oracle: a paragraph holding the answer fits the budget.
	in.Answers = []string{"Oslo"}
	in.Cands[2].Text = "Oslo is the capital."
	assert.Equal(t, 0.0, hotpotOracle(in, constraint{Budget: 299})[2])
	assert.Equal(t, 1.0, hotpotOracle(in, constraint{Budget: 300})[2])
}

func TestMergeSameText(t *testing.T) {
	corpus := []string{"Black Panther is fictional.", "black panther is FICTIONAL", "Black Panther is non-fictional.", "other"}
	tests := []struct {
		name  string
		gold  [][]int
		group []int
		n     int
	}{
		{"same text for two perspectives: one", [][]int{{0}, {1}}, []int{0, 0}, 1},
		{"a one-word edit stays two", [][]int{{0}, {2}}, []int{0, 1}, 2},
		{"chained through a shared text", [][]int{{0, 3}, {2}, {1, 2}}, []int{0, 0, 0}, 1},
		{"no gold", [][]int{nil, nil}, []int{0, 1}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, n := mergeSameText(corpus, tc.gold)
			assert.Equal(t, tc.group, g)
			assert.Equal(t, tc.n, n)
		})
	}
	assert.Equal(t, []int{1}, mapLabels([]int{1, 2}, []int{0, 1, 1}))
}

func TestNearCopyPairs(t *testing.T) {
	sims := selectors.NewDenseSimilarities([][]float32{{1, 0}, {0.96, 0.28}, {0, 1}, {0, -1}})
	keys := []uint64{1, 2, 3, 3}
	assert.Equal(t, 0, nearCopyPairs([]int{0, 2}, sims, keys))
	assert.Equal(t, 1, nearCopyPairs([]int{0, 1, 2}, sims, keys), "cosine 0.96")
	assert.Equal(t, 1, nearCopyPairs([]int{2, 3}, sims, keys), "same text, opposite vectors")
	assert.Equal(t, 2, nearCopyPairs([]int{0, 1, 2, 3}, sims, keys))
}

func TestPrecisionMetrics(t *testing.T) {
	// Candidates 0-2 are the question's own, 3-4 another question's.
	in := &instance{
		Cands: []selectors.Candidate{{Tokens: 50}, {Tokens: 40}, {Tokens: 100}, {Tokens: 30}, {Tokens: 20}},
		Other: []bool{false, false, false, true, true},
	}
	tests := []struct {
		name   string
		sel    []int
		c      constraint
		tokens int
		ahead  float64
	}{
		{"own only", []int{0, 1}, constraint{Budget: 100}, 0, 0},
		{"an own candidate fits in the other's place", []int{0, 3}, constraint{Budget: 100}, 30, 1},
		{"no own candidate fits in its place", []int{0, 1, 4}, constraint{Budget: 110}, 20, 0},
		{"every own candidate selected", []int{0, 1, 2, 3}, constraint{Budget: 300}, 30, 0},
		{"under K, any own candidate fits", []int{3, 4}, constraint{K: 2}, 50, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.tokens, otherTokens(tc.sel, in))
			assert.Equal(t, tc.ahead, otherAhead(tc.sel, in, tc.c))
		})
	}
	assert.Equal(t, 0, otherTokens([]int{0}, &instance{Cands: in.Cands}), "a pool without other questions")
}

func TestAnswerInContext(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		answers []string
		want    bool
	}{
		{"case folded", "Born in PARIS in 1900.", []string{"Paris"}, true},
		{"not inside a number", "It opened in 1935.", []string{"35"}, false},
		{"a whole number", "It has 35 floors.", []string{"35"}, true},
		{"not inside a word", "Parisian cafes", []string{"Paris"}, false},
		{"a later occurrence counts", "Parisian cafes in Paris", []string{"Paris"}, true},
		{"any alias", "Stanley Hall led it.", []string{"G. Stanley Hall", "Stanley Hall"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, answerOccurs(tc.text, tc.answers))
		})
	}
	in := &instance{Cands: []selectors.Candidate{{Text: "no answer here"}, {Text: "the answer is Oslo"}}, Answers: []string{"Oslo"}}
	assert.Equal(t, 1.0, answerIn([]int{1}, in))
	assert.Equal(t, 0.0, answerIn([]int{0}, in))
	assert.True(t, math.IsNaN(answerIn([]int{0}, &instance{Cands: in.Cands, Answers: []string{"yes"}})), "an answer no paragraph holds is not counted")
}
