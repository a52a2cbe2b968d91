package engine

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	restCtx "github.com/weaviate/weaviate/adapters/handlers/rest/context"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/search"

	"github.com/diverse-select/diverse-select/config"
)

func newTestInflight(limitMB int, wait time.Duration) *inflight {
	return newInflight(config.Module{MaxInflightMB: limitMB, MaxSelectTime: wait})
}

// TestInflightAcquire: reservations within the bound pass, one that does not
// fit waits and then fails naming the variable, one above the whole bound
// fails at once, a released reservation lets a waiting one in, and a
// cancelled query stops waiting.
func TestInflightAcquire(t *testing.T) {
	const mb = 1 << 20
	ctx := context.Background()
	f := newTestInflight(10, 50*time.Millisecond)

	r1, err := f.acquire(ctx, 6*mb, 100)
	require.NoError(t, err)
	r2, err := f.acquire(ctx, 4*mb, 100)
	require.NoError(t, err, "6 + 4 MiB fit a 10 MiB bound")
	require.EqualValues(t, 10*mb, f.held.Load())

	start := time.Now()
	_, err = f.acquire(ctx, 1*mb, 100)
	require.ErrorContains(t, err, "DIVERSE_SELECT_MAX_INFLIGHT_MB")
	require.ErrorContains(t, err, "waited 50ms")
	require.GreaterOrEqual(t, time.Since(start), 50*time.Millisecond, "it waited before failing")
	require.Equal(t, kindCapExceeded, errorKind(err))

	_, err = f.acquire(ctx, 11*mb, 3000)
	require.ErrorContains(t, err, "the selection over 3000 candidates needs 11.0 MiB, more than the module's bound of 10.0 MiB")
	require.ErrorContains(t, err, "DIVERSE_SELECT_MAX_INFLIGHT_MB")
	require.Equal(t, kindCapExceeded, errorKind(err))

	// A waiting selection gets the memory as soon as another releases it.
	f = newTestInflight(10, 5*time.Second)
	hold, err := f.acquire(ctx, 8*mb, 100)
	require.NoError(t, err)
	got := make(chan error, 1)
	go func() {
		release, err := f.acquire(ctx, 8*mb, 100)
		if err == nil {
			release()
		}
		got <- err
	}()
	time.Sleep(20 * time.Millisecond)
	hold()
	hold() // a second release is a no-op, not a double release
	require.NoError(t, <-got)
	require.Zero(t, f.held.Load())

	// A cancelled query stops waiting with the context's error.
	hold, err = f.acquire(ctx, 8*mb, 100)
	require.NoError(t, err)
	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err = f.acquire(cctx, 8*mb, 100)
	require.True(t, errors.Is(err, context.Canceled), "%v", err)
	hold()
	r1()
	r2()

	// No bound: nothing is counted, nothing waits.
	f = newTestInflight(0, time.Second)
	release, err := f.acquire(ctx, 1<<40, 2000)
	require.NoError(t, err)
	release()
}

// TestInflightWaitDefault: the wait is the selection time cap, or its
// default when the cap is off.
func TestInflightWaitDefault(t *testing.T) {
	require.Equal(t, 3*time.Second, newTestInflight(1, 3*time.Second).wait)
	require.Equal(t, config.DefaultMaxSelectTime, newTestInflight(1, 0).wait)
}

