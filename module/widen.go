package diverseselect

import (
	"github.com/weaviate/weaviate/entities/search"

	"github.com/diverse-select/diverse-select/selectors"
)

// Widening (widenTo). A fixed pool of a redundant corpus can be all copies
// of a few chunks: the selection keeps one of each and leaves the budget
// unused. With widenTo set, a selection that spent its pool on near-copies
// with room left (selectors.SpentOnCopies) asks the stage for a wider pool;
// runStage searches once more with widenTo candidates, and the selection on
// that pool is the answer. The module only asks; the search stays Weaviate's.

// spentOnCopies reports whether the plan widens and the selection res spent
// the full pool in on near-copies with room left.
func (e *engine) spentOnCopies(p *plan, in []search.Result, prob *selectors.Problem, res *selectors.Result) bool {
	if p.eff.WidenTo <= len(in) || (p.poolSize > 0 && len(in) < p.poolSize) {
		return false // not asked, or the search found no more than this
	}
	if len(res.Items) >= prob.K() {
		return false // full: nothing to widen for (the cheap test first)
	}
	// The near-copy test reads the texts, which a strategy that does not
	// read them was not given.
	text := &lazyText{names: p.textProps, features: e.featureSource(p, nil)}
	for i := range in {
		if prob.Candidates[i].Text == "" {
			text.reset(&in[i])
			prob.Candidates[i].Text = text.get()
		}
	}
	return selectors.SpentOnCopies(prob, res)
}
