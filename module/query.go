package diverseselect

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/weaviate/weaviate/entities/dto"
	"github.com/weaviate/weaviate/entities/filters"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/search"

	"github.com/diverse-select/diverse-select/config"
)

// query is one query in the stage: its plan, resolved once from the query's
// params, and the params of its pool's search - the window (from the first
// result, the offset paging the selection), what the search loads, and the
// hooks that run on the pool.
type query struct {
	plan *plan
	pool dto.GetParams
	// reads is what the query itself loads for the objects it returns:
	// the properties it names (nil: all) - the selected objects read by id
	// are cut to them.
	reads []string
	claim claim
	// explain: the query asks for explainScore, where the rerank routes
	// put each object's explanation.
	explain bool
}

// resolve builds the query's plan, exactly once per query, and the params
// of its pool's search.
func (e *engine) resolve(c claim, params dto.GetParams) (*query, error) {
	if params.Selection != nil && params.Selection.MMR != nil {
		return nil, &markedError{mark: errRefused, err: errors.New("cannot be combined with Weaviate's own MMR selection: choose one")}
	}
	if params.GroupBy != nil || params.Cursor != nil {
		return nil, &markedError{mark: errRefused, err: errors.New("cannot be combined with groupBy or after: " +
			"selection works on one flat candidate list")}
	}
	class := c.class
	if class == nil {
		if class = e.classByName(params.ClassName); class == nil {
			return nil, fmt.Errorf("class %q not found", params.ClassName)
		}
	}
	s := searchFromParams(params)
	window := queryWindow(params)
	var overrides *config.Overrides
	var st *settings
	var err error
	switch {
	case c.route == routeRerank:
		if err := e.otherRerankers(class); err != nil { // a class created without validation
			return nil, err
		}
		overrides, st, err = e.rerankSettings(class, c.rerank.GetProperty(), c.rerank.GetQuery())
		s.offset, s.paged = window.offset, window.offset > 0
	case c.crossEncoder:
		c.req, err = e.crossEncoderRequest(class, c.rerank)
		if err == nil {
			overrides, st = c.req.query, c.req.settings
		}
		s.offset, s.paged = window.offset, window.offset > 0
	default:
		r := c.req
		if r.err != nil {
			return nil, r.err
		}
		overrides = r.query
		st, err = e.settingsFor(class, r.route(), overrides)
		s.offset, s.paged = window.offset, r.offsetGiven
		if r.form == formArgument && r.limitGiven && window.limit > 0 {
			s.limit = window.limit // the top-level form: the query limit caps the output
		}
	}
	if err != nil {
		return nil, err
	}
	p, err := planFrom(class, c.route, overrides, st, s)
	if err != nil {
		return nil, err
	}
	q := &query{plan: p, claim: c, pool: params, explain: params.AdditionalProperties.ExplainScore}
	for _, prop := range params.Properties {
		q.reads = append(q.reads, prop.Name)
	}
	if err := e.poolWindow(q, class, window); err != nil {
		return nil, err
	}
	e.poolLoads(q, class)
	return q, nil
}

// window is the query's own offset and limit (boost keeps them aside while
// it fetches deeper).
type window struct{ offset, limit int }

func queryWindow(params dto.GetParams) window {
	if b := params.Boost; b != nil && b.Weight > 0 {
		return window{offset: b.OriginalOffset, limit: b.OriginalLimit}
	}
	if params.Pagination == nil {
		return window{}
	}
	return window{offset: params.Pagination.Offset, limit: params.Pagination.Limit}
}

// poolWindow sets the pool's search to the pool from its first result: the
// offset pages the selection (selectors.RunPage), never the search, so every
// page selects from the same retrieval. The top-level form's pool is
// candidates; the field form's and the rerank route's, the query limit.
func (e *engine) poolWindow(q *query, class *models.Class, w window) error {
	p := q.plan
	pool := w.limit
	if p.route == routeArgument {
		pool = p.eff.Candidates
	}
	if pool > e.defaults.MaxCandidates {
		return candidateCapError(pool, e.defaults.MaxCandidates) // before the search runs
	}
	if p.route != routeArgument {
		if err := checkPoolPolicy(class, p.route, pool); err != nil {
			return err
		}
	}
	if p.eff.WidenTo > 0 && pool > 0 && p.eff.WidenTo <= pool {
		return &config.Error{Key: config.KeyWidenTo, Msg: fmt.Sprintf(
			"is %d, not above the pool of %d (candidates, or the query limit on the other routes): it widens to a larger pool", p.eff.WidenTo, pool)}
	}
	if pool > 0 {
		p.pool = pool
		q.setPool(pool)
	} else if q.pool.Pagination != nil {
		// A search by distance (certainty or distance without a limit):
		// the threshold sizes the pool, capped by the module's cap.
		pg := *q.pool.Pagination
		pg.Offset = 0
		q.pool.Pagination = &pg
	}
	return nil
}

