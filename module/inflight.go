package diverseselect

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weaviate/weaviate/entities/search"
	"golang.org/x/sync/semaphore"

	"github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/simcache"
)

// inflight bounds the memory the selections of all concurrent queries hold
// at once (DIVERSE_SELECT_MAX_INFLIGHT_MB): the per-query caps bound one
// query, but 64 concurrent queries of 2000 candidates each would still hold
// 64 times 36 MiB. A selection reserves its estimated bytes before it builds
// its problem and returns them when its buffers are released; one that does
// not fit waits, first come first served, at most wait (and never past its
// query's context), then fails with an error naming the variable. Refusing
// a query is recoverable; the kernel's out-of-memory kill of the database is
// not.
type inflight struct {
	sem   *semaphore.Weighted // nil: no bound
	limit int64               // bytes
	wait  time.Duration
	held  atomic.Int64 // bytes reserved now (for errors and /v1/meta)
}

// newInflight returns the bound of the module's defaults. A queued query
// waits at most as long as one selection may run (DIVERSE_SELECT_MAX_SELECT_TIME,
// its default when that is 0): by then every selection that held the memory
// it waits for has finished or been stopped by that cap.
func newInflight(d config.Module) *inflight {
	f := &inflight{limit: d.MaxInflightBytes(), wait: d.MaxSelectTime}
	if f.wait <= 0 {
		f.wait = config.DefaultMaxSelectTime
	}
	if f.limit > 0 {
		f.sem = semaphore.NewWeighted(f.limit)
	}
	return f
}

// acquire reserves need bytes for a selection over n candidates; release
// returns them (once, however often it is called).
func (f *inflight) acquire(ctx context.Context, need int64, n int) (release func(), err error) {
	if f == nil || f.sem == nil || need <= 0 {
		return func() {}, nil
	}
	if need > f.limit {
		return nil, &markedError{mark: errCapExceeded, err: fmt.Errorf("diverseSelect: the selection over %d candidates needs %s, "+
			"more than the module's bound of %s on the memory of all concurrent selections (DIVERSE_SELECT_MAX_INFLIGHT_MB); "+
			"use fewer candidates, or raise DIVERSE_SELECT_MAX_INFLIGHT_MB", n, mibText(need), mibText(f.limit))}
	}
	waitCtx, cancel := context.WithTimeout(ctx, f.wait)
	defer cancel()
	if err := f.sem.Acquire(waitCtx, need); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("diverseSelect: selection cancelled while waiting for memory: %w", ctx.Err())
		}
		return nil, &markedError{mark: errCapExceeded, err: fmt.Errorf("diverseSelect: the selection over %d candidates needs %s "+
			"and waited %s, but concurrent selections held the module's bound of %s (DIVERSE_SELECT_MAX_INFLIGHT_MB) "+
			"all that time; retry, use fewer candidates, or raise DIVERSE_SELECT_MAX_INFLIGHT_MB",
			n, mibText(need), f.wait, mibText(f.limit))}
	}
	f.held.Add(need)
	var once sync.Once
	return func() {
		once.Do(func() {
			f.held.Add(-need)
			f.sem.Release(need)
		})
	}, nil
}

// selectionBytes estimates what selecting from in holds beyond the results
// Weaviate already has: the packed vectors (when the strategy or the dedup
// pass compares vectors; every vector of a multi-vector) and the strategy's
// N x N matrices (unless the matrix cap refuses them before they are
// allocated). entries are the candidates' feature cache entries when looked
// up (a deferred vector's length is read there).
func (m *Module) selectionBytes(p *plan, in []search.Result, entries []*simcache.Features) int64 {
	n := len(in)
	var need int64
	if mb, limit := p.eff.Selector.MatrixBytes(n), m.defaults.MaxMatrixBytes(); limit == 0 || mb <= limit {
		need += mb
	}
	if p.needsVectors() && p.multiVector {
		need += multiVectorBytes(p, in)
	} else if p.needsVectors() {
		var first *simcache.Features
		if len(entries) > 0 {
			first = entries[0]
		}
		if v, err := vectorOf(in[0], p.target, first); err == nil {
			need += simcache.PackedBytes(n, len(v))
		}
	}
	return need
}

func mibText(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
