package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/sirupsen/logrus"
	"google.golang.org/grpc/metadata"

	"github.com/weaviate/weaviate/entities/dto"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/search"
	"github.com/weaviate/weaviate/usecases/modulecomponents/additional/rank"
)

// The selection stage. Weaviate's explorer offers each Get query with module
// params to SelectResults once its pagination is settled, before the search
// (the "selection-stage" patch, cmd/patch-weaviate): the module takes the
// queries that select - either GraphQL form, a rerank by
// reranker-diverse-select, a rerank by another module whose property carries
// selection settings - resolves the query's settings once into a plan,
// searches its pool through the explorer (rerankers run
// there; generate and the other hooks run after the stage, on the
// selection), selects, widens
// the pool when the selection asks for it, and returns the selected objects
// read whole. Every route is one pass through runStage; nothing of a query
// travels in the context or in package state.

// SearchPool runs a query's search up to the selection (the explorer's
// callback): fusion, thresholds, autocut, boost and the rerankers.
type SearchPool = func(context.Context, dto.GetParams) ([]search.Result, error)

// arrival is how a query reaches the stage: its route and what the route
// carries.
type arrival struct {
	route route
	// refused is the stage's answer to a query it refuses before any
	// route (a rerank on a collection with no reranker).
	refused error
	class   *models.Class // nil: the engine's classByName
	// req is a GraphQL form's parsed arguments.
	req *Request
	// rerank is the rerank call the route answers (routeRerank) or lets the
	// other reranker answer first (routeCrossEncoder).
	rerank *rank.Params
	// read reads the query's objects by id (the engine's multiGet inside
	// Weaviate; the gateway's upstream reads in front of it).
	read MultiGetFunc
	// searchReads is the gateway's pool search (nil inside Weaviate).
	searchReads PoolSearch
}

// PoolSearch is a pool's search told what the selection reads of the pool:
// its text, token and source properties and a strategy's property
// parameters (the rest of what the params name is for the objects
// returned). The gateway asks its upstream for these alone and reads the
// rest for the selected objects.
type PoolSearch = func(ctx context.Context, params dto.GetParams, reads []string) ([]search.Result, error)

// poolSearch is the query's pool search: the gateway's, told p's reads,
// or searchPool.
func (c *arrival) poolSearch(searchPool SearchPool, p *plan) SearchPool {
	if c.searchReads == nil {
		return searchPool
	}
	reads := plainNames(p.propertiesToExtract())
	return func(ctx context.Context, params dto.GetParams) ([]search.Result, error) {
		return c.searchReads(ctx, params, reads)
	}
}

// SelectResults is the stage's entry point (the adapters' SelectResults, the
// explorer's ResultSelector): selected is false for a query that does not
// select with this module.
func (e *Engine) SelectResults(ctx context.Context, params dto.GetParams, searchPool SearchPool) (out []search.Result, selected bool, err error) {
	return e.selectWith(ctx, params, searchPool, origin{read: e.multiGet})
}

// origin is where a query's collection and its reads by id come from:
// inside Weaviate its live schema and MultiGet, in the gateway the
// caller's view of the upstream.
type origin struct {
	class *models.Class // nil: the engine's classByName
	read  MultiGetFunc  // nil: none, the pool's search then loads what the selection reads
	// searchReads: the pool's search, told the selection's reads (the
	// gateway's; nil: the searchPool given).
	searchReads PoolSearch
}

// selectWith is SelectResults with the query's origin given. Its errors
// carry their gRPC status (status.go).
func (e *Engine) selectWith(ctx context.Context, params dto.GetParams, searchPool SearchPool, src origin) (out []search.Result, selected bool, err error) {
	var c arrival
	if err := Guard(e.logger, "selection stage", func() error { c = e.arrivalOf(ctx, params, src.class); return nil }); err != nil {
		return nil, true, withStatus(Named(ArgName, err))
	}
	if c.refused != nil {
		return nil, true, withStatus(Named(RerankerName, c.refused))
	}
	if c.route == routeNone {
		return nil, false, nil
	}
	c.read, c.searchReads = src.read, src.searchReads
	growStack(len(params.ClassName))
	err = Guard(e.logger, "selection stage", func() error {
		var serr error
		out, serr = e.runStage(ctx, c, params, searchPool)
		return serr
	})
	var searchErr *searchError
	switch {
	case err == nil:
		return out, true, nil
	case errors.As(err, &searchErr):
		return nil, true, searchErr.err // Weaviate's own, as without the module
	}
	err = Named(routes[c.route].errPrefix, err)
	e.metrics.failure(c.route.String(), err)
	return nil, true, withStatus(err)
}