// setPool makes the pool's search fetch limit results from its first one
// (autocut kept); under boost, boost re-ranks at least that deep and keeps
// them all.
func (q *query) setPool(limit int) {
	pg := filters.Pagination{Limit: limit}
	if q.pool.Pagination != nil {
		pg = *q.pool.Pagination
		pg.Offset, pg.Limit = 0, limit
	}
	if b := q.pool.Boost; b != nil && b.Weight > 0 {
		boost := *b
		boost.OriginalOffset, boost.OriginalLimit = 0, limit
		q.pool.Boost = &boost
		if q.pool.Pagination != nil && q.pool.Pagination.Limit > limit {
			pg.Limit = q.pool.Pagination.Limit // boost's own depth
		}
	}
	q.pool.Pagination = &pg
}

// poolLoads decides what the pool's search loads. The selection reads each
// candidate's vector and text; when it is the only reader of the pool (no
// reranker or other hook reads it first) and reads nothing but its text
// properties, the pool is read as ids, scores and, when the query asks for
// them, vectors: the selection takes the text and the vector it compares
// from the feature cache, reads the candidates the cache does not hold by
// id in one batch, and the selected objects' properties by id
// (selectedObjects). Otherwise the pool's search loads what the selection
// reads with what the query asks for.
func (e *engine) poolLoads(q *query, class *models.Class) {
	p, c := q.plan, q.claim
	hooks := make(map[string]any, len(q.pool.AdditionalProperties.ModuleParams))
	for name, v := range q.pool.AdditionalProperties.ModuleParams {
		hooks[name] = v
	}
	delete(hooks, ArgName)
	if c.route == routeRerank {
		delete(hooks, rerankProperty)
	}
	plainRerank := ""
	if c.crossEncoder {
		plainRerank, _, _ = strings.Cut(c.rerank.GetProperty(), RerankSettingsSeparator)
		r := *c.rerank
		r.Property = &plainRerank // the cross-encoder reads the property by its name
		hooks[rerankProperty] = &r
	}
	q.pool.AdditionalProperties.ModuleParams = hooks
	// A rerank property that carries settings is loaded by its plain name.
	q.reads = plainNames(q.reads)
	q.pool.Properties = plainProperties(q.pool.Properties)
	if plainRerank != "" {
		q.pool.Properties = withProperty(q.pool.Properties, plainRerank)
	}
	if q.poolDeferrable(e, class) {
		q.pool.Properties = nil
		q.pool.AdditionalProperties.NoProps = true
		p.deferred = &deferral{props: q.reads}
		if !hasMultiVector(class) {
			p.deferred.vectors = true
		} else {
			e.askVector(q)
		}
		return
	}
	for _, name := range p.propertiesToExtract() {
		q.pool.Properties = withProperty(q.pool.Properties, name)
	}
	if len(q.pool.Properties) > 0 {
		q.pool.AdditionalProperties.NoProps = false
	}
	e.askVector(q)
}

// askVector asks the pool's search for the vector the selection compares.
func (e *engine) askVector(q *query) {
	p, addl := q.plan, &q.pool.AdditionalProperties
	switch {
	case !p.needsVectors():
	case p.target == "":
		addl.Vector = true
	case !slices.Contains(addl.Vectors, p.target):
		addl.Vectors = append(slices.Clone(addl.Vectors), p.target)
	}
}

// poolDeferrable: the selection may read the pool as ids and scores (see
// poolLoads).
func (q *query) poolDeferrable(m *engine, class *models.Class) bool {
	pool := q.pool
	if m.features == nil || m.multiGet == nil || len(pool.AdditionalProperties.ModuleParams) > 0 ||
		(pool.Boost != nil && pool.Boost.Weight > 0) || pool.Group != nil || !q.plan.readsOnlyText() ||
		filtersExpiredOnProperty(class) {
		return false
	}
	for _, p := range pool.Properties {
		if len(p.Refs) > 0 {
			return false // cross-references are resolved by the search
		}
	}
	return true
}

func withProperty(props []search.SelectProperty, name string) []search.SelectProperty {
	for _, p := range props {
		if p.Name == name {
			return props
		}
	}
	return append(slices.Clone(props), search.SelectProperty{Name: name, IsPrimitive: true})
}

// decorate finishes the selected objects for the route's reply: the rerank
// route's scores, and a gRPC search's explanations in explainScore.
func (q *query) decorate(out []search.Result) {
	if q.claim.route == routeRerank {
		giveRerankScores(out)
	}
	// Weaviate replies with explainScore only when the query asks for it.
	if q.explain && (q.claim.route == routeRerank || q.claim.crossEncoder) {
		explainInScore(out)
	}
}

// plainNames are names with a rerank property's carried settings cut off,
// each once.
func plainNames(names []string) []string {
	var out []string
	for _, n := range names {
		n, _, _ = strings.Cut(n, RerankSettingsSeparator)
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func plainProperties(props []search.SelectProperty) []search.SelectProperty {
	var out []search.SelectProperty
	for _, p := range props {
		if name, _, found := strings.Cut(p.Name, RerankSettingsSeparator); found {
			out = withProperty(out, name)
			continue
		}
		out = append(out, p)
	}
	return out
}
