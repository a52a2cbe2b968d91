package coverage

import (
	"math"
	"runtime"

	"github.com/diverse-select/diverse-select/internal/workshare"
	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/text"
)

// The query's terms in the candidates (queryTerms): which analysed query
// terms each candidate contains, their weights and each candidate's lexical
// match - the lexical part of the hybrid relevance, and what the query-term
// and part demands are made of.

// analysed returns every candidate's analysed terms (its precomputed Terms
// when it has them).
func analysed(c []selectors.Candidate, an *text.Analyzer) [][]string {
	out := make([][]string, len(c))
	for d := range c {
		if out[d] = c[d].Terms; out[d] == nil {
			out[d] = an.Terms(nil, c[d].Text)
		}
	}
	return out
}

// queryTerms finds the query's distinct analysed terms in the candidates
// (from all when given, else their Terms or analysing each text; testing
// each term against the query's word filter by its hash: from hashes, the
// hashes of all, when given, else the candidate's TermHashes, else hashing
// it here).
// It returns, per candidate, the indices of the query terms it contains;
// the term weights w_t = log((N+1)/(df_t+0.5)) normalised to sum 1 over the
// terms found in the pool (terms found nowhere are dropped); and lex_d, the
// sum of w_t over d's terms divided by the largest such sum in the pool;
// and the index in w of each analysed query term found in the pool (the
// part demand reads it). All four are nil without query text or when no candidate has a query term.
func queryTerms(p *selectors.Problem, an *text.Analyzer, all [][]string, hashes *termHashes) ([][]int32, []float64, []float64, map[string]int32) {
	if p.Query == "" {
		return nil, nil, nil, nil
	}
	qterms := an.Terms(nil, p.Query)
	q := queryIndex{terms: make([]string, 0, len(qterms)), hashes: make([]uint32, 0, len(qterms))}
	index := make(map[string]int32, len(qterms))
	for _, t := range qterms {
		if _, ok := index[t]; !ok {
			index[t] = int32(len(index))
			q.add(t)
		}
	}
	if len(index) == 0 {
		return nil, nil, nil, nil
	}
	if len(index) > maxScannedTerms {
		q.byTerm = index
	}
	c := p.Candidates
	n := len(c)
	has := make([][]int32, n)
	// Every candidate's terms in one array (has[d] is sliced from it below),
	// ends[d] where d's end.
	ends := make([]int32, n)
	df := make([]float64, len(index))
	var flat []int32
	if n >= parallelTerms && all == nil && allAnalysed(c) {
		flat = scanTermsShared(&q, c, ends, df)
	} else {
		q.seen = make([]int32, len(index))
		flat = scanTerms(&q, c, all, hashes, an, 0, n, make([]int32, 0, n), ends, df)
	}
	from := int32(0)
	for d, end := range ends {
		if end > from {
			has[d] = flat[from:end:end]
		}
		from = end
	}
	// Renumber the terms found in the pool densely, weigh them.
	dense := make([]int32, len(index))
	w := make([]float64, 0, len(index))
	var sum float64
	for t := range df {
		dense[t] = -1
		if df[t] > 0 {
			dense[t] = int32(len(w))
			x := math.Log((float64(n) + 1) / (df[t] + 0.5))
			w = append(w, x)
			sum += x
		}
	}
	if len(w) == 0 {
		return nil, nil, nil, nil
	}
	for t := range w {
		w[t] /= sum
	}
	lex := make([]float64, n)
	var top float64
	for d := range has {
		for j, t := range has[d] {
			has[d][j] = dense[t]
			lex[d] += w[dense[t]]
		}
		top = max(top, lex[d])
	}
	for d := range lex {
		lex[d] /= top
	}
	ids := make(map[string]int32, len(w))
	for term, t := range index {
		if dense[t] >= 0 {
			ids[term] = dense[t]
		}
	}
	return has, w, lex, ids
}

