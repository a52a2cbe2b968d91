package engine

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	restCtx "github.com/weaviate/weaviate/adapters/handlers/rest/context"

	"github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/selectors"
)

// inflight bounds the memory the selections of all concurrent queries hold
// at once (DIVERSE_SELECT_MAX_INFLIGHT_MB): the per-query caps bound one
// query, but 64 concurrent queries of 2000 candidates each would still hold
// 64 times 36 MiB. A selection reserves its estimated bytes before it builds
// its problem and returns them when its buffers are released; one that does
// not fit waits at most wait (and never past its query's context), then fails
// with an error naming the variable. Refusing a query is recoverable; the
// kernel's out-of-memory kill of the database is not.
//
// The bound is shared fairly among the callers (Weaviate's principals; all
// anonymous queries are one caller): when memory is freed, the waiting query
// of the caller that holds the least goes first (among one caller's queries,
// the earliest). A client that floods the database with heavy queries then
// waits behind everyone else's instead of holding every slot until the other
// clients time out.
type inflight struct {
	limit int64 // bytes; 0: no bound
	wait  time.Duration
	held  atomic.Int64 // bytes reserved now; written under mu, read without it (metrics, /v1/meta)

	mu      sync.Mutex
	byOwner map[string]int64 // bytes each caller holds
	waiters []*inflightWaiter
}

// inflightWaiter is a reservation waiting for memory; granted is closed when
// it is made.
type inflightWaiter struct {
	owner   string
	need    int64
	granted chan struct{}
}

// newInflight returns the bound of the module's defaults. A queued query
// waits at most as long as one selection may run (DIVERSE_SELECT_MAX_SELECT_TIME,
// its default when that is 0): by then every selection that held the memory
// it waits for has finished or been stopped by that cap.
func newInflight(d config.Module) *inflight {
	f := &inflight{limit: d.MaxInflightBytes(), wait: d.MaxSelectTime, byOwner: map[string]int64{}}
	if f.wait <= 0 {
		f.wait = config.DefaultMaxSelectTime
	}
	return f
}

// acquire reserves need bytes for a selection over n candidates; release
// returns them (once, however often it is called). The caller is the
// principal of ctx (Weaviate's request context).
func (f *inflight) acquire(ctx context.Context, need int64, n int) (release func(), err error) {
	if f == nil || f.limit <= 0 || need <= 0 {
		return func() {}, nil
	}
	if need > f.limit {
		return nil, &markedError{mark: errCapExceeded, err: fmt.Errorf("diverseSelect: the selection over %d candidates needs %s, "+
			"more than the module's bound of %s on the memory of all concurrent selections (DIVERSE_SELECT_MAX_INFLIGHT_MB); "+
			"use fewer candidates, or raise DIVERSE_SELECT_MAX_INFLIGHT_MB", n, selectors.MiB(need), selectors.MiB(f.limit))}
	}
	w := &inflightWaiter{owner: ownerOf(ctx), need: need, granted: make(chan struct{})}
	f.mu.Lock()
	f.waiters = append(f.waiters, w)
	f.grant()
	f.mu.Unlock()
	timer := time.NewTimer(f.wait)
	defer timer.Stop()
	select {
	case <-w.granted:
	case <-ctx.Done():
		if !f.cancel(w) {
			return f.releaser(w), nil // granted meanwhile
		}
		return nil, fmt.Errorf("diverseSelect: selection cancelled while waiting for memory: %w", ctx.Err())
	case <-timer.C:
		if !f.cancel(w) {
			return f.releaser(w), nil
		}
		return nil, &markedError{mark: errCapExceeded, err: fmt.Errorf("diverseSelect: the selection over %d candidates needs %s "+
			"and waited %s, but concurrent selections held the module's bound of %s (DIVERSE_SELECT_MAX_INFLIGHT_MB) "+
			"all that time; retry, use fewer candidates, or raise DIVERSE_SELECT_MAX_INFLIGHT_MB",
			n, selectors.MiB(need), f.wait, selectors.MiB(f.limit))}
	}
	return f.releaser(w), nil
}

// grant makes the reservations that fit, in fair order: each time the
// waiting query of the caller holding the least (the earliest of its
// queries). When that one does not fit, nothing is granted past it, so a
// large query is not starved by smaller ones. Called under mu.
func (f *inflight) grant() {
	for len(f.waiters) > 0 {
		next := 0
		for i, w := range f.waiters {
			if f.byOwner[w.owner] < f.byOwner[f.waiters[next].owner] {
				next = i
			}
		}
		w := f.waiters[next]
		if f.held.Load()+w.need > f.limit {
			return
		}
		f.waiters = append(f.waiters[:next], f.waiters[next+1:]...)
		f.held.Add(w.need)
		f.byOwner[w.owner] += w.need
		close(w.granted)
	}
}

// cancel withdraws a waiting reservation; false when it was granted already.
func (f *inflight) cancel(w *inflightWaiter) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, x := range f.waiters {
		if x == w {
			f.waiters = append(f.waiters[:i], f.waiters[i+1:]...)
			f.grant() // a large waiter may have held smaller ones back
			return true
		}
	}
	return false
}

// releaser returns a granted reservation's memory, once.
func (f *inflight) releaser(w *inflightWaiter) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.held.Add(-w.need)
			if f.byOwner[w.owner] -= w.need; f.byOwner[w.owner] <= 0 {
				delete(f.byOwner, w.owner)
			}
			f.grant()
		})
	}
}

// ownerOf names the caller of a query for the fair share: the principal
// Weaviate put in the request's context ("" when anonymous).
func ownerOf(ctx context.Context) string {
	if p := restCtx.GetPrincipalFromContext(ctx); p != nil {
		return p.Username
	}
	return ""
}
