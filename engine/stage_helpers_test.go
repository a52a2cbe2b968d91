package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tailor-platform/graphql/language/ast"
	"github.com/weaviate/weaviate/entities/additional"
	"github.com/weaviate/weaviate/entities/dto"
	"github.com/weaviate/weaviate/entities/filters"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/search"
	"github.com/weaviate/weaviate/entities/searchparams"
	"github.com/weaviate/weaviate/usecases/modulecomponents/additional/rank"
	"github.com/weaviate/weaviate/usecases/modulecomponents/arguments/nearText"

	"github.com/diverse-select/diverse-select/config"
)

// The engine's tests enter it as the module's adapters (package module)
// do: Module is the engine, Reranker a rerank adapter over it.
type Module = Engine

// Reranker stands in for the module's reranker-diverse-select adapter.
type Reranker struct{ e *Engine }

// NewReranker is a rerank adapter over the engine m.
func NewReranker(m *Engine, _ bool) *Reranker { return &Reranker{e: m} }

// extractArgument is the module's GraphQLArgument.ExtractFunction.
func (e *Engine) extractArgument(raw map[string]any) (any, *dto.TargetCombination, error) {
	return e.ParseArgument(raw), nil, nil
}

// extractField is the module's GraphQLExtractFunction.
func (e *Engine) extractField(args []*ast.Argument, class *models.Class) any {
	return e.ParseField(args, class)
}

// fakeSearch stands in for the explorer's searchPool: it returns the first
// Limit results of a fixed list loaded as the pool's params ask, as
// Weaviate loads them (no properties with NoProps; the legacy vector and
// named vectors only when asked), and records every pool's params.
type fakeSearch struct {
	in    []search.Result
	pools []dto.GetParams
	all   bool // return all of in, whatever the limit (the pool is in)
}

func (f *fakeSearch) search(_ context.Context, p dto.GetParams) ([]search.Result, error) {
	f.pools = append(f.pools, p)
	n := len(f.in)
	if !f.all && p.Pagination != nil && p.Pagination.Limit >= 0 && p.Pagination.Limit < n {
		n = p.Pagination.Limit
	}
	out := make([]search.Result, n)
	for i := range out {
		r := f.in[i]
		if p.AdditionalProperties.NoProps {
			r.Schema = map[string]any{"id": r.ID}
		}
		if !p.AdditionalProperties.Vector {
			r.Vector = nil
		}
		if r.Vectors != nil {
			vecs := models.Vectors{}
			for _, name := range p.AdditionalProperties.Vectors {
				if v, ok := r.Vectors[name]; ok {
					vecs[name] = v
				}
			}
			r.Vectors = vecs
		}
		out[i] = r
	}
	return out, nil
}

// runStage runs one query through the stage as the explorer does, over the
// results in.
func runStage(m *Module, params dto.GetParams, in []search.Result) ([]search.Result, *fakeSearch, error) {
	f := &fakeSearch{in: in}
	out, selected, err := m.SelectResults(context.Background(), params, f.search)
	if !selected && err == nil {
		return nil, f, errNotSelected
	}
	return out, f, err
}

var errNotSelected = errors.New("the stage did not take the query")

// argumentParams is a nearVector query on class Doc with the top-level
// diverseSelect argument args.
func argumentParams(t *testing.T, m *Module, args map[string]any) dto.GetParams {
	t.Helper()
	r, _, _ := m.extractArgument(args)
	require.NoError(t, r.(*Request).err)
	return dto.GetParams{ClassName: "Doc", NearVector: &searchparams.NearVector{},
		Pagination:           &filters.Pagination{Limit: 10},
		Properties:           search.SelectProperties{{Name: "body", IsPrimitive: true}},
		AdditionalProperties: additionalWith(ArgName, r)}
}

// fieldParams is a nearVector query on class Doc, limit deep, with
// _additional { diverseSelect(args) }.
func fieldParams(t *testing.T, m *Module, limit int, args map[string]any) dto.GetParams {
	t.Helper()
	r := &Request{e: m, route: routeField, hasArgs: len(args) > 0}
	var err error
	r.overrides, err = config.Parse(args, m.defaults.Limits)
	require.NoError(t, err)
	return dto.GetParams{ClassName: "Doc", NearVector: &searchparams.NearVector{},
		Pagination:           &filters.Pagination{Limit: limit},
		Properties:           search.SelectProperties{{Name: "body", IsPrimitive: true}},
		AdditionalProperties: additionalWith(ArgName, r)}
}

// rerankParams is a nearVector query on class Doc, limit deep, reranked by
// rerank {property, query}, as the gRPC parser builds it (the rerank
// property among the properties to load), asking for explainScore.
func rerankParams(limit, offset int, property, query string) dto.GetParams {
	rp := &rank.Params{Property: &property}
	if query != "" {
		rp.Query = &query
	}
	p := dto.GetParams{ClassName: "Doc", NearVector: &searchparams.NearVector{},
		Pagination:           &filters.Pagination{Limit: limit, Offset: offset},
		Properties:           search.SelectProperties{{Name: property, IsPrimitive: true}},
		AdditionalProperties: additionalWith(RerankProperty, rp)}
	p.AdditionalProperties.ExplainScore = true
	return p
}

func additionalWith(name string, v any) (a additional.Properties) {
	a.ModuleParams = map[string]any{name: v}
	return a
}

