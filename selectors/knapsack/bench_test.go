package knapsack

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/internal/textprob"
)

// BenchmarkSelect: chunks of up to 200 words from a 5000-word Zipf
// vocabulary, budget of about 10 average chunks, extraction included.
func BenchmarkSelect(b *testing.B) {
	for _, concepts := range []string{"terms", "ngrams", "clusters"} {
		for _, n := range []int{50, 200, 1000} {
			p := textprob.Random(rand.New(rand.NewPCG(1, uint64(n))),
				textprob.Options{N: n, MaxWords: 200, MaxTokens: 300, Budget: 1500, Dim: 384, Vocab: 5000})
			s, _ := selectors.New(Name, map[string]any{"concepts": concepts})
			b.Run(fmt.Sprintf("%s/N=%d", concepts, n), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if _, err := s.Run(context.Background(), p); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
