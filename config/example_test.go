package config_test

import (
	"fmt"

	"github.com/diverse-select/diverse-select/config"
	_ "github.com/diverse-select/diverse-select/selectors/all" // registers the strategies
)

// The three levels merged: the module's defaults from its environment, a
// class's moduleConfig and a query's diverseSelect argument. The query's
// strategy wins; the class's tokenBudget still applies, and the class's
// lambda, a parameter of mmr, does not follow it to adagres, whose lambda
// (another meaning) keeps its default of 1.
func ExampleMerge() {
	env := map[string]string{"DIVERSE_SELECT_TOKEN_BUDGET": "2000"}
	m, err := config.FromEnv(func(name string) string { return env[name] })
	if err != nil {
		panic(err)
	}
	class, err := config.Parse(map[string]any{"strategy": "mmr", "lambda": 0.7, "tokenBudget": 1500}, m.Limits)
	if err != nil {
		panic(err)
	}
	query, err := config.Parse(map[string]any{"strategy": "adagres", "betaMax": 5}, m.Limits)
	if err != nil {
		panic(err)
	}
	e, err := config.Merge(m, class, query)
	if err != nil {
		panic(err)
	}
	p := e.Selector.Params
	fmt.Println(e.Strategy, e.TokenBudget, e.Candidates, p.Float("betaMax"), p.Float("lambda"))
	// Output:
	// adagres 1500 50 5 1
}

// Every error names the key, what was given and what is allowed.
func ExampleParse() {
	_, err := config.Parse(map[string]any{"order": "random"}, config.Limits{MaxCandidates: 2000})
	fmt.Println(err)
	// Output:
	// "order" is "random"; allowed: selection, relevance, edges
}
