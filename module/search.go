package diverseselect

import (
	"strings"

	"github.com/weaviate/weaviate/entities/dto"
	"github.com/weaviate/weaviate/entities/modulecapabilities"
	"github.com/weaviate/weaviate/entities/search"
	"github.com/weaviate/weaviate/usecases/modulecomponents/arguments/nearText"
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
