// Package all registers every built-in strategy with the selectors registry.
// Import it for its side effect:
//
//	import _ "github.com/diverse-select/diverse-select/selectors/all"
package all

import (
	_ "github.com/diverse-select/diverse-select/selectors/adagres"
	_ "github.com/diverse-select/diverse-select/selectors/cliff"
	_ "github.com/diverse-select/diverse-select/selectors/coverage"
	_ "github.com/diverse-select/diverse-select/selectors/dpp"
	_ "github.com/diverse-select/diverse-select/selectors/facility"
	_ "github.com/diverse-select/diverse-select/selectors/knapsack"
	_ "github.com/diverse-select/diverse-select/selectors/mmr"
	_ "github.com/diverse-select/diverse-select/selectors/ngram"
	_ "github.com/diverse-select/diverse-select/selectors/relcost"
	_ "github.com/diverse-select/diverse-select/selectors/topk"
)
