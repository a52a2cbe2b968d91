package ngram

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/internal/textprob"
)

// BenchmarkSelect: chunks of up to 200 words from a 5000-word Zipf
// vocabulary with a query, extraction included.
func BenchmarkSelect(b *testing.B) {
	for _, n := range []int{50, 200, 1000} {
		p := textprob.Random(rand.New(rand.NewPCG(1, uint64(n))),
			textprob.Options{N: n, MaxWords: 200, MaxTokens: 300, Budget: 4000, Sources: true, Vocab: 5000, Query: "w1x w7x w300x"})
		s, _ := selectors.New(Name, nil)
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := s.Run(context.Background(), p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
