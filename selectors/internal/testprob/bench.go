package testprob

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/diverse-select/diverse-select/selectors"
)

// BenchSizes are the pool sizes the strategy benchmarks run at.
var BenchSizes = []int{100, 1000}

// Bench runs a strategy on clustered pools of d = 768, K = 10, budget 1500
// (tokens 50..300). "cold" includes building the similarity engine and
// whatever similarities the strategy computes; "warm" starts from a
// precomputed similarity matrix, as a cache would provide, so it measures
// the selection algorithm alone.
func Bench(b *testing.B, strategy string, params map[string]any) {
	s, err := selectors.New(strategy, params)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range BenchSizes {
		p := Random(rand.New(rand.NewPCG(uint64(n), 768)), Options{
			N: n, Dim: 768, Clusters: 20, Budget: 1500, MaxResults: 10, MinTokens: 50, MaxTokens: 300})
		b.Run(fmt.Sprintf("N=%d/cold", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p.Similarities = nil
				if _, err := s.Run(context.Background(), p); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("N=%d/warm", n), func(b *testing.B) {
			p.Similarities = nil
			p.Sims().Matrix()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Run(context.Background(), p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
