package cliff

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/internal/textprob"
)

// The worked example. Retrieval order scores 0.80 0.90 0.50 0.85 0.45 sort to
//
//	pos  index  s     relative drop from predecessor
//	0    1      0.90  -
//	1    3      0.85  (0.90-0.85)/0.90 = 0.0556
//	2    0      0.80  (0.85-0.80)/0.85 = 0.0588
//	3    2      0.50  (0.80-0.50)/0.80 = 0.375
//	4    4      0.45  (0.50-0.45)/0.50 = 0.100
//
// With g = 0.3 the walk stops at position 3 (0.375 > 0.3): select 1, 3, 0.
var example = []float64{0.80, 0.90, 0.50, 0.85, 0.45}

func TestCutoff(t *testing.T) {
	tests := []struct {
		name     string
		rel      []float64
		tok      []int
		params   map[string]any
		budget   int
		k        int
		want     []int
		wantDrop float64
		wantRank float64
	}{
		{"defaults stop at the cliff", example, nil, nil, 0, 0, []int{1, 3, 0}, 0.375, 4},
		// minK 4 takes positions 0-3 unconditionally; 0.100 <= 0.3 adds position 4.
		{"minK forces past the cliff", example, nil, map[string]any{"minK": 4}, 0, 0, []int{1, 3, 0, 2, 4}, 0, 0},
		// 0.0556 > 0.05 stops at position 1.
		{"small g", example, nil, map[string]any{"g": 0.05}, 0, 0, []int{1}, (0.90 - 0.85) / 0.90, 2},
		{"K stops", example, nil, nil, 0, 2, []int{1, 3}, 0, 0},
		// Index 3 (100 tokens) is skipped but stays the predecessor of index 0.
		{"misfit skipped, still predecessor", example, []int{10, 10, 10, 100, 10}, nil, 50, 0, []int{1, 0}, 0.375, 4},
		// 0.5 -> 0: drop 1 <= 10 continues; predecessor 0 <= 0 stops.
		{"non-positive predecessor stops", []float64{0.5, 0, -0.1}, nil, map[string]any{"g": 10.0}, 0, 0, []int{0, 1}, 0, 3},
		{"single", []float64{0.7}, nil, nil, 0, 0, []int{0}, 0, 0},
		{"budget below every item", example, []int{9, 9, 9, 9, 9}, nil, 5, 0, []int{}, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := selectors.New(Name, tc.params)
			require.NoError(t, err)
			c := make([]selectors.Candidate, len(tc.rel))
			for i := range c {
				c[i] = selectors.Candidate{Relevance: tc.rel[i], Tokens: 1}
				if tc.tok != nil {
					c[i].Tokens = tc.tok[i]
				}
			}
			res, err := s.Run(context.Background(), &selectors.Problem{Candidates: c, Budget: tc.budget, MaxResults: tc.k})
			require.NoError(t, err)
			assert.Equal(t, tc.want, append([]int{}, res.Indices()...))
			assert.InDelta(t, tc.wantRank, res.Stats["cutoffRank"], 0)
			assert.InDelta(t, tc.wantDrop, res.Stats["cutoffDrop"], 1e-12)
		})
	}
}

func TestParams(t *testing.T) {
	for _, bad := range []map[string]any{{"minK": 0}, {"g": -0.1}, {"minK": 1.5}, {"x": 1}} {
		_, err := selectors.New(Name, bad)
		assert.Error(t, err, "%v", bad)
	}
}

func TestProperties(t *testing.T) {
	textprob.CheckProperties(t, Name, nil, 0, 0)
	textprob.CheckProperties(t, Name, map[string]any{"minK": 3, "g": 0.05}, 0, 0)
}

func FuzzCliff(f *testing.F) {
	f.Add([]byte{}, 1, 0.3)
	f.Add([]byte{0, 5, 2, 3, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 2, 0.0)
	f.Add([]byte{1, 9, 3, 0, 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf8, 0x7f, 0, 0, 0}, 5, 1e300)
	f.Add([]byte{6, 3, 1, 1, 1, 3, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5}, 1, 0.3)
	f.Fuzz(func(t *testing.T, data []byte, minK int, g float64) {
		params := map[string]any{"minK": max(1, minK%50), "g": g}
		if _, err := selectors.New(Name, params); err != nil {
			params = nil // out-of-range g: the parameter check, not the strategy, answers
		}
		if err := textprob.Fuzz(Name, params, data); err != nil {
			t.Fatal(err)
		}
	})
}
