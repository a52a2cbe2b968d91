package textprob

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/diverse-select/diverse-select/selectors"
)

// CheckProperties runs the named strategy with params on random problems of
// many shapes (N from 0 to 40, no budget, tight and loose budgets, budgets
// below every item, K from 1 to none) and fails t unless every result is a
// valid selection (Check) and running the same input twice gives identical
// results. dim > 0 gives the candidates vectors; maxN > 0 skips larger pools.
func CheckProperties(t *testing.T, name string, params map[string]any, dim, maxN int) {
	t.Helper()
	sel, err := selectors.New(name, params)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 5, 12, 40} {
		if maxN > 0 && n > maxN {
			continue
		}
		for _, budget := range []int{0, 1, 10, 60, 400} {
			for _, k := range []int{0, 1, 3} {
				o := Options{N: n, Budget: budget, MaxResults: k, Dim: dim, Sources: true}
				if n%2 == 0 {
					o.Query = "statin side effects"
				}
				p := Random(rng, o)
				r1, err := sel.Run(context.Background(), p)
				if err != nil {
					t.Fatalf("N=%d B=%d K=%d: %v", n, budget, k, err)
				}
				if err := Check(p, r1); err != nil {
					t.Fatalf("N=%d B=%d K=%d: %v", n, budget, k, err)
				}
				p.Similarities = nil
				r2, err := sel.Run(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				if !equal(r1, r2) {
					t.Fatalf("N=%d B=%d K=%d: not deterministic:\n%+v\n%+v", n, budget, k, r1.Items, r2.Items)
				}
				if n > 0 && budget == 1 && minTokens(p) > 1 && len(r1.Items) != 0 {
					t.Fatalf("budget below every item, yet %d items selected", len(r1.Items))
				}
			}
		}
	}
}

func minTokens(p *selectors.Problem) int {
	m := 1 << 30
	for _, c := range p.Candidates {
		m = min(m, c.Tokens)
	}
	return m
}

func equal(a, b *selectors.Result) bool {
	if len(a.Items) != len(b.Items) || a.Objective != b.Objective || len(a.Stats) != len(b.Stats) {
		return false
	}
	for i := range a.Items {
		if a.Items[i] != b.Items[i] {
			return false
		}
	}
	for k, v := range a.Stats {
		if b.Stats[k] != v {
			return false
		}
	}
	return true
}
