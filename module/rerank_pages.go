package diverseselect

import (
	"context"
	"fmt"
)

// Pages on the gRPC rerank route. A gRPC search's offset is applied by the
// database, which would hand the reranker a pool that starts after it. For a
// search that reranks with reranker-diverse-select, the "grpc-search" glue
// moves the offset from the search into the context:
// the search retrieves the pool from its first result, as on page 1, and
// the reranker pages the selection (PrepareGRPCSearch). Every other search
// keeps its offset.

type rerankOffsetKey struct{}

// rerankOffset is the offset PrepareGRPCSearch moved for this search (0: none).
func rerankOffset(ctx context.Context) int {
	o, _ := ctx.Value(rerankOffsetKey{}).(int)
	return o
}

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
