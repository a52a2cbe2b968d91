package engine

import (
	"github.com/weaviate/weaviate/entities/search"

	"github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/selectors"
)

// plan is everything one query's selection needs, resolved once by the
// stage (query.go, resolve) before the search runs and never changed after.
// The routes differ only in where the query's settings come from.
type plan struct {
	// routeLabel names the query's route in the metrics and the log;
	// ownRerank: the route's rerank call is this module's, so rerank
	// scores on the pool are no other reranker's (route.go).
	routeLabel string
	ownRerank  bool
	className  string
	tenant     string
	settings
	// maxOut caps the output (the top-level form's query limit; 0 = none).
	maxOut int
	// target is the vector compared between candidates ("" = the legacy
	// vector), metric its distance, for relevance from distances.
	target, metric string
	// multiVector: target is a multi-vector (multivector.go).
	multiVector bool
	// relevance is where candidates' relevance comes from (see relevances).
	relevance relevanceSource
	queryText string
	// threshold is the search's certainty or distance, applied to the pool
	// before the selection (see threshold.keep).
	threshold threshold
	// offset is the number of results earlier pages showed: the selection
	// is the page after them ((*selectors.Selector).RunPage). paged is set when the
	// query gives an offset, even 0: then the response says whether the
	// pool is spent (exhausted).
	offset int
	paged  bool
	// poolSize is the pool the search was asked for (0 = unknown):
	// widening helps only when the search returned all of it.
	poolSize int
	// deferred: the pool's search reads ids and scores only (deferred.go);
	// nil when it loads what the selection reads.
	deferred *deferral
	// filtered: the search has a filter, so an object changed since it ran
	// is dropped when read again (versions.go).
	filtered bool
	// loads and noProps are what the query itself loads for the objects it
	// returns: the properties it names (none named: all), or none at all.
	// The selected objects are cut to them, on every path, so the response
	// and generate get what they get without the module.
	loads   []string
	noProps bool
	// read reads objects by id for this query (the engine's multiGet, or
	// the gateway's upstream reads); nil: none at hand, nothing deferred.
	read MultiGetFunc
}

// settings are the merged configuration of one query on one class and the
// text properties it reads: what the GraphQL field needs right after
// extraction, before the search arguments are known.
type settings struct {
	eff       *config.Effective // strategy and parameters, budget, pool, order, ...
	textProps []string
	limits    config.Limits // the module's input limits
}

// searchFacts is what the stage knows of the search that produces the
// candidates, from the query's params (searchFromParams).
type searchFacts struct {
	relevance relevanceSource
	queryText string   // nearText concepts, bm25/hybrid query
	targets   []string // the search's target vectors
	threshold threshold
	limit     int // the query limit, when it caps the output (top-level form)
	tenant    string
	filtered  bool
	// offset is the query's own offset (GraphQL), paged whether it gave one.
	offset int
	paged  bool
}

// needsVectors reports whether the selection compares the candidates' vectors.
func (s *settings) needsVectors() bool {
	return s.eff.Selector.UsesVectors() || s.eff.DedupThreshold > 0
}

// cachesVectors reports whether the feature cache holds the vector the
// selection compares, so that the search need not load it: a single
// vector (multi-vectors are loaded by the search).
func (p *plan) cachesVectors() bool { return p.needsVectors() && !p.multiVector }

// propertiesToExtract names the properties the selection reads: the pool's
// search loads them when it loads properties (search.go, setSearchLoads).
func (s *settings) propertiesToExtract() []string {
	props := append([]string{}, s.textProps...)
	if s.eff.TokenProperty != "" {
		props = append(props, s.eff.TokenProperty)
	}
	if s.readsSources() {
		props = append(props, s.eff.SourceProperty)
	}
	return append(props, propertyParams(s.eff)...)
}

// readsSources reports whether the selection reads the sourceProperty: set,
// and the strategy reads sources.
func (s *settings) readsSources() bool {
	return s.eff.SourceProperty != "" && s.eff.Selector.Def.NeedsSources
}

