package diverseselect

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/weaviate/weaviate/entities/additional"
	"github.com/weaviate/weaviate/entities/dto"
	"github.com/weaviate/weaviate/entities/filters"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/multi"
	"github.com/weaviate/weaviate/entities/search"
	"github.com/weaviate/weaviate/entities/searchparams"
	"github.com/weaviate/weaviate/usecases/modulecomponents/additional/rank"

	"github.com/diverse-select/diverse-select/config"
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

// withoutProperties is the pool as a search with NoProps returns it, without
// the vectors too when vectors is set (the search was not asked for them).
func withoutProperties(in []search.Result, vectors bool) []search.Result {
	out := make([]search.Result, len(in))
	for i, r := range in {
		r.Schema = map[string]any{"id": r.ID}
		if vectors {
			r.Vector = nil
		}
		out[i] = r
	}
	return out
}

// TestDeferredSelection: a pool loaded without properties (and without
// vectors) selects exactly what the whole pool selects and returns the
// selected objects whole: the first time every candidate's text (and vector)
// is read by id in one batch, once the cache holds them only the selected
// objects are; a selected object deleted since the search is left out.
func TestDeferredSelection(t *testing.T) {
	for _, tc := range []struct {
		vectors bool
		pool    int
	}{{false, 60}, {true, 60}, {true, parallelLookups + 44}} { // the last: the look-ups on every core
		t.Run(fmt.Sprintf("vectors deferred %v, pool %d", tc.vectors, tc.pool), func(t *testing.T) {
			testDeferredSelection(t, tc.vectors, tc.pool)
		})
	}
}

