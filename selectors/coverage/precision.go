package coverage

import (
	"cmp"
	"slices"

	"github.com/diverse-select/diverse-select/selectors"
)

// Precision options (issue 29, docs/quality.md "Precision"): in a pool
// wider than the query's topic - other topics' chunks, each a cluster
// that covers itself - the facility-location term lets covering an
// off-topic cluster earn about as much as one more chunk on the query,
// and the density greedy spends the end of the budget on it. Both options
// act only under a budget that admits at most a quarter of the pool
// (tightBudget): when more fits, most of what is relevant fits anyway.
//
//   - window: a candidate outside the most relevant ones whose tokens add
//     up to window budgets, and below windowFloor of the best relevance,
//     covers nothing (its kernel row is zero) and the fill leaves it: it is
//     selected only for the query terms, parts or second hop it adds - a
//     bridge paragraph linked to a selected chunk still is. With window 1
//     the tokens on other questions' paragraphs fall below top-k's on the
//     mixed pools of HotpotQA, MuSiQue and 2Wiki, both encoders; it is off
//     by default because it costs one MuSiQue question at B = 450 and 600
//     (USE-Lite answer in context), under the CI floors.
//   - cliff: the targets past the largest drop of the relevance curve
//     (SAGE's score cliff) have demand relevance^4, as demandPower's
//     budget rule gives every target.

// DefaultWindowFloor is windowFloor's default: chosen from {0.45, 0.5,
// 0.55, 0.6, 0.65} on the tuning halves with both encoders (0.45 lets
// HotpotQA's other-question tokens above top-k's at B = 600; 0.6 and up
// lose recall on the question's own pools).
const DefaultWindowFloor = 0.55

// tightBudget reports whether the constraint is a token budget that admits
// at most a quarter of the pool (kbar <= N/4).
func tightBudget(kbar float64, p *selectors.Problem) bool {
	return p.Budget > 0 && kbar <= float64(len(p.Candidates))/4
}

// outsideWindow marks the candidates after the most relevant ones whose
// tokens add up to limit (the window holds the one that reaches it) whose
// relevance is below floor times the pool's best; nil when none is.
func outsideWindow(rho []float64, c []selectors.Candidate, limit, floor float64) []bool {
	order := byRho(rho)
	var out []bool
	sum := 0.0
	for _, d := range order {
		if sum >= limit && rho[d] < floor*rho[order[0]] {
			if out == nil {
				out = make([]bool, len(rho))
			}
			out[d] = true
		}
		sum += float64(c[d].Tokens)
	}
	return out
}

// pastCliff marks the candidates after the largest drop between
// neighbours of the relevance-sorted pool (SAGE's score cliff, on the
// hybrid relevance), when that drop is at least gap; nil otherwise.
func pastCliff(rho []float64, gap float64) []bool {
	order := byRho(rho)
	at, best := 0, 0.0
	for i := 1; i < len(order); i++ {
		if g := rho[order[i-1]] - rho[order[i]]; g > best {
			at, best = i, g
		}
	}
	if at == 0 || best < gap {
		return nil
	}
	out := make([]bool, len(rho))
	for _, d := range order[at:] {
		out[d] = true
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
