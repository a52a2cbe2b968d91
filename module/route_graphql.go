package diverseselect

import (
	"context"
	"fmt"
	"slices"

	"github.com/weaviate/weaviate/entities/additional"
	"github.com/weaviate/weaviate/entities/filters"
	"github.com/weaviate/weaviate/entities/search"

	"github.com/diverse-select/diverse-select/config"
)

// form tells the two GraphQL forms apart.
type form int

const (
	formArgument form = iota // top-level diverseSelect: {...} (route_argument.go)
	formField                // _additional { diverseSelect(...) } (route_field.go)
)

// Request carries one GraphQL query's diverse-select arguments through
// Weaviate: from argument extraction, through PreparePostProcess (the route
// patch), which builds the query's plan, to the result hook. A parse error is
// kept and reported by PreparePostProcess, because Weaviate's extractors
// cannot return errors.
type Request struct {
	m       *Module
	form    form
	query   *config.Overrides
	err     error
	hasArgs bool // the _additional field was given arguments

	// settings: the field form resolves them at extraction, when Weaviate
	// asks for the properties to load.
	settings *settings
	// plan is built by PreparePostProcess; nil when Weaviate reached the
	// result hook without the Get resolver (selectHook builds it then).
	plan *plan
	// asked is what the query asked for itself of the vectors, set when
	// preparePostProcess adds the one the selection compares (PrepareSearch
	// takes it back when the feature cache stands in for it).
	asked *askedVectors
}

// route names the GraphQL form r arrived by.
func (r *Request) route() string {
	if r.form == formArgument {
		return routeArgument
	}
	return routeField
}

// HasArguments reports whether this is the _additional field with arguments:
// the route patch refuses a query that also gives the top-level argument,
// which would otherwise replace them silently.
func (r *Request) HasArguments() bool { return r.form == formField && r.hasArgs }

// propertiesToExtract names the properties the selection reads.
func (r *Request) propertiesToExtract() []string {
	switch {
	case r.plan != nil:
		return r.plan.propertiesToExtract()
	case r.settings != nil:
		return r.settings.propertiesToExtract()
	}
	return nil
}

// preparePostProcess is called by the route patch in Weaviate's Get resolver
// before the search runs: it builds the plan from the class, the search
// arguments and the query's settings, rejects what the selection cannot
// honour, widens the search to the candidate pool (top-level form) and asks
// for the vectors the strategy needs (PreparePostProcess counts its refusals).
func (r *Request) preparePostProcess(className, tenant string, args map[string]any,
	pagination *filters.Pagination, addl *additional.Properties,
) (*filters.Pagination, error) {
	if r.err != nil {
		return nil, r.err
	}
	class := r.m.classByName(className)
	if class == nil {
		return nil, fmt.Errorf("class %q not found", className)
	}
	for _, unsupported := range []string{"groupBy", "after"} {
		if _, ok := args[unsupported]; ok {
			return nil, &markedError{mark: errRefused, err: fmt.Errorf("cannot be combined with %s: "+
				"selection works on one flat candidate list", unsupported)}
		}
	}
	s := searchFromArgs(args)
	s.tenant = tenant
	if pagination != nil {
		// The offset pages the selection (selectors.RunPage), not the
		// search: the pool is always the same retrieval from its first
		// result, so the search below runs with offset 0.
		_, s.paged = args["offset"]
		s.offset = pagination.Offset
	}
	if r.form == formArgument && pagination != nil && pagination.Limit > 0 {
		s.limit = pagination.Limit // the top-level form: the query limit caps the output
	}
	var p *plan
	var err error
	if r.settings != nil {
		p, err = planFrom(class, r.route(), r.query, r.settings, s) // merged at extraction
	} else {
		p, err = r.m.newPlan(class, r.route(), r.query, s)
	}
	if err != nil {
		return nil, err
	}
	if p.cachesVectors() {
		own := &askedVectors{vector: addl.Vector, vectors: slices.Clone(addl.Vectors)}
		if p.target == "" && !addl.Vector {
			addl.Vector, r.asked = true, own
		} else if p.target != "" && !slices.Contains(addl.Vectors, p.target) {
			addl.Vectors, r.asked = append(addl.Vectors, p.target), own
		}
	} else if p.needsVectors() && !slices.Contains(addl.Vectors, p.target) {
		addl.Vectors = append(addl.Vectors, p.target) // a multi-vector: loaded by the search
	}
	r.plan = p
	if r.form == formField && pagination != nil {
		p.pool = pagination.Limit
	} else if r.form == formArgument {
		p.pool = p.eff.Candidates
	}
	if p.eff.WidenTo > 0 && p.pool > 0 && p.eff.WidenTo <= p.pool {
		return nil, &config.Error{Key: config.KeyWidenTo, Msg: fmt.Sprintf(
			"is %d, not above the pool of %d (candidates, or the field form's limit): it widens to a larger pool", p.eff.WidenTo, p.pool)}
	}
	if r.form == formField {
		if pagination != nil && pagination.Limit > r.m.defaults.MaxCandidates {
			return nil, candidateCapError(pagination.Limit, r.m.defaults.MaxCandidates) // before the search runs
		}
		if pagination != nil {
			if err := checkPoolPolicy(class, r.route(), pagination.Limit); err != nil {
				return nil, err
			}
		}
		if pagination != nil && pagination.Offset != 0 {
			pool := *pagination
			pool.Offset = 0
			return &pool, nil
		}
		return pagination, nil
	}
	// Top-level form: candidates is the pool.
	out := &filters.Pagination{Limit: p.eff.Candidates}
	if pagination != nil {
		out.Autocut = pagination.Autocut
	}
	return out, nil
}

// planFromResults builds the plan when the result hook is reached without
// the Get resolver's preparation (another API path): from the class and
// what the results carry.
func (r *Request) planFromResults(ctx context.Context, in []search.Result) (*plan, error) {
	class := r.m.classByName(in[0].ClassName)
	if class == nil {
		return nil, fmt.Errorf("class %q not found", in[0].ClassName)
	}
	return r.m.newPlan(class, r.route(), r.query, searchFacts{relevance: sourceOf(in), tenant: TenantFromContext(ctx)})
}

// selectRequest is the result hook's work for both GraphQL forms: the
// selection under the plan PreparePostProcess built, or one built from the
// results when the hook is reached another way.
func (m *Module) selectRequest(ctx context.Context, in []search.Result, params any) ([]search.Result, error) {
	r, ok := params.(*Request)
	if !ok || r == nil {
		return nil, fmt.Errorf("unexpected parameters %T", params)
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(in) == 0 {
		return in, nil
	}
	p := r.plan
	if p == nil {
		var err error
		if p, err = r.planFromResults(ctx, in); err != nil {
			return nil, err
		}
	}
	out, err := m.selectResults(ctx, in, p)
	if err == nil {
		explainGRPC(ctx, out) // route_grpc_combine.go
	}
	return out, err
}
