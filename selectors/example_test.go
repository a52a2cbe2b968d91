package selectors_test

import (
	"context"
	"fmt"

	"github.com/diverse-select/diverse-select/selectors"
	_ "github.com/diverse-select/diverse-select/selectors/mmr" // registers "mmr"
)

// pool is four retrieved chunks: b is a near-copy of a, and c and d say
// other things.
func pool() *selectors.Problem {
	return &selectors.Problem{
		Candidates: []selectors.Candidate{
			{ID: "a", Relevance: 0.92, Tokens: 120, Vector: []float32{1, 0, 0}},
			{ID: "b", Relevance: 0.91, Tokens: 120, Vector: []float32{0.99, 0.1, 0}},
			{ID: "c", Relevance: 0.80, Tokens: 100, Vector: []float32{0.2, 1, 0}},
			{ID: "d", Relevance: 0.60, Tokens: 150, Vector: []float32{0, 0.2, 1}},
		},
		Budget: 400,
	}
}

// A problem built and run: MMR takes a, then c and d, which say something
// else, before b, the near-copy of a, which then no longer fits the budget.
func Example() {
	s, err := selectors.New("mmr", map[string]any{"lambda": 0.5})
	if err != nil {
		panic(err)
	}
	p := pool()
	res, err := s.Run(context.Background(), p)
	if err != nil {
		panic(err)
	}
	for _, it := range res.Items {
		fmt.Printf("%d. %s (%d tokens)\n", it.Rank, p.Candidates[it.Index].ID, it.Tokens)
	}
	fmt.Printf("%d of %d tokens; stopped: %s\n", res.TokensUsed, res.Budget, res.Stop)
	// Output:
	// 1. a (120 tokens)
	// 2. c (100 tokens)
	// 3. d (150 tokens)
	// 370 of 400 tokens; stopped: budget
}

// Parameters are checked against the strategy's specs before anything runs:
// the error names the parameter and the allowed values.
func ExampleNew() {
	_, err := selectors.New("mmr", map[string]any{"lambda": 2})
	fmt.Println(err)
	// Output:
	// strategy "mmr": parameter "lambda": got 2 (int), want float [0, 1]
}

// The pages of a paged selection, two items a page: the second continues
// the first, and the pool is spent after it (b, a near-copy of a, is never
// shown).
func ExampleSelector_RunPage() {
	s, err := selectors.New("mmr", nil)
	if err != nil {
		panic(err)
	}
	p := pool()
	p.Budget, p.MaxResults = 0, 2
	for offset := 0; ; {
		page, err := s.RunPage(context.Background(), p, offset, true)
		if err != nil {
			panic(err)
		}
		for _, it := range page.Items {
			fmt.Printf("%d. %s\n", it.Rank, p.Candidates[it.Index].ID)
		}
		offset += len(page.Items)
		if page.Exhausted {
			break
		}
		fmt.Println("-- next page")
	}
	// Output:
	// 1. a
	// 2. c
	// -- next page
	// 3. d
}

// One description of a setting serves a strategy's parameter and a key of
// the module (config.Key) alike: Check validates a raw value, as JSON or
// GraphQL decoded it, and types it.
func ExampleParamSpec_Check() {
	lambda := selectors.ParamSpec{Name: "lambda", Kind: selectors.KindFloat, Min: 0, Max: 1, Default: 0.5}
	for _, v := range []any{0.7, 1, 2, "x"} {
		got, err := lambda.Check(v)
		fmt.Println(got, err)
	}
	// Output:
	// 0.7 <nil>
	// 1 <nil>
	// <nil> got 2 (int), want float [0, 1]
	// <nil> got x (string), want float [0, 1]
}
