package coverage

import (
	"cmp"
	"slices"

	"github.com/diverse-select/diverse-select/selectors"
)

// The price of a token (issues 29 and 34, docs/quality.md "Precision"): in
// a pool wider than the query's topic - other topics' chunks, each a
// cluster that covers itself - demand in proportion to relevance lets
// covering an off-topic cluster earn about as much as one more chunk on
// the query, and a greedy that fills the budget spends its end on it.
// Unless fill is on, under a budget that admits at most a quarter of the
// pool (tightBudget: when more fits, most of what is relevant fits anyway),
// two rules read from the pool's own relevance curve decide what a chunk
// can pay for its tokens with:
//
//   - the demand: a target's demand is its relevance to budgetDemandPower,
//     so the most relevant targets dominate and an off-topic cluster that
//     covers itself earns little;
//   - the window: a candidate after the most relevant ones whose tokens add
//     up to windowBudgets budgets, and below windowFloor of the best
//     relevance, covers nothing (its kernel row is zero): it pays only with
//     the query terms, parts or second hop it adds - a bridge paragraph
//     linked by title to a selected chunk still does.
//
// The greedy stops when no candidate left gains anything: the selection
// may end under budget (Result.Stop "price").
//
// Pages (issue 42): on a later page the window counts only the candidates
// not shown yet - neither the earlier pages' items nor their near-copies,
// which the guard never selects, fill it or are marked - and its budget
// part admits only a candidate of relevance at least pageFloor of the
// pool's best. So a later page holds the most relevant unshown chunks, and
// it is empty (the page before it exhausted) only when no unshown candidate
// that is not a near-copy of a shown one and of relevance at least
// pageFloor of the best fits the budget, and none adds query terms, parts
// or a second hop. Without the exception the window was filled by what the
// first pages showed and their near-copies, every chunk left was outside
// it, and page 2 came back empty (stop "price") with most of the query's
// topic unshown. The first page, and so every selection without pages, is
// unchanged.
//
// The constants were chosen on the tuning halves of HotpotQA, MuSiQue and
// 2Wiki with two encoders (issues 29 and 34). budgetDemandPower: 4 cuts the
// tokens on other questions' paragraphs by a half to two thirds, 2 keeps
// more, 6 and 8 gain nothing more; applied to budgets up to half the pool
// it lost HotpotQA both-gold at B = 900, and without a budget (K alone)
// Perspectrum cluster coverage. windowFloor from {0.45, 0.5, 0.55, 0.6,
// 0.65}: 0.45 lets HotpotQA's other-question tokens above top-k's at
// B = 600, 0.6 and up lose recall on the question's own pools.
const (
	budgetDemandPower = 4.0
	windowBudgets     = 1.0
	windowFloor       = 0.55
	// pageFloor: make run's demo corpus (40 candidates a query from the
	// integration stack's hash vectors, budget 100, about one chunk a
	// page), paged until a page is empty, summed over its 5 queries: 0.2
	// leaves 12 groups of chunks on the query's topic unshown (a group: a
	// chunk and its near-copies) and shows 11 chunks of other topics in
	// 67 pages; 0.15 leaves 8 and shows 16, 0.25 leaves 17 and shows 6,
	// 0.3 leaves 22 and shows 4; 0 leaves 3 and shows 44 (nearly every
	// other topic's chunk in the pools). Before, the pages ended after 22
	// pages, leaving 46 and showing none.
	pageFloor = 0.2
)

// tightBudget reports whether the constraint is a token budget that admits
// at most a quarter of the pool (kbar <= N/4).
func tightBudget(kbar float64, p *selectors.Problem) bool {
	return p.Budget > 0 && kbar <= float64(len(p.Candidates))/4
}

// outsideWindow marks the candidates after the most relevant ones whose
// tokens add up to limit (the window holds the one that reaches it) whose
// relevance is below floor times the pool's best; nil when none is. The
// candidates shown on earlier pages (shown, nil on the first page) neither
// fill the window nor are marked, and on a later page the window's budget
// part holds only candidates at least pageFloor of the pool's best.
func outsideWindow(rho []float64, c []selectors.Candidate, limit, floor float64, shown []bool, pageFloor float64) []bool {
	order := byRho(rho)
	var out []bool
	sum := 0.0
	for _, d := range order {
		if shown != nil && shown[d] {
			continue
		}
		if (sum >= limit || (shown != nil && rho[d] < pageFloor*rho[order[0]])) && rho[d] < floor*rho[order[0]] {
			if out == nil {
				out = make([]bool, len(rho))
			}
			out[d] = true
		}
		sum += float64(c[d].Tokens)
	}
	return out
}

// byRho is the candidates by decreasing relevance (ties: pool order).
func byRho(rho []float64) []int {
	order := make([]int, len(rho))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(rho[b], rho[a]) })
	return order
}
