package coverage

import (
	"cmp"
	"math"
	"runtime"
	"slices"
	"sort"

	"github.com/diverse-select/diverse-select/internal/workshare"
	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/text"
)

// objective holds one problem's precomputed pieces of F (see the package
// comment) and the running state of a selection.
type objective struct {
	n     int
	rho   []float64 // hybrid relevance per candidate, in [0, 1]
	kappa float64
	// targets are the candidates the facility-location term sums over (the
	// whole pool, or its most relevant ones: topTargets), w their weights
	// (rho of each target).
	targets []int
	w       []float64
	// s is the coverage kernel, row-major n x ld (row d: what d covers of
	// each target): 1 where d is the target, max(0, k)^power elsewhere.
	s  []float32
	ld int
	// base is each candidate's facility-location gain on the empty
	// selection (kernelGains), where its first gain starts.
	base  []float64
	terms [][]int32 // per candidate, the distinct query terms it contains
	qw    []float64 // per query term, kappa*queryCoverage*w_t
	// queryTerms counts the query's terms found in the pool.
	queryTerms int
	// links are the title links of the second-hop demand (hops.go); hopW
	// is what a linked candidate gains once its partner is selected.
	links [][]int32
	hopW  float64
	// linkBuffers hold the links (release returns them to their pool).
	linkBuffers *linkBuffers
	// parts is the part demand (demand.go); nil when off.
	parts *partDemand
	// outside marks the candidates out of the relevance window (nil:
	// none): they cover nothing in the facility-location term and the
	// fill leaves them (precision.go).
	outside []bool
	// minNovelty and guard decide which candidates are redundant (greedy.go).
	minNovelty float64
	guard      *selectors.CopyGuard
	// trusted is how many candidates stand above the relevance gap (trust.go).
	trusted int
	// shown marks the earlier pages' items and their near-copies (nil on
	// the first page): the window skips them and the greedy never picks
	// them.
	shown []bool
	// State: cur[t] = max_{d in S} s(d,targets[t]); covered[t] for query
	// terms; hopOn[u] when a selected chunk is linked to u.
	cur     []float32
	covered []float64 // per query term, the largest gate of a selected chunk that has it
	// gate is each candidate's share of the query-term and part credit
	// (precision.go, termGates); nil: whole for every candidate.
	gate  []float64
	hopOn []bool
}