func testDeferredSelection(t *testing.T, vectors bool, pool int) {
	class := docClass()
	byName := func(string) *models.Class { return class }
	deferred := context.WithValue(context.Background(), deferredKey{}, &deferral{vectors: vectors})
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
			want, err := runHook(t, New(byName), whole, args)
			require.NoError(t, err)
			require.NotEmpty(t, want)

			m := New(byName)
			db := newStore(results(pool, 1000))
			m.multiGet = db.multiGet
			run := func() []search.Result {
				r := &Request{m: m, form: formArgument}
				r.query, r.err = config.Parse(args, m.defaults.Limits)
				require.NoError(t, r.err)
				got, err := m.selectHook(deferred, withoutProperties(results(pool, 1000), vectors), r, nil, nil, nil)
				require.NoError(t, err)
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
			require.Len(t, db.batches, 1, "the texts (and vectors) from the cache: only the selected are read")
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

// TestPrepareSearch: the pool is loaded without properties only when the
// selection is the sole reader of its properties.
func TestPrepareSearch(t *testing.T) {
	class := docClass()
	class.Properties = append(class.Properties, &models.Property{Name: "ntok", DataType: []string{"int"}},
		&models.Property{Name: "author", DataType: []string{"Person"}})
	m := New(func(string) *models.Class { return class })
	m.multiGet = newStore(nil).multiGet
	request := func(args map[string]any) *Request {
		r := &Request{m: m, form: formArgument}
		r.query, r.err = config.Parse(args, m.defaults.Limits)
		require.NoError(t, r.err)
		r.settings, r.err = m.settingsFor(class, routeArgument, r.query)
		require.NoError(t, r.err)
		return r
	}
	params := func(edit func(*dto.GetParams)) dto.GetParams {
		p := dto.GetParams{ClassName: "Doc", Properties: search.SelectProperties{{Name: "body", IsPrimitive: true}}}
		p.AdditionalProperties.ModuleParams = map[string]any{ArgName: request(map[string]any{})}
		if edit != nil {
			edit(&p)
		}
		return p
	}
	for _, tc := range []struct {
		name string
		p    dto.GetParams
		want bool
	}{
		{"the default selection", params(nil), true},
		{"with generate after it", params(func(p *dto.GetParams) { p.AdditionalProperties.ModuleParams["generate"] = struct{}{} }), true},
		{"no module hook", params(func(p *dto.GetParams) { p.AdditionalProperties.ModuleParams = nil }), false},
		{"another reranker first", params(func(p *dto.GetParams) { p.AdditionalProperties.ModuleParams["rerank"] = struct{}{} }), false},
		{"a reranker the class does not configure as ours", params(func(p *dto.GetParams) {
			p.AdditionalProperties.ModuleParams["rerank"] = &rank.Params{}
		}), false},
		{"a cross-reference asked for", params(func(p *dto.GetParams) {
			p.Properties = append(p.Properties, search.SelectProperty{Name: "author", Refs: []search.SelectClass{{ClassName: "Person"}}})
		}), false},
		{"groupBy", params(func(p *dto.GetParams) { p.GroupBy = &searchparams.GroupBy{Property: "body"} }), false},
		{"boost", params(func(p *dto.GetParams) { p.Boost = &filters.Boost{Weight: 0.5} }), false},
		{"tokenProperty", params(func(p *dto.GetParams) {
			p.AdditionalProperties.ModuleParams[ArgName] = request(map[string]any{"tokenProperty": "ntok"})
		}), false},
		{"sourceProperty, which the default strategy does not read", params(func(p *dto.GetParams) {
			p.AdditionalProperties.ModuleParams[ArgName] = request(map[string]any{"sourceProperty": "body"})
		}), true},
		{"sourceProperty with ngram, which reads it", params(func(p *dto.GetParams) {
			p.AdditionalProperties.ModuleParams[ArgName] = request(map[string]any{"sourceProperty": "body", "strategy": "ngram"})
		}), false},
		{"a request the hook will refuse", params(func(p *dto.GetParams) {
			p.AdditionalProperties.ModuleParams[ArgName] = &Request{m: m, err: fmt.Errorf("bad")}
		}), false},
		{"already without properties", params(func(p *dto.GetParams) { p.AdditionalProperties.NoProps = true }), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p
			before := p.AdditionalProperties.NoProps
			ctx := PrepareSearch(context.Background(), &p)
			require.Equal(t, tc.want, propertiesDeferred(ctx))
			require.Equal(t, tc.want || before, p.AdditionalProperties.NoProps)
		})
	}
	t.Run("no database at hand", func(t *testing.T) {
		m.multiGet = nil
		p := params(nil)
		require.False(t, propertiesDeferred(PrepareSearch(context.Background(), &p)))
	})
}

// TestPrepareSearchVectors: with the properties deferred, the vector a route
// asked for on the selection's behalf is taken back and the "vector" glue
// keeps Weaviate from loading the legacy vector, unless the query asked for
// it itself; a class with multi-vectors loads its vectors as before.
func TestPrepareSearchVectors(t *testing.T) {
	for _, tc := range []struct {
		name        string
		class       *models.Class
		ctx         context.Context
		asked       *askedVectors // what the GraphQL route recorded
		vector      bool          // addl.Vector before
		vectors     []string      // addl.Vectors before
		wantVector  bool
		wantVectors []string
		wantLoads   bool // SearchLoadsVector
	}{
		{name: "GraphQL asked for the legacy vector: taken back", class: docClass(), ctx: context.Background(),
			asked: &askedVectors{}, vector: true, wantLoads: false},
		{name: "GraphQL, the query asked for the vector itself", class: docClass(), ctx: context.Background(),
			asked: &askedVectors{vector: true}, vector: true, wantVector: true, wantLoads: true},
		{name: "GraphQL asked for a named vector: taken back", class: docClass(), ctx: context.Background(),
			asked: &askedVectors{vectors: []string{"other"}}, vectors: []string{"other", "body"},
			wantVectors: []string{"other"}, wantLoads: false},
		{name: "gRPC rerank asked for the legacy vector: taken back", class: docClass(),
			ctx: context.WithValue(context.Background(), askedKey{}, askedVectors{}), vector: true, wantLoads: false},
		{name: "nothing asked on the selection's behalf (a text strategy)", class: docClass(), ctx: context.Background(),
			wantLoads: false},
		{name: "a class with multi-vectors loads them as before", class: multiClass(), ctx: context.Background(),
			asked: &askedVectors{}, vector: true, wantVector: true, wantLoads: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New(func(string) *models.Class { return tc.class })
			m.multiGet = newStore(nil).multiGet
			r := &Request{m: m, form: formArgument, asked: tc.asked}
			r.query, r.err = config.Parse(map[string]any{"strategy": "mmr"}, m.defaults.Limits)
			require.NoError(t, r.err)
			r.settings, r.err = m.settingsFor(tc.class, routeArgument, r.query)
			require.NoError(t, r.err)
			p := dto.GetParams{ClassName: tc.class.Class}
			p.AdditionalProperties = additional.Properties{Vector: tc.vector, Vectors: tc.vectors,
				ModuleParams: map[string]any{ArgName: r}}
			ctx := PrepareSearch(tc.ctx, &p)
			require.True(t, propertiesDeferred(ctx))
			require.Equal(t, tc.wantVector, p.AdditionalProperties.Vector)
			require.Equal(t, tc.wantVectors, p.AdditionalProperties.Vectors)
			require.Equal(t, tc.wantLoads, SearchLoadsVector(ctx))
		})
	}
	t.Run("not deferred: the search loads the vector", func(t *testing.T) {
		require.True(t, SearchLoadsVector(context.Background()))
		p := dto.GetParams{ClassName: "Doc", GroupBy: &searchparams.GroupBy{Property: "body"}}
		p.AdditionalProperties = additional.Properties{Vector: true, ModuleParams: map[string]any{ArgName: &Request{}}}
		require.True(t, SearchLoadsVector(PrepareSearch(context.Background(), &p)))
		require.True(t, p.AdditionalProperties.Vector)
	})
}

// TestSearchedProperties: an object read by id after a deferred search is
// cut to the properties the search would have loaded, so generate never
// gets a property (a blob, say) the query did not ask for.
func TestSearchedProperties(t *testing.T) {
	read := map[string]any{"id": "x", "body": "text", "blob": "AAAA", "title": "t"}
	for _, tc := range []struct {
		name  string
		props []string
		want  map[string]any
	}{
		{"the query's properties", []string{"body", "title"}, map[string]any{"id": "x", "body": "text", "title": "t"}},
		{"none named: all", nil, read},
		{"a property the object lacks", []string{"body", "missing"}, map[string]any{"id": "x", "body": "text"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.WithValue(context.Background(), deferredKey{}, &deferral{props: tc.props})
			require.Equal(t, tc.want, searchedProperties(ctx, read))
		})
	}
	require.Equal(t, read, searchedProperties(context.Background(), read), "not deferred: unchanged")
}
