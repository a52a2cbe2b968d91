package diverseselect

import "fmt"

// Pages on the gRPC rerank route. A gRPC search's offset would make the
// database hand the selection a pool that starts after it; the stage runs
// the search from its first result, as on page 1, and pages the selection
// (stage.go, setSearchWindow).

// explainPage is what a gRPC reply's explainScore says of a selected
// result, the rerank route's only per-object text: the rank in the whole
// paged selection, the page's offset and, when the query pages, whether the
// pool is spent.
func explainPage(rank, offset int, exhausted *bool) string {
	s := fmt.Sprintf("diverseSelect: rank %d, offset %d", rank, offset)
	if exhausted != nil {
		s += fmt.Sprintf(", exhausted %t", *exhausted)
	}
	return s
}