// queryIndex finds a pool's words among the query's distinct terms: the
// word filter turns most words away by their hash; a word it lets through is
// found by its hash among the terms' (a scan of a few 32-bit hashes costs
// less than hashing the word again for a map), the words compared only
// when the hashes match; a long query's terms are found in a map.
// scanTerms finds the query's terms in candidates [from, to) (their terms
// from all when given, else their precomputed Terms, else analysing the
// text with an; their hashes from hashes when given, else the candidates'
// own TermHashes, else computed): it appends each candidate's distinct
// query terms to flat, sets ends[d] to flat's length after d and counts the
// candidates each term is found in into df.
func scanTerms(q *queryIndex, c []selectors.Candidate, all [][]string, hashes *termHashes, an *text.Analyzer,
	from, to int, flat []int32, ends []int32, df []float64,
) []int32 {
	var buf []string
	for d := from; d < to; d++ {
		var terms []string
		var hs []uint32 // the terms' hashes, when given or computed already
		switch {
		case all != nil:
			terms = all[d]
		case c[d].Terms != nil:
			terms = c[d].Terms
		default:
			buf = an.Terms(buf[:0], c[d].Text)
			terms = buf
		}
		if hashes != nil {
			hs = hashes.of(d)
		} else {
			hs = givenHashes(&c[d])
		}
		found := func(h uint32, j int) {
			if t, ok := q.foundIn(d, h, terms, j); ok {
				flat = append(flat, t)
				df[t]++
			}
		}
		if hs != nil {
			for j, h := range hs {
				if q.filter.hasHash(h) {
					found(h, j)
				}
			}
		} else {
			for j, term := range terms {
				if h := text.TermHash(term); q.filter.hasHash(h) {
					found(h, j)
				}
			}
		}
		ends[d] = int32(len(flat))
	}
	return flat
}

// scanTermsShared is scanTerms over the whole pool in chunks shared among
// the cores (workshare), each with its own found terms, counts and marks,
// joined in candidate order: the same result as one pass. The pass reads
// every candidate's term hashes, wherever the feature cache keeps them - on
// the server about 0.7 ms of cache misses at N = 1000 on one core. Only
// for candidates with their terms analysed already (an Analyzer is not
// safe for concurrent use).
func scanTermsShared(q *queryIndex, c []selectors.Candidate, ends []int32, df []float64) []int32 {
	n := len(c)
	units := (n + termsChunk - 1) / termsChunk
	type part struct {
		from, to int
		flat     []int32
		df       []float64
	}
	parts := make([]part, units)
	workshare.Ranges(runtime.GOMAXPROCS(0), n, termsChunk, func(u, from, to int) {
		own := *q // the index is read-only but for its marks
		own.seen = make([]int32, len(q.terms))
		pt := &parts[u]
		pt.from, pt.to, pt.df = from, to, make([]float64, len(df))
		pt.flat = scanTerms(&own, c, nil, nil, nil, from, to, make([]int32, 0, to-from), ends, pt.df)
	})
	total := 0
	for _, pt := range parts {
		total += len(pt.flat)
	}
	flat := make([]int32, 0, total)
	for _, pt := range parts {
		offset := int32(len(flat))
		for d := pt.from; d < pt.to; d++ {
			ends[d] += offset
		}
		flat = append(flat, pt.flat...)
		for t, x := range pt.df {
			df[t] += x
		}
	}
	return flat
}

// allAnalysed: every candidate comes with its analysed terms.
func allAnalysed(c []selectors.Candidate) bool {
	for i := range c {
		if c[i].Terms == nil {
			return false
		}
	}
	return true
}

const (
	// parallelTerms is the pool from which the query-term pass is shared
	// among the cores (below it, waking another core costs more than the
	// pass: parallelLinks), termsChunk the candidates in one unit of it.
	parallelTerms = parallelLinks
	termsChunk    = 128
)

type queryIndex struct {
	filter wordFilter
	terms  []string
	hashes []uint32
	byTerm map[string]int32 // when the query has more than maxScannedTerms terms
	seen   []int32          // seen[t] = d+1 once term t is found in candidate d
}

// maxScannedTerms is the most distinct query terms found by a scan.
const maxScannedTerms = 16

func (q *queryIndex) add(term string) {
	h := text.TermHash(term)
	q.filter.addHash(h)
	q.terms = append(q.terms, term)
	q.hashes = append(q.hashes, h)
}

// foundIn returns the query term that words[j], a word of candidate d of
// hash h, is, when d's earlier words were not that term, and marks it found
// in d. The word is read only to tell apart the query terms of its hash not
// found in d yet: once they are, its later words of that hash add nothing,
// whatever they are (in the server the read is a cache miss, and a chunk
// tends to repeat the query terms it has).
func (q *queryIndex) foundIn(d int, h uint32, words []string, j int) (int32, bool) {
	mark := int32(d + 1)
	if q.byTerm != nil {
		t, ok := q.byTerm[words[j]]
		if !ok || q.seen[t] == mark {
			return 0, false
		}
		q.seen[t] = mark
		return t, true
	}
	for t, x := range q.hashes {
		if x == h && q.seen[t] != mark && q.terms[t] == words[j] {
			q.seen[t] = mark
			return int32(t), true
		}
	}
	return 0, false
}
