// Package ngram is the TREC RAG 2025 submission's selector: greedy
// n-gram coverage plus BM25 plus source novelty (docs/strategies-text.md).
//
// Objective: at each step take the remaining, fitting candidate d with the
// largest alpha*g_cov(d|S) + beta*BM25(Q,d) + gamma*g_nov(d|S) (ties: higher
// relevance, then earlier rank), until k items are selected or nothing fits.
//   - g_cov(d|S): sum of w(x) over the unigrams, bigrams and trigrams x of d
//     not covered by S, w(x) = log((N+1)/(df(x)+1)), df = number of pool
//     candidates containing x (per order: n-grams of different orders are
//     different concepts);
//   - BM25(Q,d) over the pool as collection, k1 = 1.2, b = 0.75,
//     idf(t) = log((N-df(t)+0.5)/(df(t)+0.5)+1), summed over the distinct
//     query terms; without query text (Problem.Query empty, or no term left
//     after analysis) it is replaced by r_d;
//   - g_nov(d|S) = 1/(1+n_S(h(d))), h = the lower-cased host of the source
//     when it parses as an absolute URL with a host, otherwise the source
//     string itself; a candidate without a source has g_nov = 0.
//
// Token lists: "lower-cased, lightly stemmed" is resolved as the terms of
// package text (Unicode words, lower-cased, English stopwords removed,
// length >= 2, Snowball stem), the same as knapsack's. We remove stopwords:
// n-grams are meant to capture content phrases, and stopword n-grams ("of
// the", "in a") would otherwise earn coverage weight whenever they are not
// in every chunk of the pool, favouring long chunks full of function words;
// the BM25 query gets the same analysis, as BM25 analyzers usually do.
//
// Parameters alpha, beta, gamma (defaults 1, 0.4, 0.2) and k: the paper's
// default of 24 results is the parameter k, which caps maxResults (the
// effective limit is min(maxResults, k)). The step objective ranks, it does
// not stop the walk: a zero or negative step value is still selected.
//
// Explanation: Item.Gain is the step objective at selection; Item.Redundancy
// is the weight of d's n-grams already covered then; Result.Objective is the
// sum of the gains. Stats: "bm25" 1 when a query was used (0 = r_d stand-in),
// "queryTerms", "avgdl", "ngrams" (distinct n-grams in the pool).
//
// Guarantee: none beyond the greedy heuristic (g_cov alone is monotone
// submodular, so its greedy is within 1-1/e under cardinality).
// Complexity: O(total text) extraction; O(k*N) for the argmax scans plus
// O(total n-gram postings) for the coverage updates.
package ngram

import (
	"context"
	"math"

	"github.com/diverse-select/diverse-select/selectors"
)

// Name is the strategy's registry name.
const Name = "ngram"

func init() {
	inf := math.Inf(1)
	selectors.Register(selectors.Definition{
		Name: Name,
		Doc:  "TREC RAG 2025: greedy uni/bi/trigram coverage + BM25 + source novelty",
		Params: []selectors.ParamSpec{
			{Name: "alpha", Kind: selectors.KindFloat, Default: 1.0, Min: 0, Max: inf, Doc: "weight of n-gram coverage gain"},
			{Name: "beta", Kind: selectors.KindFloat, Default: 0.4, Min: 0, Max: inf, Doc: "weight of BM25 to the query (or relevance without query)"},
			{Name: "gamma", Kind: selectors.KindFloat, Default: 0.2, Min: 0, Max: inf, Doc: "weight of source novelty 1/(1+items from the same host)"},
			{Name: "k", Kind: selectors.KindInt, Default: 24, Min: 1, Max: selectors.MaxCandidates, Doc: "most items selected (caps maxResults)"},
		},
		NeedsText:    true,
		NeedsSources: true,
		New: func(p selectors.Params) (selectors.Strategy, error) {
			return strategy{alpha: p.Float("alpha"), beta: p.Float("beta"), gamma: p.Float("gamma"), k: p.Int("k")}, nil
		},
	})
}

type strategy struct {
	alpha, beta, gamma float64
	k                  int
}

// Select implements selectors.Strategy.
func (s strategy) Select(ctx context.Context, p *selectors.Problem) (*selectors.Result, error) {
	c := p.Candidates
	if len(c) == 0 {
		return &selectors.Result{}, nil
	}
	f, err := extract(ctx, p)
	if err != nil {
		return nil, err
	}
	n, k := len(c), min(p.K(), s.k)
	hostCount := make([]int, f.hosts)
	alive := make([]bool, n)
	for i := range alive {
		alive[i] = true
	}
	covered := make([]bool, len(f.w))
	res := &selectors.Result{Items: make([]selectors.Item, 0, min(k, 64)), Stats: f.stats}
	used := 0
	for len(res.Items) < k {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		best, bestScore := -1, 0.0
		for d := 0; d < n; d++ {
			if !alive[d] {
				continue
			}
			if !p.Fits(used, c[d].Tokens) {
				alive[d] = false // the budget only shrinks
				continue
			}
			nov := 0.0
			if h := f.host[d]; h >= 0 {
				nov = 1 / (1 + float64(hostCount[h]))
			}
			score := s.alpha*max(0, f.gcov[d]) + s.beta*f.bm25[d] + s.gamma*nov
			if math.IsNaN(score) { // only from absurd weights times extreme relevance
				score = math.Inf(-1)
			}
			if best < 0 || score > bestScore || (score == bestScore && selectors.Better(c, d, best)) {
				best, bestScore = d, score
			}
		}
		if best < 0 {
			break
		}
		alive[best] = false
		used += c[best].Tokens
		if h := f.host[best]; h >= 0 {
			hostCount[h]++
		}
		res.Objective += bestScore
		res.Items = append(res.Items, selectors.Item{Index: best, Gain: bestScore, Relevance: c[best].Relevance,
			Redundancy: f.cover(best, covered), Tokens: c[best].Tokens})
	}
	return res, nil
}