// searchPool runs the pool's search, Weaviate's work: its error, or a panic
// in it (logged with its stack), is the search's, not the module's.
func (e *Engine) runSearch(ctx context.Context, searchPool SearchPool, params dto.GetParams) (in []search.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			e.logger.WithFields(logrus.Fields{"panic": fmt.Sprint(p), "stack": string(debug.Stack())}).
				Error("diverse-select: a panic in the pool's search (Weaviate's), recovered by the selection stage")
			err = &searchError{fmt.Errorf("the search panicked (logged by the server with its stack): %v", p)}
		}
	}()
	if in, err = searchPool(ctx, params); err != nil {
		return nil, &searchError{err}
	}
	return in, nil
}

// arrivalOf tells whether and by which route the stage takes a query: only
// reading, the query is resolved in runStage.
func (e *Engine) arrivalOf(ctx context.Context, params dto.GetParams, class *models.Class) arrival {
	addl := params.AdditionalProperties.ModuleParams
	if r, ok := addl[ArgName].(*Request); ok && r != nil {
		return arrival{route: r.route, req: r}
	}
	rp, ok := addl[RerankProperty].(*rank.Params)
	if !ok || rp == nil {
		return arrival{}
	}
	rp = withRerankOptions(ctx, rp)
	if class == nil {
		class = e.classByName(params.ClassName)
	}
	switch {
	case class == nil:
		return arrival{}
	case classConfig(class, RerankerName) != nil:
		return arrival{route: routeRerank, class: class, rerank: rp}
	case !e.hasReranker(class):
		return arrival{refused: NoRerankerError(class.Class, moduleFix)}
	case strings.Contains(rp.GetProperty(), RerankSettingsSeparator):
		return arrival{route: routeCrossEncoder, class: class, rerank: rp}
	}
	return arrival{}
}

// withRerankOptions is the rerank call with its whole property: a gRPC
// search's options left the property before Weaviate checked it as a
// property name (the "rerank-options" patch) and are in the search's
// incoming metadata.
func withRerankOptions(ctx context.Context, rp *rank.Params) *rank.Params {
	md, _ := metadata.FromIncomingContext(ctx)
	for _, whole := range md.Get(rerankOptionsMetadata) {
		if strings.HasPrefix(whole, rp.GetProperty()+RerankSettingsSeparator) {
			out := *rp
			out.Property = &whole
			return &out
		}
	}
	return rp
}

// rerankOptionsMetadata is the key of the "rerank-options" glue
// (RerankPropertyOptionsMetadata in Weaviate's gRPC handler).
const rerankOptionsMetadata = "weaviate-rerank-property-options"

// runStage is one query's selection from its arrival: resolve, search the
// pool, select, widen at most once, and return the selected objects.
func (e *Engine) runStage(ctx context.Context, c arrival, params dto.GetParams, searchPool SearchPool) ([]search.Result, error) {
	q, err := e.resolve(c, params)
	if err != nil {
		return nil, err
	}
	widenedFrom := 0
	for {
		in, err := e.runSearch(ctx, c.poolSearch(searchPool, q.plan), q.search)
		if err != nil {
			return nil, err
		}
		out, widen, err := e.selectFrom(ctx, q, in, widenedFrom)
		if err != nil || widen == 0 {
			return out, err
		}
		// The pool was spent on near-copies with room left: search once
		// more with widenTo candidates; that selection is the answer.
		widenedFrom = widen
		q.setSearchLimit(q.plan.eff.WidenTo)
	}
}

// selectFrom is one pool's turn in the stage, under the module's time cap
// (which covers the module's reads, the selection and the explanation, not
// the search): read the pool (readPool), select (selectPool, which only
// selects), then read and explain the selected objects (selectedObjects);
// or return the size of the pool to widen from.
func (e *Engine) selectFrom(ctx context.Context, q *stageQuery, in []search.Result, widenedFrom int) ([]search.Result, int, error) {
	ctx, stop := e.capTime(ctx)
	defer stop()
	pool, err := e.readPool(ctx, q.plan, in)
	if err != nil {
		return nil, 0, err
	}
	s, err := e.selectPool(ctx, q.plan, pool, widenedFrom)
	if err != nil {
		return nil, 0, err
	}
	defer s.release()
	if s.widen {
		return nil, len(s.in), nil
	}
	out, err := e.selectedObjects(ctx, q.plan, s)
	if err != nil {
		return nil, 0, err
	}
	q.decorate(out)
	return out, 0, nil
}

// growStack grows the query's goroutine's stack, in one step while it is
// still shallow, to what the stage and the search under it use: otherwise
// the runtime doubles it several times on the way down, copying the whole
// stack each time. It depends on the runtime's stack growth, so it stays
// only while BenchmarkGrowStack's CPU profiles show less runtime.newstack
// with it than without.
//
//go:noinline
func growStack(i int) byte {
	var b [stageStack]byte
	return b[i%stageStack]
}

// stageStack is the stack growStack makes room for.
const stageStack = 32 << 10
