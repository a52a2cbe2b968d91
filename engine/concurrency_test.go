package engine

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/weaviate/weaviate/entities/models"

	"github.com/diverse-select/diverse-select/config"
)

// TestStageConcurrent runs the selection stage from many goroutines on one shared
// Module - shared token counters, feature cache and engine pool, as inside a
// server - with every strategy and a mix of budgets, and checks each answer
// against the same query run alone. Under `make test-race` it is the race
// detector's workload.
func TestStageConcurrent(t *testing.T) {
	class := docClass()
	m := New(func(string) *models.Class { return class })
	queries := []map[string]any{
		{"strategy": "coverage", "tokenBudget": 300},
		{"strategy": "adagres", "tokenBudget": 250},
		{"strategy": "mmr", "lambda": 0.4, "maxResults": 6},
		{"strategy": "facility", "tokenBudget": 400, "dedupThreshold": 0.9},
		{"strategy": "dpp", "tokenBudget": 300},
		{"strategy": "knapsack", "tokenBudget": 300, "tokenizer": "words"},
		{"strategy": "ngram", "tokenBudget": 300},
		{"strategy": "cliff", "tokenBudget": 300, "order": "edges"},
		{"strategy": "topk", "tokenBudget": 200, "tokenizer": "chars"},
		{"strategy": "relcost", "tokenBudget": 200},
	}
	// The reference: each query alone on a fresh module.
	want := make([]string, len(queries))
	for i, q := range queries {
		out, err := runHook(t, New(func(string) *models.Class { return class }), results(40, 1000), q)
		require.NoError(t, err, q)
		want[i] = fmt.Sprint(ids(out))
	}
	const goroutines, rounds = 32, 8
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*rounds)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for k := 0; k < rounds; k++ {
				i := (g + k) % len(queries)
				r := &Request{e: m, route: routeArgument}
				if r.overrides, r.err = config.Parse(queries[i], m.defaults.Limits); r.err != nil {
					errs <- r.err
					return
				}
				// Later rounds see updated objects: new feature-cache keys.
				out, err := m.selectStage(context.Background(), results(40, int64(1000+k%2)), r)
				if err != nil {
					errs <- fmt.Errorf("%v: %w", queries[i], err)
					continue
				}
				if got := fmt.Sprint(ids(out)); got != want[i] {
					errs <- fmt.Errorf("%v: selected %s alone, %s concurrently", queries[i], want[i], got)
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	require.LessOrEqual(t, m.features.Stats().Bytes, m.features.Stats().MaxBytes)
}

// TestSelectionCancelled: the hook passes the query's context to the
// strategy; a cancelled context stops it with an error naming the reason,
// and the time cap with an error naming DIVERSE_SELECT_MAX_SELECT_TIME.
func TestSelectionCancelled(t *testing.T) {
	class := docClass()
	m := New(func(string) *models.Class { return class })
	r := &Request{e: m, route: routeArgument}
	var err error
	r.overrides, err = config.Parse(map[string]any{"strategy": "adagres"}, m.defaults.Limits)
	require.NoError(t, err)
	c, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = m.selectStage(c, results(40, 1), r)
	require.ErrorContains(t, err, "diverseSelect: selection cancelled")
	require.ErrorIs(t, err, context.Canceled)

	m.defaults.MaxSelectTime = 1 // 1 ns: expired before the first check
	r = &Request{e: m, route: routeArgument}
	r.overrides, err = config.Parse(map[string]any{"strategy": "adagres"}, m.defaults.Limits)
	require.NoError(t, err)
	_, err = m.selectStage(context.Background(), results(40, 1), r)
	require.ErrorContains(t, err, "DIVERSE_SELECT_MAX_SELECT_TIME")
}

// TestGuard: a panic becomes an error naming the entry point (the entry
// point names the module), logged with its stack.
func TestGuard(t *testing.T) {
	m, hook := fuzzModule()
	err := Guard(m.logger, "argument parsing", func() error { panic("boom") })
	require.ErrorContains(t, err, "internal error in argument parsing")
	require.ErrorContains(t, err, "boom")
	require.Len(t, hook.AllEntries(), 1)
	require.Contains(t, hook.LastEntry().Data["stack"], "TestGuard")
	require.NoError(t, Guard(m.logger, "x", func() error { return nil }))
}
