// Package selectors chooses, from the chunks a search retrieved, the set to
// put in a language model's context window: relevant, not redundant, and
// within a token budget.
//
// A Problem holds the candidates in retrieval order (relevance, token cost,
// vector, and text for the text strategies) and the constraints every
// strategy honours: Budget, MaxResults, Order and DedupThreshold. New
// looks a strategy up by name in the registry and validates its parameters
// against the strategy's ParamSpecs; (*Selector).Run validates the problem,
// runs the strategy and checks its selection before returning it, so a
// Result never breaks the constraints, and a strategy's panic is returned
// as a *PanicError. (*Selector).RunPage runs the pages of a paged selection.
//
// The strategies live in packages of their own (selectors/coverage, the
// default, selectors/mmr, ...), each registering itself with Register from
// its init function; import selectors/all for every one of them. They are
// written up in docs/strategies.md. The package imports nothing from
// Weaviate: any retrieval pipeline can use it as a library.
package selectors
