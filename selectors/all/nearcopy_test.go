package all_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/diverse-select/diverse-select/selectors"
)

// The strategies that promise no near-copy (selectors.CopyGuard).
var copyFree = []string{"coverage", "mmr", "adagres", "dpp", "knapsack"}

// plantedFact is one fact and the copies planted of it.
type plantedFact struct {
	text   string
	copies []string
}

func addWordAfterFirst(s, w string) string {
	first, rest, _ := strings.Cut(s, " ")
	return first + " " + w + " " + rest
}

// plantedPool builds a pool from facts: every text of a fact shares its
// group; vectors are the fact's direction plus a small per-copy tilt (so the
// cosine between copies is tilt-dependent), relevance falls with the index.
func plantedPool(facts []plantedFact, tilt float32) (*selectors.Problem, []int) {
	p := &selectors.Problem{Query: "coffee storage espresso caffeine chain tyre"}
	var group []int
	dim := len(facts) + 8
	for f, fa := range facts {
		for k, text := range append([]string{fa.text}, fa.copies...) {
			v := make([]float32, dim)
			v[f] = 1
			v[len(facts)+k%8] = tilt
			p.Candidates = append(p.Candidates, selectors.Candidate{ID: fmt.Sprintf("%d/%d", f, k), Text: text,
				Vector: v, Tokens: 20 + len(strings.Fields(text))})
			group = append(group, f)
		}
	}
	for i := range p.Candidates {
		p.Candidates[i].Relevance = 1 - 0.01*float64(i)
	}
	return p, group
}

func TestNoNearCopies(t *testing.T) {
	a := "Coffee beans keep their flavour longest in an airtight container away from light and heat."
	b := "A single shot of espresso contains about sixty milligrams of caffeine."
	c := "A bicycle chain should be cleaned with a degreaser every few hundred kilometres."
	d := "Road bike tyres usually run between six and eight bar of pressure."
	aCopies := []string{addWordAfterFirst(a, "also"), strings.TrimSuffix(a, ".") + ", as most guides point out.", strings.ToUpper(a)}
	bCopies := []string{addWordAfterFirst(b, "really")}
	tests := []struct {
		name     string
		facts    []plantedFact
		tilt     float32 // 0: copies share the vector; 1: cosine 0.5, so only the text tells
		budget   int
		k        int
		distinct int // facts the selection must cover
	}{
		{"pool of 6 (4+2 copies), budget fills", []plantedFact{{a, aCopies}, {b, bCopies}}, 0, 400, 0, 2},
		{"pool of 6, copies only by text", []plantedFact{{a, aCopies}, {b, bCopies}}, 1, 400, 0, 2},
		{"pool of 4 copies of one fact", []plantedFact{{a, aCopies}}, 0.2, 400, 0, 1},
		{"K larger than the facts", []plantedFact{{a, aCopies}, {b, bCopies}, {c, nil}, {d, nil}}, 0.1, 0, 8, 4},
		{"budget for everything", []plantedFact{{a, aCopies}, {b, bCopies}, {c, nil}, {d, nil}}, 1, 10000, 0, 4},
	}
	for _, name := range copyFree {
		for _, tc := range tests {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				p, group := plantedPool(tc.facts, tc.tilt)
				p.Budget, p.MaxResults = tc.budget, tc.k
				sel, err := selectors.New(name, nil)
				require.NoError(t, err)
				res, err := sel.Run(context.Background(), p)
				require.NoError(t, err)
				seen := map[int]int{}
				for _, i := range res.Indices() {
					if j, dup := seen[group[i]]; dup {
						t.Errorf("near-copies %q and %q both selected", p.Candidates[j].Text, p.Candidates[i].Text)
					}
					seen[group[i]] = i
				}
				if name != "adagres" && name != "knapsack" { // adagres may stop early; knapsack covers terms
					require.Len(t, seen, tc.distinct, "facts covered")
				}
			})
		}
	}
}
