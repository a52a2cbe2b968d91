package topk_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/diverse-select/diverse-select/selectors"
	_ "github.com/diverse-select/diverse-select/selectors/topk"
)

func TestTopK(t *testing.T) {
	// Relevance order is 1, 3, 0, 2 (ties: earlier index first).
	cands := []selectors.Candidate{
		{Relevance: 0.5, Tokens: 4}, {Relevance: 0.9, Tokens: 5}, {Relevance: 0.1, Tokens: 1}, {Relevance: 0.5, Tokens: 2},
	}
	cases := []struct {
		name   string
		fit    string
		budget int
		k      int
		want   []int
	}{
		{"no constraints: relevance order", "skip", 0, 0, []int{1, 0, 3, 2}},
		{"K", "skip", 0, 2, []int{1, 0}},
		{"skip what does not fit", "skip", 8, 0, []int{1, 3, 2}},
		{"stop at the first misfit", "stop", 8, 0, []int{1}},
		{"tight budget: only the smallest fits", "skip", 1, 0, []int{2}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := selectors.New("topk", map[string]any{"fit": tc.fit})
			if err != nil {
				t.Fatal(err)
			}
			res, err := s.Run(context.Background(), &selectors.Problem{Candidates: cands, Budget: tc.budget, MaxResults: tc.k})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Indices(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("selected %v, want %v", got, tc.want)
			}
		})
	}
}
