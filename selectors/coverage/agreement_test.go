package coverage

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRankAgreement(t *testing.T) {
	tests := []struct {
		name string
		a, b []float64
		want float64
	}{
		{"same order", []float64{0.1, 0.5, 0.9, 0.3}, []float64{1, 5, 9, 3}, 1},
		{"reversed", []float64{0.1, 0.5, 0.9}, []float64{3, 2, 1}, -1},
		{"ranks, not values", []float64{1, 2, 3, 4}, []float64{1, 2, 3, 1000}, 1},
		// ranks of b: 0, 1.5, 1.5, 3 against 0, 1, 2, 3
		{"ties share their mean rank", []float64{1, 2, 3, 4}, []float64{0, 1, 1, 2}, 4.5 / math.Sqrt(5*4.5)},
		{"one constant: 0", []float64{1, 2, 3}, []float64{7, 7, 7}, 0},
		{"one value: 0", []float64{1}, []float64{1}, 0},
		{"empty: 0", nil, nil, 0},
		{"lengths differ: 0", []float64{1, 2}, []float64{1, 2, 3}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.InDelta(t, tc.want, rankAgreement(tc.a, tc.b), 1e-12)
		})
	}
}

func TestRanks(t *testing.T) {
	assert.Equal(t, []float64{2, 0, 3.5, 1, 3.5}, ranks([]float64{0.5, 0.1, 0.9, 0.2, 0.9}))
}
