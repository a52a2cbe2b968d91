package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
