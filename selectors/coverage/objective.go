package coverage

import (
	"cmp"
	"math"
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
	// outsideTerms auto reads whether the dense ranking agrees with the
	// query's words (precision.go): from the dense relevance, not the mix
	// below, and only once a candidate is outside the window.
	auto := priced && s.outsideTerms == OutsideTermsAuto && lex != nil
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
		if o.outside != nil && (s.outsideTerms == OutsideTermsRelevance || auto && rankAgreement(denseRelevance(c), lex) >= wordsAgree) {
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