// propertyParams are the object properties the strategy in effect reads
// through its parameters of kind property (external strategies).
func propertyParams(eff *config.Effective) []string {
	if eff == nil || eff.Selector == nil {
		return nil
	}
	return selectors.PropertyParams(eff.Selector.Def.Params, eff.Selector.Params)
}

// threshold is a vector search's certainty or distance limit. Weaviate
// applies it to the results after the module's hooks
// (usecases/traverser/explorer.go, searchResultsToGetResponseWithType), so the
// selection applies the same rule to its pool first: the budget is spent on
// objects that are returned, and Weaviate's own filter then removes nothing.
type threshold struct {
	certainty    float64 // 0 = none; wins over distance, as in Weaviate
	distance     float64
	withDistance bool
}

func thresholdOf(certainty, distance float64, withDistance bool) threshold {
	if certainty != 0 {
		return threshold{certainty: certainty}
	}
	return threshold{distance: distance, withDistance: withDistance}
}

// keep reports whether Weaviate keeps a result at distance dist: the same
// comparisons, in float32 where Weaviate makes them.
func (t threshold) keep(dist float32) bool {
	if t.certainty != 0 {
		normalized := dist / 2
		return !(1-normalized < float32(t.certainty) && 1-normalized >= 0)
	}
	if t.withDistance {
		d := float64(dist)
		return d <= t.distance || withinDelta(d, t.distance, 1e-6)
	}
	return true
}

func withinDelta(a, b, delta float64) bool { return a-b <= delta && b-a <= delta }

// filter returns the results Weaviate keeps under t (in itself when all are).
func (t threshold) filter(in []search.Result) []search.Result {
	if t == (threshold{}) {
		return in
	}
	out := make([]search.Result, 0, len(in))
	for _, r := range in {
		if t.keep(r.Dist) {
			out = append(out, r)
		}
	}
	return out
}

// relevanceSource is where a candidate's relevance comes from. The same
// rule holds on every route (argument, field, rerank):
//
//   - fromRerank: a reranker module (reranker-transformers, -cohere, ...)
//     ran before the selection and scored every candidate: its scores,
//     min-max normalised over the pool (1 = best, 0 = worst). Min-max because
//     rerankers disagree on the scale (cross-encoder logits, probabilities):
//     the ranking and the relative gaps are what every one of them means;
//   - fromDistance: nearText, nearVector, nearObject, ...: from the distance
//     under the target vector's metric (1 - distance for cosine); on a
//     multi-vector target minus the distance (the MaxSim score), min-max
//     normalised over the pool;
//   - fromScore: bm25 and hybrid: the score, min-max normalised over the pool;
//   - fromOrder: a plain list (no search ranks it): 1 - i/N for the i-th
//     candidate (0-based) of the N in Weaviate's list order, so ties among
//     equally unranked candidates break the same way on every route.
type relevanceSource int

// String is the name shown in _additional { diverseSelect { relevanceSource } }.
func (s relevanceSource) String() string {
	switch s {
	case fromScore:
		return "score"
	case fromOrder:
		return "order"
	case fromRerank:
		return "rerank"
	}
	return "distance"
}

// deferral is what the pool's search left out for the selection to supply.
type deferral struct {
	// vectors: the pool's search was not asked for the vector the
	// selection compares (it may still carry it when the query asked for
	// it): the selection takes it from the feature cache and reads it by id
	// with the text of the candidates the cache does not hold.
	vectors bool
}

// readsOnlyText reports whether the selection reads no property but its
// text properties, whose text the feature cache can stand in for.
func (s *settings) readsOnlyText() bool {
	e := s.eff
	return e.TokenProperty == "" && !s.readsSources() && len(propertyParams(e)) == 0 && len(s.textProps) > 0
}

const (
	fromDistance relevanceSource = iota
	fromScore
	fromOrder
	fromRerank
)
