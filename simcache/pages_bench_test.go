package simcache_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/text"
	"github.com/diverse-select/diverse-select/simcache"
)

// BenchmarkPages is the hidden cost of a deep page: nothing is kept between
// queries, so page p selects pages 1..p-1 again (each continuing the ones
// before), then page p, then page p+1 to tell whether the pool is spent
// (exhausted, computed whenever the query gives an offset). N = 200, d = 768,
// 10 results per page, no token budget; "plain" is page 1 of a query
// without offset (one selection), the baseline the pages are compared with.
// As the module runs it: engine built per query, terms from the cache.
func BenchmarkPages(b *testing.B) {
	const n, d, perPage = 200, 768, 10
	for _, name := range []string{"mmr", "adagres", "dpp", "coverage", "knapsack"} {
		s, err := selectors.New(name, nil)
		if err != nil {
			b.Fatal(err)
		}
		p := randomProblem(rand.New(rand.NewPCG(n, d)), problemOpts{n: n, dim: d, clusters: 20,
			maxResults: perPage, minTokens: 50, maxTokens: 300, texts: true})
		vecs := make([][]float32, n)
		for i := range p.Candidates {
			vecs[i] = p.Candidates[i].Vector
			if s.UsesTerms() {
				p.Candidates[i].Terms = text.Terms([]string{}, p.Candidates[i].Text)
			}
		}
		for _, pg := range []struct {
			label   string
			page    int
			exhaust bool
		}{{"plain", 1, false}, {"1", 1, true}, {"2", 2, true}, {"5", 5, true}, {"10", 10, true}} {
			b.Run(fmt.Sprintf("%s/page=%s", name, pg.label), func(b *testing.B) {
				b.ReportAllocs()
				got := 0
				for b.Loop() {
					e := must(simcache.New(vecs))
					p.Similarities = e
					res, err := s.RunPage(context.Background(), p, perPage*(pg.page-1), pg.exhaust)
					if err != nil {
						b.Fatal(err)
					}
					got = len(res.Items)
					e.Release()
					p.Similarities = nil
				}
				b.ReportMetric(float64(got), "items")
			})
		}
	}
}
