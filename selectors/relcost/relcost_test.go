package relcost

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/internal/textprob"
)

func cands(rel []float64, tok []int) []selectors.Candidate {
	c := make([]selectors.Candidate, len(rel))
	for i := range c {
		c[i] = selectors.Candidate{Relevance: rel[i], Tokens: tok[i]}
	}
	return c
}

func TestSelect(t *testing.T) {
	tests := []struct {
		name   string
		rel    []float64
		tok    []int
		budget int
		k      int
		want   []int
	}{
		// densities 0.01, 0.05, 0.1: order 2, 1, 0; item 0 does not fit 20-13.
		{"density order and budget", []float64{0.9, 0.5, 0.3}, []int{90, 10, 3}, 20, 0, []int{2, 1}},
		{"no budget takes all by density", []float64{0.9, 0.5, 0.3}, []int{90, 10, 3}, 0, 0, []int{2, 1, 0}},
		{"K stops", []float64{0.9, 0.5, 0.3}, []int{90, 10, 3}, 0, 1, []int{2}},
		// equal density 0.2: higher relevance first.
		{"tie by relevance", []float64{0.2, 0.4}, []int{1, 2}, 0, 0, []int{1, 0}},
		// equal density and relevance: earlier index first.
		{"tie by index", []float64{0.3, 0.3}, []int{3, 3}, 0, 0, []int{0, 1}},
		{"skip misfit keep going", []float64{0.9, 0.1}, []int{10, 1}, 5, 0, []int{1}},
		{"budget below every item", []float64{0.9, 0.1}, []int{10, 7}, 5, 0, []int{}},
	}
	s, err := selectors.New(Name, nil)
	require.NoError(t, err)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &selectors.Problem{Candidates: cands(tc.rel, tc.tok), Budget: tc.budget, MaxResults: tc.k}
			res, err := s.Run(context.Background(), p)
			require.NoError(t, err)
			assert.Equal(t, tc.want, append([]int{}, res.Indices()...))
			sum := 0.0
			for _, it := range res.Items {
				sum += it.Relevance
				assert.Equal(t, it.Relevance, it.Gain)
			}
			assert.InDelta(t, sum, res.Objective, 1e-12)
		})
	}
}

func TestProperties(t *testing.T) {
	textprob.CheckProperties(t, Name, nil, 0, 0)
}

func FuzzRelcost(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 5, 2, 3, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	f.Add([]byte{1, 9, 3, 0, 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf8, 0x7f, 0, 0, 0})
	f.Add([]byte{6, 3, 1, 1, 1, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5})
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := textprob.Fuzz(Name, nil, data); err != nil {
			t.Fatal(err)
		}
	})
}
