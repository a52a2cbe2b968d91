package engine

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weaviate/weaviate/entities/additional"
	"github.com/weaviate/weaviate/entities/dto"
	"github.com/weaviate/weaviate/entities/filters"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/multi"
	"github.com/weaviate/weaviate/entities/search"
	"github.com/weaviate/weaviate/usecases/modulecomponents/additional/rank"
)

// store stands in for Weaviate's DB.MultiGet in this package's tests: it
// serves whole objects by id and records every batch asked for.
type store struct {
	objects map[string]search.Result
	batches [][]string
}

func newStore(in []search.Result) *store {
	s := &store{objects: map[string]search.Result{}}
	for _, r := range in {
		s.objects[r.ID.String()] = r
	}
	return s
}

func (s *store) multiGet(_ context.Context, ids []multi.Identifier, _ additional.Properties, _ string) ([]search.Result, error) {
	out := make([]search.Result, len(ids))
	batch := make([]string, len(ids))
	for i, id := range ids {
		batch[i] = id.ID
		out[i] = s.objects[id.ID] // the zero result for a deleted object, as Weaviate's
	}
	s.batches = append(s.batches, batch)
	return out, nil
}

// TestDeferredSelection: a pool read as ids and scores (no properties, no
// vectors) selects exactly what the whole pool selects and returns the
// selected objects whole: the first time every candidate's text and vector
// is read by id in one batch, once the cache holds them only the selected
// objects are; a selected object deleted since the search is left out.
func TestDeferredSelection(t *testing.T) {
	for _, pool := range []int{60, parallelLookups + 44} { // the last: the look-ups on every core
		t.Run(fmt.Sprintf("pool %d", pool), func(t *testing.T) {
			testDeferredSelection(t, pool)
		})
	}
}

func testDeferredSelection(t *testing.T, pool int) {
	class := docClass()
	byName := func(string) *models.Class { return class }
	for _, args := range []map[string]any{
		{"tokenBudget": 300}, // the default, coverage
		{"strategy": "mmr", "tokenBudget": 300},
		{"strategy": "adagres", "tokenBudget": 300, "tokenizer": "chars"},
		{"strategy": "knapsack", "tokenBudget": 300},
		{"strategy": "ngram", "tokenBudget": 300},
		{"tokenBudget": 300, "evidence": "cards", "query": "statins liver"},
	} {
		t.Run(fmt.Sprint(args), func(t *testing.T) {
			whole := results(pool, 1000)
			want, err := runHook(t, New(byName), whole, args) // no database at hand: the pool loads everything
			require.NoError(t, err)
			require.NotEmpty(t, want)

			m := New(byName)
			db := newStore(results(pool, 1000))
			m.multiGet = db.multiGet
			run := func() []search.Result {
				got, f, err := runStage(m, argumentParams(t, m, withCandidates(args, pool)), results(pool, 1000))
				require.NoError(t, err)
				require.True(t, f.pools[0].AdditionalProperties.NoProps, "the pool is read without properties")
				require.False(t, f.pools[0].AdditionalProperties.Vector, "and without vectors")
				return got
			}
			cold := run()
			require.Equal(t, ids(want), ids(cold))
			require.Len(t, db.batches, 1, "one batch for the uncached texts, none for the selected (read with them)")
			require.Len(t, db.batches[0], pool)
			for i := range want {
				require.Equal(t, want[i].Schema, cold[i].Schema, "the selected objects are whole")
			}

			db.batches = nil
			warm := run()
			require.Equal(t, ids(want), ids(warm))
			require.Len(t, db.batches, 1, "the texts and vectors from the cache: only the selected are read")
			require.Len(t, db.batches[0], len(want))
			for i := range want {
				require.Equal(t, want[i].Schema, warm[i].Schema)
			}

			delete(db.objects, want[0].ID.String())
			gone := run()
			require.Equal(t, ids(want)[1:], ids(gone), "the deleted object is left out")
		})
	}
}

