package main

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/diverse-select/diverse-select/selectors"
)

func TestBlend(t *testing.T) {
	date := func(s string) map[string]any { return map[string]any{"date": s} }
	p := &selectors.Problem{Candidates: []selectors.Candidate{
		{ID: "newest", Relevance: 0.2, Tokens: 1, Properties: date("2026-03-31T00:00:00Z")},
		{ID: "half-life old", Relevance: 0.2, Tokens: 1, Properties: date("2026-03-01T00:00:00Z")},
		{ID: "no date", Relevance: 0.2, Tokens: 1, Properties: date("")},
		{ID: "no property", Relevance: 0.2, Tokens: 1},
	}}
	q, err := Blend(p, "date", 30, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	// relevance' = 0.5 * 0.2 + 0.5 * freshness, freshness 1, 1/2, 0, 0.
	for i, want := range []float64{0.6, 0.35, 0.1, 0.1} {
		if got := q.Candidates[i].Relevance; math.Abs(got-want) > 1e-12 {
			t.Errorf("%s: relevance %v, want %v", q.Candidates[i].ID, got, want)
		}
	}
	if p.Candidates[0].Relevance != 0.2 {
		t.Error("Blend changed the caller's problem")
	}
	p.Candidates[1].Properties = date("yesterday")
	if _, err := Blend(p, "date", 30, 0.5); err == nil || !strings.Contains(err.Error(), "not an RFC 3339 date") {
		t.Errorf("bad date: %v", err)
	}
}

// TestSelectFavoursRecent: with equal relevance and orthogonal vectors, the
// recent chunk comes first.
func TestSelectFavoursRecent(t *testing.T) {
	p := &selectors.Problem{MaxResults: 1, Candidates: []selectors.Candidate{
		{ID: "old", Relevance: 0.5, Tokens: 1, Vector: []float32{1, 0}, Properties: map[string]any{"date": "2025-01-01T00:00:00Z"}},
		{ID: "new", Relevance: 0.5, Tokens: 1, Vector: []float32{0, 1}, Properties: map[string]any{"date": "2026-01-01T00:00:00Z"}},
	}}
	d := recency{}.Describe()
	params, err := selectors.ValidateParams("recency", d.Params, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := recency{}.Select(context.Background(), p, params)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 1 || p.Candidates[res.Items[0].Index].ID != "new" {
		t.Errorf("selected %v, want the new chunk", res.Indices())
	}
}
