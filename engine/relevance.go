package engine

import (
	"math"

	"github.com/weaviate/weaviate/entities/search"
	rankmodels "github.com/weaviate/weaviate/usecases/modulecomponents/additional/models"
)

// rerankScore is the score a reranker module left on res, if any.
func rerankScore(res search.Result) (float64, bool) {
	rs, ok := res.AdditionalProperties[RerankProperty].([]*rankmodels.RankResult)
	if !ok || len(rs) == 0 || rs[0] == nil || rs[0].Score == nil {
		return 0, false
	}
	return *rs[0].Score, true
}

// relevances derives r_i for each candidate (see relevanceSource) and tells
// which source it used: a reranker's scores, when every candidate carries
// one, win over the search's own relevance.
func relevances(p *plan, in []search.Result) ([]float64, relevanceSource) {
	out := make([]float64, len(in))
	source := p.relevance
	if !p.ownRerank && allReranked(in) {
		source = fromRerank
	}
	switch source {
	case fromRerank:
		minMax(in, out, func(res search.Result) float64 { s, _ := rerankScore(res); return s })
	case fromDistance:
		if p.multiVector {
			// MaxSim: Weaviate's distance is minus the sum, over the query's
			// vectors, of the best dot product with the object's; it grows
			// with the query's length, so, like a score, min-max over the pool.
			minMax(in, out, func(res search.Result) float64 { return -float64(res.Dist) })
			break
		}
		for i, res := range in {
			d := float64(res.Dist)
			switch p.metric {
			case "dot":
				out[i] = -d
			case "l2-squared":
				out[i] = 1 - d/2
			case "cosine", "":
				out[i] = 1 - d
			default: // hamming, manhattan: a monotone map of the distance into (0, 1]
				out[i] = 1 / (1 + d)
			}
		}
	case fromScore:
		minMax(in, out, func(res search.Result) float64 { return float64(res.Score) })
	default:
		for i := range in {
			out[i] = 1 - float64(i)/float64(len(in))
		}
	}
	for i, v := range out {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			out[i] = 0
		}
	}
	return out, source
}

func allReranked(in []search.Result) bool {
	for _, res := range in {
		if _, ok := rerankScore(res); !ok {
			return false
		}
	}
	return len(in) > 0
}

// minMax writes score(in[i]) min-max normalised into out (1 for all when
// the scores tie).
func minMax(in []search.Result, out []float64, score func(search.Result) float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, res := range in {
		lo = math.Min(lo, score(res))
		hi = math.Max(hi, score(res))
	}
	for i, res := range in {
		if hi > lo {
			out[i] = (score(res) - lo) / (hi - lo)
		} else {
			out[i] = 1
		}
	}
}
