package selectors

// StopReason says why a selection ended: what kept it from taking one more
// candidate. Run sets it on every Result; a strategy may set it itself
// when it knows better (Result.Stop), else Run reads it from the selection.
type StopReason string

// The stop reasons, checked in this order.
const (
	// StopMaxResults: the selection holds maxResults items.
	StopMaxResults StopReason = "maxResults"
	// StopPool: every candidate is selected (or shown on an earlier page).
	StopPool StopReason = "pool"
	// StopBudget: no candidate left fits in the tokens left.
	StopBudget StopReason = "budget"
	// StopPrice: a candidate left fits, but the strategy's own rule found
	// none worth its tokens (a price per token, no gain left, or only
	// near-copies of what is selected).
	StopPrice StopReason = "price"
)

// StopReasons lists every stop reason (documentation and metrics labels).
var StopReasons = []StopReason{StopMaxResults, StopPool, StopBudget, StopPrice}

// stopReason reads why the selection res of p ended, for a strategy that
// did not say: maxResults reached, nothing left, nothing left that fits,
// or else the strategy's own rule (price). O(N).
func stopReason(p *Problem, res *Result) StopReason {
	if len(res.Items) >= p.K() && p.K() < len(p.Candidates)-len(p.Preselected) {
		return StopMaxResults
	}
	taken := make([]bool, len(p.Candidates))
	used := 0
	for _, i := range p.Preselected {
		taken[i] = true
	}
	for _, it := range res.Items {
		taken[it.Index] = true
		used += p.Candidates[it.Index].Tokens
	}
	left, fits := false, false
	for i, c := range p.Candidates {
		if taken[i] {
			continue
		}
		left = true
		if p.Fits(used, c.Tokens) {
			fits = true
			break
		}
	}
	switch {
	case !left:
		return StopPool
	case !fits:
		return StopBudget
	}
	return StopPrice
}
