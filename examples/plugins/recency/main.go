// Command recency is an external selector plugin for diverse-select, and the
// template for writing one: it favours recent chunks by blending each
// candidate's relevance with the freshness of a date property, then selects
// with the built-in mmr strategy on the blended relevance.
//
//	freshness_i = 0.5 ^ (age_i / halfLifeDays)   (age from the newest candidate; no date: 0)
//	relevance'_i = (1 - recencyWeight) * relevance_i + recencyWeight * freshness_i
//
// Ages are measured from the newest candidate's date, not the clock, so a
// query's selection is reproducible. Build it, point
// DIVERSE_SELECT_PLUGIN_DIR at the folder holding the binary, and query with
// strategy: "recency" (README: "Bring your own selector").
package main

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/diverse-select/diverse-select/plugin/sdk"
	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/mmr" // the built-in strategy this plugin reuses
)

type recency struct{}

// Describe declares the strategy's parameters: dateProperty is of kind
// property, so the module extracts that property for every candidate.
func (recency) Describe() sdk.Description {
	return sdk.Description{
		Doc:          "mmr on relevance blended with recency (a date property, exponential half-life)",
		NeedsVectors: true,
		Params: []selectors.ParamSpec{
			{Name: "dateProperty", Kind: selectors.KindProperty, Default: "date", Doc: "date property giving each chunk's age"},
			{Name: "halfLifeDays", Kind: selectors.KindFloat, Default: 30.0, Min: 0, Max: math.Inf(1), MinOpen: true,
				Doc: "age in days at which freshness halves"},
			{Name: "recencyWeight", Kind: selectors.KindFloat, Default: 0.3, Min: 0, Max: 1,
				Doc: "weight of freshness against relevance (0 = plain mmr)"},
			{Name: "lambda", Kind: selectors.KindFloat, Default: 0.5, Min: 0, Max: 1,
				Doc: "mmr's weight of relevance against redundancy"},
		},
	}
}

// Select blends the relevances and runs mmr on a copy of the problem.
func (recency) Select(ctx context.Context, p *selectors.Problem, params selectors.Params) (*selectors.Result, error) {
	blended, err := Blend(p, params.String("dateProperty"), params.Float("halfLifeDays"), params.Float("recencyWeight"))
	if err != nil {
		return nil, err
	}
	s, err := selectors.New(mmr.Name, map[string]any{"lambda": params.Float("lambda")})
	if err != nil {
		return nil, err
	}
	return s.Run(ctx, blended)
}

// Blend returns a copy of p whose relevances are blended with freshness.
func Blend(p *selectors.Problem, dateProperty string, halfLifeDays, weight float64) (*selectors.Problem, error) {
	dates := make([]time.Time, len(p.Candidates))
	var newest time.Time
	for i, c := range p.Candidates {
		s, _ := c.Properties[dateProperty].(string)
		if s == "" {
			continue // no date: freshness 0
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return nil, fmt.Errorf("candidate %s: %s %q is not an RFC 3339 date", c.ID, dateProperty, s)
		}
		dates[i] = t
		if t.After(newest) {
			newest = t
		}
	}
	q := *p
	q.Candidates = append([]selectors.Candidate(nil), p.Candidates...)
	for i := range q.Candidates {
		fresh := 0.0
		if !dates[i].IsZero() {
			age := newest.Sub(dates[i]).Hours() / 24
			fresh = math.Pow(0.5, age/halfLifeDays)
		}
		q.Candidates[i].Relevance = (1-weight)*q.Candidates[i].Relevance + weight*fresh
	}
	return &q, nil
}

func main() { sdk.Serve(recency{}) }
