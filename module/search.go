package diverseselect

import (
	"strings"

	"github.com/weaviate/weaviate/entities/modulecapabilities"
	"github.com/weaviate/weaviate/entities/search"
	"github.com/weaviate/weaviate/usecases/modulecomponents/arguments/nearText"

	"github.com/diverse-select/diverse-select/selectors"
)

// searchFromArgs reads the facts of a search from the Get resolver's
// GraphQL arguments (both GraphQL forms): where relevance comes from, the
// query text, the target vectors and the certainty or distance threshold.
func searchFromArgs(args map[string]any) searchFacts {
	var s searchFacts
	s.relevance = fromOrder
	for name, v := range args {
		a, ok := v.(map[string]any)
		if !ok {
			continue
		}
		switch {
		case name == "hybrid" || name == "bm25":
			s.relevance = fromScore
			s.queryText, _ = a["query"].(string)
		case strings.HasPrefix(name, "near"):
			s.relevance = fromDistance
			if name == "nearText" {
				s.queryText = strings.Join(stringList(a["concepts"]), " ")
			}
			s.threshold = thresholdOf(a["certainty"], a["distance"])
		default:
			continue
		}
		if name != "bm25" {
			s.targets = append(s.targets, stringList(a["targetVectors"])...)
		}
	}
	return s
}

// searchFromModuleParams reads what a result hook can see of the search: the
// module near-searches (nearText, ...) with their target vectors, concepts and
// threshold. nearVector and nearObject are not module parameters; the
// relevance source then comes from the results (sourceOf).
func searchFromModuleParams(params map[string]any, in []search.Result) searchFacts {
	s := searchFacts{relevance: sourceOf(in)}
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
			if c := np.GetCertainty(); c != 0 {
				s.threshold = threshold{certainty: c}
			} else {
				s.threshold = threshold{distance: np.GetDistance(), withDistance: true}
			}
		}
	}
	return s
}

// sourceOf tells where relevance comes from when the search kind is not
// visible (result hooks): keyword and hybrid searches set scores, near
// searches distances only, a plain list neither (then the order is the
// relevance).
func sourceOf(in []search.Result) relevanceSource {
	dist, score := false, false
	for _, res := range in {
		dist = dist || res.Dist != 0
		score = score || res.Score != 0
	}
	switch {
	case score:
		return fromScore
	case dist:
		return fromDistance
	}
	return fromOrder
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

func thresholdOf(certainty, distance any) threshold {
	if c, ok := selectors.AsNumber(certainty); ok && c != 0 {
		return threshold{certainty: c}
	}
	if d, ok := selectors.AsNumber(distance); ok {
		return threshold{distance: d, withDistance: true}
	}
	return threshold{}
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

func stringList(v any) []string {
	switch x := v.(type) {
	case []string:
		return x
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	case string:
		return []string{x}
	}
	return nil
}