// TestPoolLoads: the pool is read as ids and scores only when the selection
// is the sole reader of its properties; else the pool's search loads what
// the selection reads, and the vector it compares.
func TestPoolLoads(t *testing.T) {
	class := docClass()
	class.Properties = append(class.Properties, &models.Property{Name: "ntok", DataType: []string{"int"}},
		&models.Property{Name: "author", DataType: []string{"Person"}})
	class.ModuleConfig = map[string]any{RerankerName: map[string]any{}}
	m := New(func(string) *models.Class { return class })
	m.multiGet = newStore(nil).multiGet
	params := func(args map[string]any, edit func(*dto.GetParams)) dto.GetParams {
		p := argumentParams(t, m, args)
		if edit != nil {
			edit(&p)
		}
		return p
	}
	for _, tc := range []struct {
		name       string
		p          dto.GetParams
		want       bool
		wantVector bool // not deferred: the pool's search is asked for the legacy vector
	}{
		{"the default selection", params(nil, nil), true, false},
		{"another hook (it runs after the selection)", params(nil, func(p *dto.GetParams) { p.AdditionalProperties.ModuleParams["other"] = struct{}{} }), true, false},
		{"the rerank route", rerankParams(20, 0, "body", "q"), true, false},
		{"a cross-reference asked for", params(nil, func(p *dto.GetParams) {
			p.Properties = append(p.Properties, search.SelectProperty{Name: "author", Refs: []search.SelectClass{{ClassName: "Person"}}})
		}), false, true},
		{"boost", params(nil, func(p *dto.GetParams) { p.Boost = &filters.Boost{Weight: 0.5} }), false, true},
		{"tokenProperty", params(map[string]any{"tokenProperty": "ntok"}, nil), false, true},
		{"sourceProperty, which the default strategy does not read", params(map[string]any{"sourceProperty": "body"}, nil), true, false},
		{"sourceProperty with ngram, which reads it", params(map[string]any{"sourceProperty": "body", "strategy": "ngram"}, nil), false, false},
		{"a strategy that compares no vectors", params(map[string]any{"strategy": "ngram"}, nil), true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, f, err := runStage(m, tc.p, results(20, 1))
			require.NoError(t, err)
			pool := f.pools[0]
			require.Equal(t, tc.want, pool.AdditionalProperties.NoProps)
			require.Equal(t, tc.wantVector, pool.AdditionalProperties.Vector)
			require.NotContains(t, pool.AdditionalProperties.ModuleParams, ArgName, "the selection is not a hook of the pool")
			require.NotContains(t, pool.AdditionalProperties.ModuleParams, RerankProperty)
			if !tc.want {
				require.True(t, slices.ContainsFunc(pool.Properties, func(p search.SelectProperty) bool { return p.Name == "body" }))
			}
		})
	}
	t.Run("another reranker scores the pool first", func(t *testing.T) {
		other := docClass()
		other.ModuleConfig = map[string]any{"reranker-transformers": map[string]any{}}
		m := New(func(string) *models.Class { return other })
		m.multiGet = newStore(nil).multiGet
		body, withSettings := "body", "body|"+RerankSettingsVersion+`|{"maxResults":2}`
		p := argumentParams(t, m, nil)
		p.AdditionalProperties.ModuleParams[RerankProperty] = &rank.Params{Property: &body}
		_, f, err := runStage(m, p, results(20, 1))
		require.NoError(t, err)
		require.Contains(t, f.pools[0].AdditionalProperties.ModuleParams, RerankProperty)
		require.False(t, f.pools[0].AdditionalProperties.NoProps, "the reranker reads the text")
		p.AdditionalProperties.ModuleParams[RerankProperty] = &rank.Params{Property: &withSettings}
		_, _, err = runStage(m, p, results(20, 1))
		require.ErrorContains(t, err, "give them in one place", "settings in the rerank property and diverseSelect")
	})
	t.Run("diverseSelect and the rerank field on a collection whose reranker is this module", func(t *testing.T) {
		body := "body"
		p := params(nil, func(p *dto.GetParams) {
			p.AdditionalProperties.ModuleParams[RerankProperty] = &rank.Params{Property: &body}
		})
		_, f, err := runStage(m, p, results(20, 1))
		require.ErrorContains(t, err, "give the selection once")
		require.Empty(t, f.pools)
	})
	t.Run("no database at hand", func(t *testing.T) {
		m := New(func(string) *models.Class { return class })
		_, f, err := runStage(m, params(nil, nil), results(20, 1))
		require.NoError(t, err)
		require.False(t, f.pools[0].AdditionalProperties.NoProps)
	})
	t.Run("a class with multi-vectors loads them", func(t *testing.T) {
		mc := multiClass()
		m := New(func(string) *models.Class { return mc })
		m.multiGet = newStore(nil).multiGet
		p := params(map[string]any{"strategy": "mmr", "targetVector": "mv"}, nil)
		_, f, _ := runStage(m, p, nil)
		require.Len(t, f.pools, 1)
		require.Contains(t, f.pools[0].AdditionalProperties.Vectors, "mv")
	})
}

