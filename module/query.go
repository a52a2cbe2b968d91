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
	"github.com/weaviate/weaviate/usecases/modulecomponents/additional/rank"

	"github.com/diverse-select/diverse-select/config"
)

// query is one query in the stage: its plan, resolved once from the query's
// params, and search, the params of the search that fetches its pool - the
// window (from the first result, the offset paging the selection), what the
// search loads, and the hooks that run on the pool.
type query struct {
	plan   *plan
	search dto.GetParams
	// reads and noProps are what the query itself loads for the objects it
	// returns: the properties it names (none named: all), or none at all.
	// The selected objects are cut to them, on every path, so the response
	// and generate get what they get without the module.
	reads   []string
	noProps bool
	entry   entry
	// explain: the query asks for explainScore, where the rerank routes
	// put each object's explanation.
	explain bool
}

// resolve builds the query's plan, exactly once per query, and the params
// of its pool's search.
func (e *engine) resolve(c entry, params dto.GetParams) (*query, error) {
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
	overrides, st, err := c.route.resolve(e, &c, class, window, &s)
	if err != nil {
		return nil, err
	}
	p, err := planFrom(class, c.route, overrides, st, s)
	if err != nil {
		return nil, err
	}
	p.read = c.read
	q := &query{plan: p, entry: c, search: params, explain: params.AdditionalProperties.ExplainScore,
		noProps: params.AdditionalProperties.NoProps}
	for _, prop := range params.Properties {
		q.reads = append(q.reads, prop.Name)
	}
	if err := e.setSearchWindow(q, class, window); err != nil {
		return nil, err
	}
	if err := setSearchHooks(q, class); err != nil {
		return nil, err
	}
	e.setSearchLoads(q, class)
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

// setSearchWindow sets the pool's search to the pool from its first result: the
// offset pages the selection ((*selectors.Selector).RunPage), never the search, so every
// page selects from the same retrieval. The top-level form's pool is
// candidates; the field form's and the rerank route's, the query limit.
func (e *engine) setSearchWindow(q *query, class *models.Class, w window) error {
	p := q.plan
	pool := w.limit
	if routes[p.route].candidatesArePool {
		pool = p.eff.Candidates
	}
	if pool > e.defaults.MaxCandidates {
		return candidateCapError(pool, e.defaults.MaxCandidates) // before the search runs
	}
	if !routes[p.route].candidatesArePool {
		if err := checkPoolPolicy(class, p.route, pool); err != nil {
			return err
		}
	}
	if p.eff.WidenTo > 0 && pool > 0 && p.eff.WidenTo <= pool {
		return &config.Error{Key: config.KeyWidenTo, Msg: fmt.Sprintf(
			"is %d, not above the pool of %d (candidates, or the query limit on the other routes): it widens to a larger pool", p.eff.WidenTo, pool)}
	}
	if pool > 0 {
		p.poolSize = pool
		q.setSearchLimit(pool)
	} else {
		// A search by distance (certainty or distance without a limit): the
		// threshold sizes the pool, which the search fetches at most one
		// beyond the module's cap, so that a larger one is refused after
		// reading no more than that (readPool).
		q.setSearchLimit(e.defaults.MaxCandidates + 1)
	}
	return nil
}

// setSearchLimit makes the pool's search fetch limit results from its first one
// (autocut kept); under boost, boost re-ranks at least that deep and keeps
// them all.
func (q *query) setSearchLimit(limit int) {
	pg := filters.Pagination{Limit: limit}
	if q.search.Pagination != nil {
		pg = *q.search.Pagination
		pg.Offset, pg.Limit = 0, limit
	}
	if b := q.search.Boost; b != nil && b.Weight > 0 {
		boost := *b
		boost.OriginalOffset, boost.OriginalLimit = 0, limit
		q.search.Boost = &boost
		if q.search.Pagination != nil && q.search.Pagination.Limit > limit {
			pg.Limit = q.search.Pagination.Limit // boost's own depth
		}
	}
	q.search.Pagination = &pg
}

// setSearchHooks sets the hooks that run on the pool: only a reranker that is
// not this module - the cross-encoder of a gRPC rerank whose property
// carries settings, by its plain property name, or the `_additional {
// rerank }` of a GraphQL selection on a collection with another reranker.
// The explorer's stage runs every other hook after the selection. Settings
// given in two places are refused.
func setSearchHooks(q *query, class *models.Class) error {
	c := q.entry
	hooks := map[string]any{}
	switch rp, reranks := q.search.AdditionalProperties.ModuleParams[rerankProperty].(*rank.Params); {
	case routes[c.route].reranksFirst:
		hooks[rerankProperty] = plainRerank(c.rerank)
	case routes[c.route].ownsRerank || !reranks || rp == nil:
	case classConfig(class, RerankerName) != nil:
		return &markedError{mark: errRefused, err: fmt.Errorf("both select on this collection: its reranker is %s and the query "+
			"asks for diverseSelect too; give the selection once (the rerank field, or diverseSelect)", RerankerName)}
	case strings.Contains(rp.GetProperty(), RerankSettingsSeparator):
		return &markedError{mark: errRefused, err: errors.New("selection settings in the rerank property and diverseSelect " +
			"in the same query: give them in one place (diverseSelect's arguments)")}
	default:
		hooks[rerankProperty] = rp // another reranker scores the pool first
	}
	q.search.AdditionalProperties.ModuleParams = hooks
	return nil
}

// plainRerank is a rerank call with its property's settings cut off: the
// reranker reads the property by its name.
func plainRerank(rp *rank.Params) *rank.Params {
	name, _, _ := strings.Cut(rp.GetProperty(), RerankSettingsSeparator)
	out := *rp
	out.Property = &name
	return &out
}

// setSearchLoads decides what the pool's search loads. The selection reads each
// candidate's vector and text; when it is the only reader of the pool (no
// reranker reads it first) and reads nothing but its text properties, the
// pool is read as ids, scores and, when the query asks for them, vectors:
// the selection takes the text and the vector it compares from the feature
// cache, reads the candidates the cache does not hold by id in one batch,
// and the selected objects' properties by id (selectedObjects). Otherwise
// the pool's search loads what the selection reads with what the query asks
// for.
func (e *engine) setSearchLoads(q *query, class *models.Class) {
	p := q.plan
	// A rerank property that carries settings is loaded by its plain name.
	q.reads = plainNames(q.reads)
	q.search.Properties = plainProperties(q.search.Properties)
	if rp, ok := q.search.AdditionalProperties.ModuleParams[rerankProperty].(*rank.Params); ok {
		q.search.Properties = withProperty(q.search.Properties, rp.GetProperty())
	}
	if e.searchDeferrable(q, class) {
		q.search.Properties = nil
		q.search.AdditionalProperties.NoProps = true
		p.deferred = &deferral{}
		if !hasMultiVector(class) {
			p.deferred.vectors = true
		} else {
			e.askVector(q)
		}
		return
	}
	for _, name := range p.propertiesToExtract() {
		q.search.Properties = withProperty(q.search.Properties, name)
	}
	if len(q.search.Properties) > 0 {
		q.search.AdditionalProperties.NoProps = false
	}
	e.askVector(q)
}

// cut cuts a selected object to what the query loads (reads, noProps):
// whatever the pool's search or a read by id loaded for the selection.
func (q *query) cut(schema any) any {
	props, ok := schema.(map[string]any)
	if !ok || (len(q.reads) == 0 && !q.noProps) {
		return schema
	}
	out := make(map[string]any, len(q.reads)+2)
	for _, name := range q.reads {
		if v, ok := props[name]; ok {
			out[name] = v
		}
	}
	for _, name := range []string{"id", "_additional"} {
		if v, ok := props[name]; ok {
			out[name] = v
		}
	}
	return out
}

// askVector asks the pool's search for the vector the selection compares.
func (e *engine) askVector(q *query) {
	p, addl := q.plan, &q.search.AdditionalProperties
	switch {
	case !p.needsVectors():
	case p.target == "":
		addl.Vector = true
	case !slices.Contains(addl.Vectors, p.target):
		addl.Vectors = append(slices.Clone(addl.Vectors), p.target)
	}
}

// searchDeferrable: the selection may read the pool as ids and scores (see
// setSearchLoads).
func (e *engine) searchDeferrable(q *query, class *models.Class) bool {
	pool := q.search
	if e.features == nil || q.plan.read == nil || len(pool.AdditionalProperties.ModuleParams) > 0 ||
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
	row := routes[q.entry.route]
	if row.rerankScores {
		giveRerankScores(out)
	}
	// Weaviate replies with explainScore only when the query asks for it.
	if q.explain && row.explainsInScore {
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