func (s strategy) objective(p *selectors.Problem) *objective {
	c := p.Candidates
	n := len(c)
	o := &objective{n: n, kappa: kbar(p), minNovelty: s.minNovelty, guard: selectors.NewCopyGuard(p)}
	o.rho = denseRelevance(c)
	an := text.NewAnalyzer()
	// The candidates' analysed terms, once, when two parts read them.
	var all [][]string
	if s.hop > 0 && p.Query != "" && anyTitle(c) {
		all = analysed(p.Candidates, an)
	}
	// The title links read only the analysed terms: on a pool of some size
	// they are found on another core while the query terms and the kernel
	// are computed (with an analyzer of their own: one is not safe for
	// concurrent use).
	var links [][]int32
	var waitLinks func() // nil: no title links
	var hashes *termHashes
	if all != nil { // the second hop is on and a chunk has a title
		o.linkBuffers = linkPool.Get().(*linkBuffers)
		hashes = &o.linkBuffers.hashes
		hashes.compute(c, all)
		if n >= parallelLinks {
			// A panic there is raised here by waitLinks, under the run's recover.
			waitLinks = workshare.Go(func() { links = titleLinks(o.linkBuffers, c, text.NewAnalyzer(), all, p.Query) })
		} else {
			links = titleLinks(o.linkBuffers, c, an, all, p.Query)
			waitLinks = func() {}
		}
	}
	var lex []float64
	if s.lexical > 0 || s.queryCoverage > 0 {
		var w []float64
		var ids map[string]int32
		o.terms, w, lex, ids = queryTerms(p, an, all, hashes)
		o.queryTerms = len(w)
		if s.parts > 0 {
			o.parts = newPartDemand(p.Query, an, ids, w, o.terms, o.kappa*s.parts)
		}
		if s.queryCoverage > 0 && len(w) > 0 {
			o.qw = make([]float64, len(w))
			for t := range w {
				o.qw[t] = o.kappa * s.queryCoverage * w[t]
			}
		}
	}
	// The price of a token applies unless the budget is to be filled,
	// under a budget that leaves most of the pool out (precision.go).
	priced := !s.fill && tightBudget(o.kappa, p)
	// Whether the dense ranking agrees with the query's words, read before
	// they are mixed into it (outsideTerms auto, precision.go).
	agreeing := priced && s.outsideTerms == OutsideTermsAuto && lex != nil && rankAgreement(o.rho, lex) >= wordsAgree
	if lex != nil && s.lexical > 0 {
		for i := range o.rho {
			o.rho[i] = (1-s.lexical)*o.rho[i] + s.lexical*lex[i]
		}
	}
	// The trusted head (trust.go) ranks with the best: no lexical score
	// reorders what the dense ranking sets apart.
	top := trustedTop(c, int(o.kappa), s.trustGap)
	if top != nil {
		best := slices.Max(o.rho)
		for _, d := range top {
			o.rho[d] = best
		}
	}
	// The price of a token: the sharper demand and the relevance window.
	o.shown = shownOrCopies(p, o.guard)
	if priced {
		o.gate = termGates(o.rho, c)
		o.outside = outsideWindow(o.rho, c, windowBudgets*float64(p.Budget), windowFloor, o.shown, pageFloor, o.guard)
		if s.outsideTerms == OutsideTermsRelevance || agreeing {
			o.gate = outsideGates(o.gate, o.rho, o.outside)
		}
	}
	if n > 0 {
		o.targets = topTargets(o.rho, s.targets)
		o.w = targetWeights(o.rho, o.targets)
		if priced {
			for t := range o.w {
				o.w[t] = math.Pow(o.w[t], budgetDemandPower)
			}
		}
		power := s.power
		if top != nil {
			power = max(power, trustedPower)
		}
		o.s, o.ld, o.base = kernelGains(p.Sims(), o.targets, o.w, s.center, power)
		if top != nil {
			o.trust(top)
			o.trusted = len(top)
		}
		// Outside the window a candidate covers nothing, itself included:
		// it is worth only the query terms, parts and hop it adds.
		for d, out := range o.outside {
			if out {
				clear(o.s[d*o.ld : d*o.ld+len(o.targets)])
				o.base[d] = 0
			}
		}
	}
	if waitLinks != nil {
		waitLinks()
		if o.links = links; o.links != nil {
			// One hop is worth hop query terms of average weight.
			o.hopW = o.kappa * s.hop / float64(max(1, o.queryTerms))
		}
	}
	o.reset()
	return o
}

// parallelLinks is the pool size from which the title links are found on
// another core, beside the query terms and the kernel. Below it the
// hand-off costs more than it saves: on the 2-core development machine
// the goroutine started 80-100 us after it was made (the idle core has
// to be woken), about what the links of 150 candidates take, so at
// N = 100 it ran only once the kernel was done and the query waited for it.
const parallelLinks = 256

// shownOrCopies marks the earlier pages' items (p.Preselected) and the
// candidates guard finds near-copies of them - never selected, so as good
// as shown; nil without earlier pages.
func shownOrCopies(p *selectors.Problem, guard *selectors.CopyGuard) []bool {
	if len(p.Preselected) == 0 {
		return nil
	}
	shown := make([]bool, len(p.Candidates))
	for _, d := range p.Preselected {
		shown[d] = true
	}
	for d := range shown {
		if !shown[d] && guard.CopyOf(nil, d) {
			shown[d] = true
		}
	}
	return shown
}

// release returns the objective's pooled memory; o is not used afterwards.
func (o *objective) release() {
	if o.linkBuffers != nil {
		o.links = nil
		o.linkBuffers.release()
		o.linkBuffers = nil
	}
}

// reset empties the selection state.
func (o *objective) reset() {
	o.cur = make([]float32, len(o.targets))
	o.covered = make([]float64, len(o.qw))
	o.parts.reset()
	if o.links != nil {
		o.hopOn = make([]bool, o.n)
	}
}

// kbar is the number of items the constraints admit on average: B over the
// mean token cost (at least 1) under a budget, capped by maxResults; else
// maxResults (K, which defaults to N).
func kbar(p *selectors.Problem) float64 {
	k := float64(p.K())
	if p.Budget <= 0 || len(p.Candidates) == 0 {
		return k
	}
	var lbar float64
	for _, c := range p.Candidates {
		lbar += float64(c.Tokens)
	}
	lbar /= float64(len(p.Candidates))
	return min(k, max(1, float64(p.Budget)/lbar))
}

