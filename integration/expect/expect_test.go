package expect

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestNearVector(t *testing.T) {
	v := []float32{0.1, -1e-7, 3.4028235e38, 1.0 / 3, 0}
	m := regexp.MustCompile(`^nearVector: \{vector: \[(.*)\]\}$`).FindStringSubmatch(NearVector(v))
	if m == nil {
		t.Fatalf("NearVector(%v) = %q", v, NearVector(v))
	}
	parts := strings.Split(m[1], ",")
	for i, p := range parts {
		f, err := strconv.ParseFloat(p, 32)
		if err != nil || float32(f) != v[i] {
			t.Errorf("component %d: %q parses to %v (%v), want %v", i, p, f, err, v[i])
		}
	}
}

// Four candidates: a and b are copies, c and d differ from them and from
// each other; relevance falls from a to d.
func candidates() []Candidate {
	return []Candidate{
		{ID: "a", Text: "red apples grow on trees", Distance: 0.10, Vector: []float32{1, 0, 0}},
		{ID: "b", Text: "red apples grow on trees", Distance: 0.11, Vector: []float32{1, 0, 0}},
		{ID: "c", Text: "green pears in the orchard", Distance: 0.30, Vector: []float32{0, 1, 0}},
		{ID: "d", Text: "the stock market fell today", Distance: 0.50, Vector: []float32{0, 0, 1}},
	}
}

func TestSelect(t *testing.T) {
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		q    Query
		want []string
	}{
		{"topk takes the head", Query{Args: map[string]any{"strategy": "topk", "maxResults": 2}}, []string{"a", "b"}},
		{"mmr skips the copy", Query{Args: map[string]any{"strategy": "mmr", "lambda": 0.5, "maxResults": 2}}, []string{"a", "c"}},
		{"the top-level limit caps", Query{Args: map[string]any{"strategy": "topk", "maxResults": 3}, Limit: 1}, []string{"a"}},
		{"the class config applies", Query{Class: map[string]any{"strategy": "topk", "maxResults": 1}}, []string{"a"}},
		{"the query overrides the class", Query{Class: map[string]any{"strategy": "topk", "maxResults": 1},
			Args: map[string]any{"maxResults": 3}}, []string{"a", "b", "c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Select(context.Background(), candidates(), tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	if _, err := s.Select(context.Background(), candidates(), Query{Args: map[string]any{"strategy": "nope"}}); err == nil {
		t.Error("an unknown strategy gave no error")
	}
}