// TestSelectedObjectsCut: a selected object is cut to what the query loads
// - the properties it names, none with NoProps, all when it names none -
// whatever the selection loaded for itself, so generate never gets a
// property (a blob, say) the query did not ask for.
func TestSelectedObjectsCut(t *testing.T) {
	read := map[string]any{"id": "x", "body": "text", "blob": "AAAA", "title": "t"}
	for _, tc := range []struct {
		name    string
		reads   []string
		noProps bool
		want    map[string]any
	}{
		{"the query's properties", []string{"body", "title"}, false, map[string]any{"id": "x", "body": "text", "title": "t"}},
		{"none named: all", nil, false, read},
		{"none at all (NoProps)", nil, true, map[string]any{"id": "x"}},
		{"a property the object lacks", []string{"body", "missing"}, false, map[string]any{"id": "x", "body": "text"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, (&plan{loads: tc.reads, noProps: tc.noProps}).cut(read))
		})
	}
	// Through the stage, on both paths: deferred (a database at hand) and
	// not (the pool's search loads the text the selection reads).
	class := docClass()
	class.Properties = append(class.Properties, &models.Property{Name: "title", DataType: []string{"text"}})
	in := results(20, 1)
	for i := range in {
		in[i].Schema.(map[string]any)["title"] = "t"
	}
	for _, deferred := range []bool{true, false} {
		m := New(func(string) *models.Class { return class })
		if deferred {
			m.multiGet = newStore(in).multiGet
		}
		p := argumentParams(t, m, map[string]any{"textProperty": "body", "candidates": 20})
		p.Properties = search.SelectProperties{{Name: "title", IsPrimitive: true}}
		out, f, err := runStage(m, p, in)
		require.NoError(t, err)
		require.Equal(t, deferred, f.pools[0].AdditionalProperties.NoProps)
		require.NotEmpty(t, out)
		for _, o := range out {
			require.NotContains(t, o.Schema, "body", "deferred %v: the selection's text property, which the query did not ask for", deferred)
			require.Contains(t, o.Schema, "title")
		}
	}
}

// gatedStore is a store whose first read waits for open: the first query
// holds its candidates' claims while the others arrive.
type gatedStore struct {
	*store
	mu      sync.Mutex
	first   bool
	reading chan struct{} // closed when the first read starts
	open    chan struct{}
}

func (g *gatedStore) multiGet(ctx context.Context, ids []multi.Identifier, addl additional.Properties, tenant string) ([]search.Result, error) {
	g.mu.Lock()
	first := !g.first
	g.first = true
	g.mu.Unlock()
	if first {
		close(g.reading)
		<-g.open
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.store.multiGet(ctx, ids, addl, tenant)
}

// TestColdPoolReadOnce: queries that arrive while another reads and
// computes the same cold pool wait for it instead of reading and analysing
// every candidate again: the pool is read by id once, the others read only
// their selected objects, and every query selects the same.
func TestColdPoolReadOnce(t *testing.T) {
	const pool, queries = 60, 6
	class := docClass()
	m := New(func(string) *models.Class { return class })
	g := &gatedStore{store: newStore(results(pool, 1000)), reading: make(chan struct{}), open: make(chan struct{})}
	m.multiGet = g.multiGet
	args := map[string]any{"tokenBudget": 300, "candidates": pool}
	outs := make([][]search.Result, queries)
	errs := make([]error, queries)
	var wg sync.WaitGroup
	run := func(q int) {
		defer wg.Done()
		outs[q], _, errs[q] = runStage(m, argumentParams(t, m, args), results(pool, 1000))
	}
	wg.Add(1)
	go run(0)
	<-g.reading // query 0 is reading the whole pool, in its Load
	wg.Add(queries - 1)
	for q := 1; q < queries; q++ {
		go run(q)
	}
	for m.features.Stats().Loading < queries {
		runtime.Gosched() // every other query is in the feature cache's Load
	}
	close(g.open)
	wg.Wait()
	for q := range queries {
		require.NoError(t, errs[q])
		require.Equal(t, ids(outs[0]), ids(outs[q]))
	}
	require.Equal(t, uint64((queries-1)*pool), m.features.Stats().Shared, "every other query got the pool's features from query 0")
	whole := 0
	for _, b := range g.batches {
		if len(b) == pool {
			whole++
		} else {
			require.Len(t, b, len(outs[0]), "the others read their selected objects only")
		}
	}
	require.Equal(t, 1, whole, "the pool is read once")
}

// TestDeferredSelectionRecentObjects: objects written too recently to be
// cached are read by id with the pool and select as the whole pool does,
// every time (nothing of them is cached).
func TestDeferredSelectionRecentObjects(t *testing.T) {
	class := docClass()
	byName := func(string) *models.Class { return class }
	recent := time.Now().UnixMilli()
	args := map[string]any{"tokenBudget": 300, "candidates": 60}
	want, err := runHook(t, New(byName), results(60, recent), args)
	require.NoError(t, err)
	m := New(byName)
	m.defaults.FeatureCacheSettle = time.Hour
	db := newStore(results(60, recent))
	m.multiGet = db.multiGet
	for range 2 {
		got, _, err := runStage(m, argumentParams(t, m, args), results(60, recent))
		require.NoError(t, err)
		require.Equal(t, ids(want), ids(got))
	}
	require.Len(t, db.batches, 2, "the pool is read by id on every query")
	require.Equal(t, 0, m.features.Stats().Entries)
}
