package diverseselect

import (
	"context"
	"fmt"
	"sync/atomic"
)

// Pages on the gRPC rerank route. A gRPC search's offset is applied by the
// database, which would hand the reranker a pool that starts after it. For a
// search that reranks with reranker-diverse-select, the "grpc-search" glue
// moves the offset from the search into the context (MoveRerankOffset):
// the search retrieves the pool from its first result, as on page 1, and
// the reranker pages the selection. Every other search keeps its offset.

// activeReranker is this process's reranker-diverse-select (nil when not
// enabled), for MoveRerankOffset.
var activeReranker atomic.Pointer[Reranker]

type rerankOffsetKey struct{}

// MoveRerankOffset returns ctx carrying offset and 0 for the search's own
// offset when a gRPC search reranks (reranks) a collection that configures
// reranker-diverse-select; else ctx and offset unchanged.
func MoveRerankOffset(ctx context.Context, collection string, offset uint32, reranks bool) (context.Context, uint32) {
	rr := activeReranker.Load()
	if offset == 0 || !reranks || rr == nil {
		return ctx, offset
	}
	class := rr.m.classByName(collection)
	if class == nil || classConfig(class, RerankerName) == nil {
		return ctx, offset
	}
	return context.WithValue(ctx, rerankOffsetKey{}, int(offset)), 0
}

// rerankOffset is the offset MoveRerankOffset moved for this search (0: none).
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