// runHook selects from in with the top-level argument args, the pool being
// all of in.
func runHook(t *testing.T, m *Module, in []search.Result, args map[string]any) ([]search.Result, error) {
	t.Helper()
	r, _, _ := m.extractArgument(args)
	return m.selectStage(context.Background(), in, r)
}

// withCandidates is args with candidates n unless they set it.
func withCandidates(args map[string]any, n int) map[string]any {
	out := map[string]any{"candidates": n}
	for k, v := range args {
		out[k] = v
	}
	return out
}

// newPlan builds a plan as the stage does, from facts given directly.
func (m *Module) newPlan(class *models.Class, route route, query *config.Overrides, s searchFacts) (*plan, error) {
	st, err := m.settingsFor(class, routes[route].config, query)
	if err != nil {
		return nil, err
	}
	return planFrom(class, route, query, st, s)
}

// searchFromArgs reads search facts from GraphQL-like search arguments
// (nearVector / nearText with targetVectors, bm25, hybrid), as the Get
// resolver turns them into params.
func searchFromArgs(args map[string]any) searchFacts {
	var p dto.GetParams
	for name, v := range args {
		a, _ := v.(map[string]any)
		var targets []string
		for _, t := range anyList(a["targetVectors"]) {
			targets = append(targets, t.(string))
		}
		switch {
		case name == "bm25":
			q, _ := a["query"].(string)
			p.KeywordRanking = &searchparams.KeywordRanking{Query: q}
		case name == "hybrid":
			q, _ := a["query"].(string)
			p.HybridSearch = &searchparams.HybridSearch{Query: q, TargetVectors: targets}
		case strings.HasPrefix(name, "near"):
			p.NearVector = &searchparams.NearVector{TargetVectors: targets}
		}
	}
	return searchFromParams(p)
}

func anyList(v any) []any {
	l, _ := v.([]any)
	return slices.Clone(l)
}

// searchArgsOf holds the search arguments preparedArgument gave a request,
// for selectStage (the Get resolver's arguments become the search's params).
var searchArgsOf sync.Map // *Request -> map[string]any

// paramsFor is a query on in's class whose search looks like in's: scores
// (bm25), distances (nearVector) or neither (a plain list), plus the search
// arguments recorded for a request (nearText concepts, thresholds).
func paramsFor(in []search.Result, r *Request) dto.GetParams {
	p := dto.GetParams{ClassName: "Doc", Pagination: &filters.Pagination{Limit: len(in)}}
	if len(in) > 0 {
		p.ClassName = in[0].ClassName
	}
	dist, score := false, false
	for _, res := range in {
		dist, score = dist || res.Dist != 0, score || res.Score != 0
	}
	switch {
	case score:
		p.KeywordRanking = &searchparams.KeywordRanking{}
	case dist:
		p.NearVector = &searchparams.NearVector{}
	}
	if r == nil {
		return p
	}
	if args, ok := searchArgsOf.Load(r); ok {
		for name, v := range args.(map[string]any) {
			a, _ := v.(map[string]any)
			if name != "nearText" {
				continue
			}
			nt := &nearText.NearTextParams{}
			for _, c := range anyList(a["concepts"]) {
				nt.Values = append(nt.Values, c.(string))
			}
			if c, ok := a["certainty"].(float64); ok {
				nt.Certainty = c
			}
			if d, ok := a["distance"].(float64); ok {
				nt.Distance, nt.WithDistance = d, true
			}
			p.NearVector, p.ModuleParams = nil, map[string]any{"nearText": nt}
		}
	}
	return p
}

// selectStage runs the stage for a GraphQL request r over the pool in (the
// pool is all of in).
func (m *Module) selectStage(ctx context.Context, in []search.Result, r any) ([]search.Result, error) {
	req, _ := r.(*Request)
	p := paramsFor(in, req)
	p.AdditionalProperties.ModuleParams = map[string]any{ArgName: r}
	f := &fakeSearch{in: in, all: true}
	out, _, err := m.SelectResults(ctx, p, f.search)
	return out, err
}

// rerankStage runs the stage for a rerank call over the pool in (the query
// limit: all of in).
func (rr *Reranker) rerankStage(ctx context.Context, in []search.Result, rp *rank.Params) ([]search.Result, error) {
	p := paramsFor(in, nil)
	p.AdditionalProperties.ModuleParams = map[string]any{RerankProperty: rp}
	p.AdditionalProperties.ExplainScore = true
	p.Properties = search.SelectProperties{{Name: rp.GetProperty(), IsPrimitive: true}}
	f := &fakeSearch{in: in}
	out, selected, err := rr.e.SelectResults(ctx, p, f.search)
	if !selected {
		return nil, errNotSelected
	}
	return out, err
}

// preparedArgument is the top-level argument with the Get query's search
// arguments args.
func preparedArgument(t *testing.T, m *Module, ds, args map[string]any) *Request {
	t.Helper()
	r, _, _ := m.extractArgument(ds)
	req := r.(*Request)
	require.NoError(t, req.SelectionArguments(args))
	searchArgsOf.Store(req, args)
	return req
}

// stageErr is the error the stage gives a request (nil: it selects).
func stageErr(m *Module, r *Request) error {
	_, err := m.selectStage(context.Background(), results(5, 1), r)
	return err
}
