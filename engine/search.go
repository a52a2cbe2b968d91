package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/weaviate/weaviate/entities/dto"
	"github.com/weaviate/weaviate/entities/filters"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/modulecapabilities"
	"github.com/weaviate/weaviate/entities/search"
	"github.com/weaviate/weaviate/usecases/modulecomponents/additional/rank"
	"github.com/weaviate/weaviate/usecases/modulecomponents/arguments/nearText"

	"github.com/diverse-select/diverse-select/config"
)

// searchFromParams reads the facts of a query's search from its params:
// where relevance comes from, the query text, the target vectors, the
// certainty or distance threshold, the tenant and whether it filters.
func searchFromParams(params dto.GetParams) searchFacts {
	s := searchFromModuleParams(params.ModuleParams)
	s.tenant, s.filtered = params.Tenant, params.Filters != nil
	switch {
	case params.KeywordRanking != nil:
		s.relevance, s.queryText = fromScore, params.KeywordRanking.Query
	case params.HybridSearch != nil:
		s.relevance, s.queryText = fromScore, params.HybridSearch.Query
		s.targets = append(s.targets, params.HybridSearch.TargetVectors...)
	case params.NearVector != nil:
		nv := params.NearVector
		s.relevance = fromDistance
		s.targets = append(s.targets, nv.TargetVectors...)
		s.threshold = thresholdOf(nv.Certainty, nv.Distance, nv.WithDistance)
	case params.NearObject != nil:
		no := params.NearObject
		s.relevance = fromDistance
		s.targets = append(s.targets, no.TargetVectors...)
		s.threshold = thresholdOf(no.Certainty, no.Distance, no.WithDistance)
	case len(params.ModuleParams) > 0:
		s.relevance = fromDistance
	default:
		s.relevance = fromOrder
	}
	return s
}

// searchFromModuleParams reads the module near-searches (nearText, ...):
// their target vectors, concepts and threshold.
func searchFromModuleParams(params map[string]any) searchFacts {
	var s searchFacts
	for _, v := range params {
		np, ok := v.(modulecapabilities.NearParam)
		if !ok {
			continue
		}
		s.targets = append(s.targets, np.GetTargetVectors()...)
		if nt, ok := v.(*nearText.NearTextParams); ok && nt != nil {
			s.queryText = strings.Join(nt.Values, " ")
		}
		if np.SimilarityMetricProvided() {
			s.threshold = thresholdOf(np.GetCertainty(), np.GetDistance(), true)
		}
	}
	return s
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
func (e *Engine) setSearchWindow(q *stageQuery, class *models.Class, w window) error {
	p := q.plan
	pool := w.limit
	row := routes[q.arrival.route]
	if row.candidatesArePool {
		pool = p.eff.Candidates
	}
	if pool > e.defaults.MaxCandidates {
		return candidateCapError(pool, e.defaults.MaxCandidates) // before the search runs
	}
	if !row.candidatesArePool {
		if err := checkPoolPolicy(class, row.config, pool); err != nil {
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
func (q *stageQuery) setSearchLimit(limit int) {
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
func setSearchHooks(q *stageQuery, class *models.Class) error {
	c := q.arrival
	hooks := map[string]any{}
	switch rp, reranks := q.search.AdditionalProperties.ModuleParams[RerankProperty].(*rank.Params); {
	case routes[c.route].reranksFirst:
		hooks[RerankProperty] = plainRerank(c.rerank)
	case routes[c.route].ownsRerank || !reranks || rp == nil:
	case classConfig(class, RerankerName) != nil:
		return &markedError{mark: errRefused, err: fmt.Errorf("both select on this collection: its reranker is %s and the query "+
			"asks for diverseSelect too; give the selection once (the rerank field, or diverseSelect)", RerankerName)}
	case strings.Contains(rp.GetProperty(), RerankSettingsSeparator):
		return &markedError{mark: errRefused, err: errors.New("selection settings in the rerank property and diverseSelect " +
			"in the same query: give them in one place (diverseSelect's arguments)")}
	default:
		hooks[RerankProperty] = rp // another reranker scores the pool first
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
func (e *Engine) setSearchLoads(q *stageQuery, class *models.Class) {
	p := q.plan
	// A rerank property that carries settings is loaded by its plain name.
	q.plan.loads = plainNames(q.plan.loads)
	q.search.Properties = plainProperties(q.search.Properties)
	if rp, ok := q.search.AdditionalProperties.ModuleParams[RerankProperty].(*rank.Params); ok {
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

// askVector asks the pool's search for the vector the selection compares.
func (e *Engine) askVector(q *stageQuery) {
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
func (e *Engine) searchDeferrable(q *stageQuery, class *models.Class) bool {
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
