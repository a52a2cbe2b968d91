package ngram

import (
	"context"
	"math"
	"net/url"
	"strings"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/text"
)

const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// features are the per-pool quantities of one run. N-grams are dense ids
// from text.Dict; per-candidate lists are in CSR form (off, ids) so that
// extraction allocates a few flat slices, not one slice per candidate.
type features struct {
	gramOff, grams []int32   // candidate d's distinct n-grams: grams[gramOff[d]:gramOff[d+1]]
	postOff, post  []int32   // n-gram x's candidates: post[postOff[x]:postOff[x+1]]
	w              []float64 // w(x) = log((N+1)/(df(x)+1))
	gcov           []float64 // current uncovered weight per candidate
	bm25           []float64 // BM25(Q,d), or r_d without query
	host           []int     // host id per candidate, -1 without source
	hosts          int
	stats          map[string]float64
}

func extract(ctx context.Context, p *selectors.Problem) (*features, error) {
	c := p.Candidates
	n := len(c)
	bytes := 0
	for d := range c {
		bytes += len(c[d].Text)
		if c[d].Text == "" {
			bytes += 6 * len(c[d].Terms) // presizing only: WordHint's bytes per word
		}
	}
	an, dict := text.NewAnalyzer(), text.NewDict(text.WordHint(bytes), 3)
	f := &features{gramOff: make([]int32, n+1), host: make([]int, n), stats: map[string]float64{}}
	termOff := make([]int32, n+1)
	var terms []int32
	for d := range c {
		if d%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		start := len(terms)
		if c[d].Terms != nil {
			terms = dict.TermIDs(terms, c[d].Terms)
		} else {
			terms = an.TermIDs(terms, dict, c[d].Text)
		}
		termOff[d+1] = int32(len(terms))
		f.grams = dict.NGrams(f.grams, terms[start:], 3)
		f.gramOff[d+1] = int32(len(f.grams))
	}
	// Document frequencies, weights, postings (counting sort into CSR).
	df := make([]int32, dict.Len())
	for _, x := range f.grams {
		df[x]++
	}
	f.w = make([]float64, len(df))
	f.postOff = make([]int32, len(df)+1)
	for x, m := range df {
		f.w[x] = math.Log(float64(n+1) / float64(m+1))
		f.postOff[x+1] = f.postOff[x] + m
	}
	f.post = make([]int32, len(f.grams))
	fill := append([]int32(nil), f.postOff[:len(df)]...)
	f.gcov = make([]float64, n)
	for d := 0; d < n; d++ {
		for _, x := range f.grams[f.gramOff[d]:f.gramOff[d+1]] {
			f.post[fill[x]] = int32(d)
			fill[x]++
			f.gcov[d] += f.w[x]
		}
	}
	f.bm25 = bm25(an, dict, p, terms, termOff, df, f.stats)
	f.hosts = hostIDs(c, f.host)
	f.stats["ngrams"] = float64(len(df))
	return f, nil
}

// cover marks d's n-grams covered, lowers the uncovered weight of every
// candidate sharing a newly covered n-gram, and returns the weight of d's
// n-grams that were already covered (d's redundancy).
func (f *features) cover(d int, covered []bool) float64 {
	var red float64
	for _, x := range f.grams[f.gramOff[d]:f.gramOff[d+1]] {
		if covered[x] {
			red += f.w[x]
			continue
		}
		covered[x] = true
		for _, e := range f.post[f.postOff[x]:f.postOff[x+1]] {
			f.gcov[e] -= f.w[x]
		}
	}
	return red
}

// bm25 scores every candidate against the distinct terms of p.Query, or
// returns the relevances when there is no query term.
func bm25(an *text.Analyzer, dict *text.Dict, p *selectors.Problem, terms, termOff, df []int32, stats map[string]float64) []float64 {
	n := len(p.Candidates)
	out := make([]float64, n)
	var qt []string
	seen := map[string]bool{}
	for _, t := range an.Terms(nil, p.Query) {
		if !seen[t] {
			seen[t] = true
			qt = append(qt, t)
		}
	}
	stats["queryTerms"] = float64(len(qt))
	avgdl := float64(len(terms)) / float64(n)
	stats["avgdl"] = avgdl
	if len(qt) == 0 {
		stats["bm25"] = 0
		for d, c := range p.Candidates {
			out[d] = c.Relevance
		}
		return out
	}
	stats["bm25"] = 1
	// The query terms found in some candidate (k-th: qid[k], idf[k]); then
	// one pass over each candidate's terms counts them (a pass per query term
	// would cost the pool's words times the query's distinct terms).
	slot := map[int32]int{}
	var idf []float64
	for _, t := range qt {
		id, ok := dict.LookupTerm(t)
		if !ok || df[id] == 0 {
			continue // a term in no candidate scores nowhere
		}
		m := float64(df[id])
		slot[id] = len(idf)
		idf = append(idf, math.Log((float64(n)-m+0.5)/(m+0.5)+1))
	}
	tf := make([]int, len(idf))
	for d := 0; d < n; d++ {
		doc := terms[termOff[d]:termOff[d+1]]
		clear(tf)
		for _, x := range doc {
			if k, ok := slot[x]; ok {
				tf[k]++
			}
		}
		norm := bm25K1 * (1 - bm25B + bm25B*float64(len(doc))/avgdl)
		for k, f := range tf { // in query order, the order the sum always had
			if f > 0 {
				out[d] += idf[k] * float64(f) * (bm25K1 + 1) / (float64(f) + norm)
			}
		}
	}
	return out
}

// Host is the novelty key of a source: the lower-cased host when the source
// parses as an absolute URL with a host, otherwise the source itself.
func Host(source string) string {
	if u, err := url.Parse(source); err == nil && u.Scheme != "" {
		if h := u.Hostname(); h != "" {
			return strings.ToLower(h)
		}
	}
	return source
}

// hostIDs numbers the distinct hosts in candidate order; -1 for no source.
func hostIDs(c []selectors.Candidate, out []int) int {
	ids := map[string]int{}
	for d := range c {
		out[d] = -1
		if c[d].Source == "" {
			continue
		}
		h := Host(c[d].Source)
		id, ok := ids[h]
		if !ok {
			id = len(ids)
			ids[h] = id
		}
		out[d] = id
	}
	return len(ids)
}