// denseRelevance min-max scales the relevance over the pool to [0, 1]; a
// pool of equal relevances is all 1 (nothing to tell them apart by).
func denseRelevance(c []selectors.Candidate) []float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range c {
		lo, hi = min(lo, x.Relevance), max(hi, x.Relevance)
	}
	out := make([]float64, len(c))
	for i, x := range c {
		out[i] = 1
		if hi > lo {
			out[i] = (x.Relevance - lo) / (hi - lo)
		}
	}
	return out
}

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

// topTargets returns the indices of the limit candidates of largest
// weight, ascending (ties to the lower index), or every candidate when
// limit is 0 or not below the pool.
func topTargets(rho []float64, limit int) []int {
	n := len(rho)
	if limit <= 0 || limit >= n {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	// The limit-th largest weight from the sorted weights (a sort of plain
	// floats, without a comparison function); the targets are the
	// candidates above it and, in index order, as many of those equal to it
	// as there is room for.
	sorted := slices.Clone(rho)
	slices.Sort(sorted)
	least := sorted[n-limit]
	if math.IsNaN(least) {
		return topTargetsSorted(rho, limit)
	}
	ties := limit - (n - sort.Search(n, func(i int) bool { return sorted[i] > least }))
	idx := make([]int, 0, limit)
	for i, r := range rho {
		if r > least || (r == least && ties > 0) {
			if r == least {
				ties--
			}
			idx = append(idx, i)
		}
	}
	return idx
}

// topTargetsSorted is topTargets by sorting the candidates (for weights
// that are not numbers).
func topTargetsSorted(rho []float64, limit int) []int {
	idx := make([]int, len(rho))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		if c := cmp.Compare(rho[b], rho[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	idx = idx[:limit]
	slices.Sort(idx)
	return idx
}

// targetWeights returns each target's weight in the facility-location
// term, its relevance. (Adding to a target the relevance of the non-targets
// most like it was measured and dropped: no better on HotpotQA, Perspectrum
// or PIR with targets below the pool size, docs/performance.md.)
func targetWeights(rho []float64, targets []int) []float64 {
	w := make([]float64, len(targets))
	for t, u := range targets {
		w[t] = rho[u]
	}
	return w
}

// gain is F(S+d) - F(S) for the current state.
func (o *objective) gain(d int) float64 {
	var g float64
	row := o.s[d*o.ld : d*o.ld+len(o.targets)]
	cur, w := o.cur[:len(row)], o.w[:len(row)]
	for t, k := range row {
		if c := cur[t]; k > c {
			g += w[t] * (float64(k) - float64(c))
		}
	}
	return o.gainBeyond(d, g)
}

// firstGain is gain on the empty selection (before the first add), from
// the facility-location part kernelGains summed.
func (o *objective) firstGain(d int) float64 { return o.gainBeyond(d, o.base[d]) }

// gainBeyond adds to g, d's gain in the facility-location term, its gains
// in the other terms.
func (o *objective) gainBeyond(d int, g float64) float64 {
	gd := o.gateOf(d)
	if o.qw != nil {
		for _, t := range o.terms[d] {
			if c := o.covered[t]; gd > c {
				g += o.qw[t] * (gd - c)
			}
		}
	}
	if o.hopOn != nil && o.hopOn[d] {
		g += o.hopW
	}
	return g + o.parts.gain(d, gd)
}

// gateOf is d's share of the query-term and part credit.
func (o *objective) gateOf(d int) float64 {
	if o.gate == nil {
		return 1
	}
	return o.gate[d]
}

// add puts d into the selection state.
func (o *objective) add(d int) {
	cur := o.cur
	for t, k := range o.s[d*o.ld : d*o.ld+len(o.targets)] {
		if k > cur[t] {
			cur[t] = k
		}
	}
	gd := o.gateOf(d)
	if o.qw != nil {
		for _, t := range o.terms[d] {
			o.covered[t] = max(o.covered[t], gd)
		}
	}
	o.parts.add(d, gd)
	if o.hopOn != nil {
		o.hopOn[d] = false // its demand is met
		for _, u := range o.links[d] {
			o.hopOn[u] = true
		}
	}
}
