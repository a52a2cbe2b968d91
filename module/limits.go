package diverseselect

import (
	"context"
	"errors"
	"fmt"

	"github.com/diverse-select/diverse-select/selectors"
)

// runSelection runs the strategy under the query's context (the client's
// request: a disconnect or a query timeout cancels it) and the module's time
// cap DIVERSE_SELECT_MAX_SELECT_TIME; the strategies check the context in
// their loops. A cancelled selection is logged, so the stop is observable.
func (m *Module) runSelection(ctx context.Context, r *plan, p *selectors.Problem) (*selectors.Page, error) {
	limit := m.defaults.MaxSelectTime
	runCtx := ctx
	if limit > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, limit)
		defer cancel()
	}
	res, err := r.eff.Selector.RunPage(runCtx, p, r.offset, r.paged)
	if err == nil {
		return res, nil
	}
	if pe := (*selectors.PanicError)(nil); errors.As(err, &pe) {
		return nil, panicError(m.logger, fmt.Sprintf("strategy %q", pe.Strategy), pe.Value, pe.Stack)
	}
	if runCtx.Err() == nil {
		return nil, strategyError(err)
	}
	capHit := ctx.Err() == nil // the cap fired, not the client
	m.logger.WithFields(map[string]any{
		"class": r.className, "strategy": r.eff.Strategy, "candidates": len(p.Candidates),
		"reason": context.Cause(runCtx).Error(), "timeCap": capHit,
	}).Warn("diverse-select: selection cancelled")
	if capHit {
		return nil, &markedError{mark: context.DeadlineExceeded, err: fmt.Errorf("strategy %q on %d candidates "+
			"ran longer than the module's cap of %s (DIVERSE_SELECT_MAX_SELECT_TIME) and was stopped; use fewer candidates "+
			"or a faster strategy (topk, mmr, adagres)", r.eff.Strategy, len(p.Candidates), limit)}
	}
	return nil, fmt.Errorf("selection cancelled: %w", errors.Join(ctx.Err(), err))
}
