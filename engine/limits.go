package engine

import (
	"context"
	"errors"
	"fmt"
)

// errTimeCap is the cause of a query's context when the module's time cap
// DIVERSE_SELECT_MAX_SELECT_TIME, not the client, ended it.
var errTimeCap = errors.New("the module's time cap (DIVERSE_SELECT_MAX_SELECT_TIME) was reached")

// capTime bounds the module's work on one pool - the reads of uncached
// candidates, building the problem (token counts, features, evidence
// analysis, packing), the selection and the read of the selected objects -
// by the module's time cap DIVERSE_SELECT_MAX_SELECT_TIME, under the query's
// own context (a disconnect or a query timeout ends it too). Weaviate's
// search is not under it, and a query that widens gets it once per pool.
func (e *Engine) capTime(ctx context.Context) (context.Context, context.CancelFunc) {
	if limit := e.defaults.MaxSelectTime; limit > 0 {
		return context.WithTimeoutCause(ctx, limit, errTimeCap)
	}
	return context.WithCancel(ctx)
}

// stopped is the error of work that ctx (from capTime) ended, or nil while
// ctx runs: the time cap's error naming the variable, or the client's
// cancellation.
func (e *Engine) stopped(ctx context.Context, p *plan, n int, stage string) error {
	if ctx.Err() == nil {
		return nil
	}
	if errors.Is(context.Cause(ctx), errTimeCap) {
		return &markedError{mark: context.DeadlineExceeded, err: fmt.Errorf("strategy %q on %d candidates "+
			"ran longer than the module's cap of %s (DIVERSE_SELECT_MAX_SELECT_TIME) and was stopped while %s; use fewer candidates "+
			"or a faster strategy (topk, mmr, adagres)", p.eff.Strategy, n, e.defaults.MaxSelectTime, stage)}
	}
	return fmt.Errorf("selection cancelled while %s: %w", stage, ctx.Err())
}

// checkEvery is how many candidates the problem building handles between
// two looks at the query's context.
const checkEvery = 64
