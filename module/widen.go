package diverseselect

import (
	"context"
	"errors"
	"sync"

	"github.com/weaviate/weaviate/entities/search"

	"github.com/diverse-select/diverse-select/selectors"
)

// Widening (widenTo). A fixed pool of a redundant corpus can be all copies
// of a few chunks: the selection keeps one of each and leaves the budget
// unused. With widenTo set, a selection that spent its pool on near-copies
// with room left (selectors.SpentOnCopies) asks for a wider pool; the
// "widen" glue in Weaviate's explorer, which ran the search with a Widening
// in its context, then runs it once more with widenTo candidates, and the
// selection on that pool is the answer. The module only asks; the search
// stays Weaviate's.

// errWidening ends the first run of a search whose selection asked for a
// wider pool: the hooks after the selection (generate, which may call an
// LLM) do not run on the pool that is about to be replaced, and the glue
// runs the search again. It never reaches a client.
var errWidening = errors.New("the pool is spent on near-copies: widening it (widenTo)")

// Widening is one search's widening state, shared by the glue and the
// result hooks of its runs.
type Widening struct {
	mu      sync.Mutex
	limit   int  // asked for: the wider pool
	from    int  // the pool the first selection had
	widened bool // the second run
}

type wideningKey struct{}

// NewWidening returns ctx carrying a fresh Widening, or nil when ctx
// carries one already (the glue's own runs of the search).
func NewWidening(ctx context.Context) (context.Context, *Widening) {
	if wideningFrom(ctx) != nil {
		return ctx, nil
	}
	w := &Widening{}
	return context.WithValue(ctx, wideningKey{}, w), w
}

func wideningFrom(ctx context.Context) *Widening {
	w, _ := ctx.Value(wideningKey{}).(*Widening)
	return w
}

// Asked returns the wider pool a selection asked for.
func (w *Widening) Asked() (int, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.limit, w.limit > 0 && !w.widened
}

// StartWidened marks the run with the wider pool: it does not ask again.
func (w *Widening) StartWidened() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.widened = true
}

// widenedFrom is the first pool's size in the widened run, else 0.
func (w *Widening) widenedFrom() int {
	if w == nil {
		return 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.widened {
		return 0
	}
	return w.from
}

// maybeWiden asks for the wider pool, and reports whether it did, when the
// plan allows it and the selection res spent the full pool in on
// near-copies with room left.
func (m *Module) maybeWiden(ctx context.Context, p *plan, in []search.Result, prob *selectors.Problem, res *selectors.Result) bool {
	w := wideningFrom(ctx)
	if w == nil || p.eff.WidenTo <= len(in) || (p.pool > 0 && len(in) < p.pool) {
		return false // no glue, not asked, or the search found no more than this
	}
	if _, asked := w.Asked(); asked || w.widenedFrom() > 0 {
		return false
	}
	if len(res.Items) >= prob.K() {
		return false // full: nothing to widen for (the cheap test first)
	}
	// The near-copy test reads the texts, which a strategy that does not
	// read them was not given.
	text := &lazyText{names: p.textProps, features: m.featureSource(p, nil)}
	for i := range in {
		if prob.Candidates[i].Text == "" {
			text.reset(&in[i])
			prob.Candidates[i].Text = text.get()
		}
	}
	if !selectors.SpentOnCopies(prob, res) {
		return false
	}
	w.mu.Lock()
	w.limit, w.from = p.eff.WidenTo, len(in)
	w.mu.Unlock()
	return true
}