// TestStageInflightBound: through the selection stage, the estimate counts the
// strategy's matrices and the packed vectors; a selection above the whole
// bound is refused naming the variable, and concurrent selections that do
// not fit together run one after the other instead of failing. The bound is
// free again afterwards.
func TestStageInflightBound(t *testing.T) {
	class := docClass()
	m := New(func(string) *models.Class { return class })
	in := results(1000, 1)
	// coverage over the whole pool (targets 0): one float32 N x N block.
	wholePool := map[string]any{"strategy": "coverage", "targets": 0}
	query, err := config.Parse(wholePool, m.defaults.Limits)
	require.NoError(t, err)
	p, err := m.newPlan(class, routeArgument, query, searchFromArgs(nil))
	require.NoError(t, err)
	need := m.selectionBytes(p, in, nil)
	// One float32 N x N block, plus 1000 vectors of 16 floats, plus the texts.
	text := problemTextBytes(p, in, nil)
	require.EqualValues(t, textOverhead*sumTextBytes(in, p.textProps), text)
	require.EqualValues(t, 1000*1000*4+1000*16*4+text, need)

	m.inflight = newTestInflight(3, time.Second) // 3 MiB < 3.9 MiB
	_, err = runHook(t, m, in, wholePool)
	require.ErrorContains(t, err, "more than the module's bound of 3.0 MiB on the memory of all concurrent selections (DIVERSE_SELECT_MAX_INFLIGHT_MB)")
	_, err = runHook(t, m, in, map[string]any{"strategy": "mmr"})
	require.NoError(t, err, "mmr reads rows only: 64 KiB of packed vectors fit")

	m.inflight = newTestInflight(5, 30*time.Second) // one coverage selection at a time
	want, err := runHook(t, m, in, wholePool)
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := runHook(t, m, in, wholePool)
			if err == nil && len(got) != len(want) {
				err = errors.New("a different selection")
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Zero(t, m.inflight.held.Load(), "every reservation released")
}

// TestInflightFair: a caller that holds the whole bound and queues more does
// not keep another caller out: when memory is freed, the caller holding the
// least goes first, even though its query came later and the heavy caller's
// waiting query is first in line.
func TestInflightFair(t *testing.T) {
	const mb = 1 << 20
	f := newTestInflight(10, 5*time.Second)
	heavy := restCtx.AddPrincipalToContext(context.Background(), &models.Principal{Username: "heavy"})
	light := restCtx.AddPrincipalToContext(context.Background(), &models.Principal{Username: "light"})
	big, err := f.acquire(heavy, 6*mb, 100)
	require.NoError(t, err)
	small, err := f.acquire(heavy, 4*mb, 100)
	require.NoError(t, err)

	type got struct {
		who     string
		release func()
	}
	order := make(chan got, 2)
	waitFor := func(ctx context.Context, who string, need int64) {
		release, err := f.acquire(ctx, need, 100)
		require.NoError(t, err)
		order <- got{who, release}
	}
	go waitFor(heavy, "heavy", 6*mb) // first in line, does not fit until big is released
	require.Eventually(t, func() bool { f.mu.Lock(); defer f.mu.Unlock(); return len(f.waiters) == 1 }, time.Second, time.Millisecond)
	go waitFor(light, "light", 4*mb)
	require.Eventually(t, func() bool { f.mu.Lock(); defer f.mu.Unlock(); return len(f.waiters) == 2 }, time.Second, time.Millisecond)

	small() // 4 MiB free: heavy still holds 6, light none - light goes first
	first := <-order
	require.Equal(t, "light", first.who)
	big()
	first.release()
	second := <-order
	require.Equal(t, "heavy", second.who)
	second.release()
	require.Zero(t, f.held.Load())
}

func sumTextBytes(in []search.Result, names []string) int64 {
	var n int64
	for _, r := range in {
		props, _ := r.Schema.(map[string]any)
		for _, name := range names {
			if s, ok := props[name].(string); ok {
				n += int64(len(s))
			}
		}
	}
	return n
}

// TestTimeCapCoversProblemBuilding: the module's time cap bounds the work
// before the strategy runs too (token counts, features, evidence cards), so
// a query whose text work is slow is stopped with the variable named.
func TestTimeCapCoversProblemBuilding(t *testing.T) {
	class := docClass()
	m := New(func(string) *models.Class { return class })
	m.defaults.MaxSelectTime = time.Nanosecond
	_, err := runHook(t, m, results(500, 1), map[string]any{"strategy": "ngram", "evidence": "cards"})
	require.ErrorContains(t, err, "DIVERSE_SELECT_MAX_SELECT_TIME")
	require.ErrorContains(t, err, "building the problem")
	require.Equal(t, kindTimeout, errorKind(err))
}
