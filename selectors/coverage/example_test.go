package coverage_test

import (
	"context"
	"fmt"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/coverage"
)

// The default strategy on a question with two parts: it takes the chunk on
// each part, never the near-copy of the most relevant one, and stops when
// nothing left pays for its tokens (Result.Stop: price), under budget.
func Example() {
	p := &selectors.Problem{
		Query: "Which statins cause muscle pain, and what helps with it?",
		Candidates: []selectors.Candidate{
			{ID: "pain", Relevance: 0.90, Tokens: 60, Vector: []float32{1, 0.1, 0, 0},
				Text: "Statins such as simvastatin can cause muscle pain in some patients."},
			{ID: "pain-copy", Relevance: 0.89, Tokens: 60, Vector: []float32{1, 0.12, 0, 0.01},
				Text: "Some patients taking statins such as simvastatin get muscle pain."},
			{ID: "helps", Relevance: 0.80, Tokens: 70, Vector: []float32{0.3, 1, 0.1, 0},
				Text: "What helps with muscle pain from statins: a lower dose, or another statin."},
			{ID: "history", Relevance: 0.40, Tokens: 80, Vector: []float32{0, 0.1, 1, 0.2},
				Text: "The first statin was isolated from a fungus in the 1970s."},
		},
		Budget: 200,
	}
	s, err := selectors.New(coverage.Name, nil)
	if err != nil {
		panic(err)
	}
	res, err := s.Run(context.Background(), p)
	if err != nil {
		panic(err)
	}
	for _, it := range res.Items {
		fmt.Println(it.Rank, p.Candidates[it.Index].ID)
	}
	fmt.Printf("%d of %d tokens; stopped: %s\n", res.TokensUsed, res.Budget, res.Stop)
	// Output:
	// 1 pain
	// 2 helps
	// 130 of 200 tokens; stopped: price
}
