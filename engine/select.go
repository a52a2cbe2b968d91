package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/sirupsen/logrus"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/search"

	"github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/evidence"
	"github.com/diverse-select/diverse-select/simcache"
)

// candidatePool is one pool as the selection reads it: the candidates
// within the plan's threshold, with what the pool's search deferred read by
// id or taken from the feature cache.
type candidatePool struct {
	in       []search.Result
	entries  []*simcache.Features // the candidates' cache entries (nil: not deferred)
	uncached int                  // deferred candidates read by id for their text
}

// readPool applies the plan's threshold and the candidate cap to a pool the
// search returned, and reads what its search deferred and the feature cache
// does not hold (deferred.go).
func (e *Engine) readPool(ctx context.Context, p *plan, in []search.Result) (*candidatePool, error) {
	in = p.threshold.filter(in)
	if len(in) > e.defaults.MaxCandidates {
		return nil, candidateCapError(len(in), e.defaults.MaxCandidates)
	}
	out := &candidatePool{in: in}
	if p.deferred != nil {
		var err error
		if out.in, out.entries, out.uncached, err = e.loadUncached(ctx, p, in); err != nil {
			return nil, errors.Join(e.stopped(ctx, p, len(in), "reading the candidates"), err)
		}
	}
	return out, nil
}

// poolSelection is one selection over a pool: the selection and what its
// explanation needs. release frees its share of the in-flight bound.
type poolSelection struct {
	*candidatePool
	page    *selectors.Page
	problem *selectors.Problem
	source  relevanceSource
	cards   []evidence.Card
	widen   bool
	start   time.Time
	release func()
	widened int // the pool the first selection spent on near-copies (0: not widened)
}

// selectPool selects from a pool: it builds the problem and runs the
// strategy under the in-flight bound (the caller holds the time cap). widen
// is set when the selection asks for a wider pool (widenedFrom 0 only).
func (e *Engine) selectPool(ctx context.Context, p *plan, pool *candidatePool, widenedFrom int) (_ *poolSelection, err error) {
	s := &poolSelection{candidatePool: pool, release: func() {}, widened: widenedFrom}
	if len(s.in) == 0 {
		return s, nil
	}
	release, err := e.inflight.acquire(ctx, e.selectionBytes(p, s.in, s.entries), len(s.in))
	if err != nil {
		return nil, err
	}
	s.release = release
	defer func() {
		if err != nil {
			release()
		}
	}()
	s.start = time.Now()
	if s.problem, s.source, s.cards, err = e.buildProblem(ctx, p, s.in, s.entries); err != nil {
		return nil, err
	}
	if sims, ok := s.problem.Similarities.(interface{ Release() }); ok {
		defer sims.Release() // the output keeps nothing of the similarity engine
	}
	if s.page, err = e.runSelection(ctx, p, s.problem); err != nil {
		return nil, err
	}
	if err := budgetTooSmall(p, s.problem, s.page); err != nil {
		return nil, err
	}
	s.widen = widenedFrom == 0 && e.spentOnCopies(p, s.in, s.problem, s.page.Result)
	return s, nil
}

// budgetTooSmall refuses a first page that came back empty from a pool with
// candidates because not one of them fits the token budget: an empty answer
// would read as "nothing found" when the budget is the cause (a newcomer's
// tokenBudget of 60 over chunks of 70 tokens and more). Later pages stay
// empty without an error: there the earlier pages spent the pool. Widening
// cannot help (a wider pool holds chunks of the same sizes), so this comes
// before it.
func budgetTooSmall(p *plan, prob *selectors.Problem, page *selectors.Page) error {
	if p.offset > 0 || prob.Budget <= 0 || len(prob.Candidates) == 0 || len(page.Items) > 0 {
		return nil
	}
	smallest := prob.Candidates[0].Tokens
	for _, c := range prob.Candidates[1:] {
		smallest = min(smallest, c.Tokens)
	}
	if smallest <= prob.Budget {
		return nil // something fits: the strategy chose to stop (cliff, a threshold of its own)
	}
	return &config.Error{Key: config.KeyTokenBudget, Msg: fmt.Sprintf("is %d, below every candidate: the smallest "+
		"of the %d candidates holds %d tokens, so none fits and the selection would be empty; raise tokenBudget to at "+
		"least %d (in the query's settings or the collection's moduleConfig), or segment the texts into smaller "+
		"chunks before import (docs/segmentation.md)", prob.Budget, len(prob.Candidates), smallest, smallest)}
}

// selectionBytes estimates what selecting from in holds beyond the results
// Weaviate already has: the candidates' texts and their analysis (problemTextBytes), the packed vectors (when the strategy or the dedup
// pass compares vectors; every vector of a multi-vector) and the strategy's
// N x N matrices (unless the matrix cap refuses them before they are
// allocated). entries are the candidates' feature cache entries when looked
// up (a deferred vector's length is read there).
func (e *Engine) selectionBytes(p *plan, in []search.Result, entries []*simcache.Features) int64 {
	n := len(in)
	var need int64
	if mb, limit := p.eff.Selector.MatrixBytes(n), e.defaults.MaxMatrixBytes(); limit == 0 || mb <= limit {
		need += mb
	}
	need += problemTextBytes(p, in, entries)
	if p.needsVectors() && p.multiVector {
		need += multiVectorBytes(p, in)
	} else if p.needsVectors() {
		var first *simcache.Features
		if len(entries) > 0 {
			first = entries[0]
		}
		if v, err := vectorOf(in[0], p.target, first); err == nil {
			need += simcache.PackedBytes(n, len(v))
		}
	}
	return need
}

// textOverhead is what building the problem holds per byte of a candidate's
// text: the joined text, its terms and, on a feature cache miss, the cached
// copy and the sentence analysis of evidence cards.
const textOverhead = 3

// problemTextBytes estimates what building the problem holds for the
// candidates' texts: textOverhead times their length, from the properties
// the search loaded or else the feature cache entry.
func problemTextBytes(p *plan, in []search.Result, entries []*simcache.Features) int64 {
	var n int64
	for i := range in {
		props, _ := in[i].Schema.(map[string]any)
		loaded := false
		for _, name := range p.textProps {
			if v, ok := props[name]; ok {
				n += textLength(v)
				loaded = true
			}
		}
		if !loaded && i < len(entries) && entries[i] != nil {
			n += int64(len(entries[i].Text))
		}
	}
	return textOverhead * n
}

func textLength(v any) int64 {
	switch x := v.(type) {
	case string:
		return int64(len(x))
	case []string:
		var n int64
		for _, s := range x {
			n += int64(len(s))
		}
		return n
	case []any:
		var n int64
		for _, e := range x {
			n += textLength(e)
		}
		return n
	}
	return 0
}

// runSelection runs the strategy under ctx (capTime's); the strategies
// check the context in their loops. A cancelled selection is logged, so the
// stop is observable.
func (e *Engine) runSelection(ctx context.Context, p *plan, prob *selectors.Problem) (*selectors.Page, error) {
	res, err := p.eff.Selector.RunPage(ctx, prob, p.offset, p.paged)
	if err == nil {
		return res, nil
	}
	if pe := (*selectors.PanicError)(nil); errors.As(err, &pe) {
		return nil, PanicError(e.logger, fmt.Sprintf("strategy %q", pe.Strategy), pe.Value, pe.Stack)
	}
	if ctx.Err() == nil {
		return nil, strategyError(err)
	}
	capHit := errors.Is(context.Cause(ctx), errTimeCap) // the cap fired, not the client
	e.logger.WithFields(map[string]any{
		"class": p.className, "strategy": p.eff.Strategy, "candidates": len(prob.Candidates),
		"reason": ctx.Err().Error(), "timeCap": capHit,
	}).Warn("diverse-select: selection cancelled")
	if capHit {
		return nil, e.stopped(ctx, p, len(prob.Candidates), "selecting")
	}
	return nil, fmt.Errorf("selection cancelled: %w", errors.Join(ctx.Err(), err))
}

// Widening (widenTo). A fixed pool of a redundant corpus can be all copies
// of a few chunks: the selection keeps one of each and leaves the budget
// unused. With widenTo set, a selection that spent its pool on near-copies
// with room left (selectors.SpentOnCopies) asks the stage for a wider pool;
// runStage searches once more with widenTo candidates, and the selection on
// that pool is the answer. The module only asks; the search stays Weaviate's.

// spentOnCopies reports whether the plan widens and the selection res spent
// the full pool in on near-copies with room left.
func (e *Engine) spentOnCopies(p *plan, in []search.Result, prob *selectors.Problem, res *selectors.Result) bool {
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

// selectedObjects returns the selected objects of s, in the requested order,
// each with its explanation in _additional.diverseSelect; objects whose
// properties the pool's search deferred are read whole by id first (and
// cut to what the query loads), and one deleted since the search is left
// out.
func (e *Engine) selectedObjects(ctx context.Context, p *plan, s *poolSelection) ([]search.Result, error) {
	if s.page == nil {
		return nil, nil // an empty pool
	}
	res := s.page.Result
	if s.widened > 0 {
		res.Stats["widenedFrom"] = float64(s.widened)
	}
	var exhausted *bool // only computed when the query pages
	if p.paged {
		exhausted = &s.page.Exhausted
	}
	var beta *float64
	if b, ok := res.Stats["beta"]; ok {
		beta = &b
	}
	stats := statsList(res.Stats)
	var gone map[int]bool // selected objects deleted since the search
	if p.deferred != nil {
		selected := make([]int, len(res.Items))
		for k, it := range res.Items {
			selected[k] = it.Index
		}
		var read int
		var err error
		if gone, read, err = e.loadSelected(ctx, p, s.in, selected); err != nil {
			return nil, errors.Join(e.stopped(ctx, p, len(s.in), "reading the selected objects"), err)
		}
		e.metrics.deferredSelection(s.uncached, read, countCachedVectors(p, s.in, s.entries))
	}
	out := make([]search.Result, 0, len(res.Items))
	for _, it := range res.Items {
		if gone[it.Index] {
			continue
		}
		o := s.in[it.Index]
		o.Schema = p.cut(o.Schema) // what the query gets without the module
		var card any               // null without cards, and for an object without text
		if s.cards != nil && s.cards[it.Index].Text != "" {
			card = s.cards[it.Index].Text
			o.Schema = withCard(o.Schema, p.textProps, s.cards[it.Index].Text)
		}
		ap := make(models.AdditionalProperties, len(o.AdditionalProperties)+2) // + the explanation and a rerank score
		for key, v := range o.AdditionalProperties {
			ap[key] = v
		}
		ap[ArgName] = map[string]any{
			"rank":            it.Rank,
			"gain":            finite(it.Gain),
			"relevance":       finite(it.Relevance),
			"relevanceSource": s.source.String(),
			"redundancy":      finite(it.Redundancy),
			"tokens":          it.Tokens,
			"evidence":        card,
			"strategy":        res.Strategy,
			"objective":       finite(res.Objective),
			"tokensUsed":      res.TokensUsed,
			"budget":          res.Budget,
			"stopReason":      string(res.Stop),
			"tokensLeft":      res.TokensLeft(),
			"candidates":      len(s.in),
			"selected":        len(res.Items),
			"removed":         res.Removed,
			"beta":            beta,
			"stats":           stats,
			"offset":          s.page.Shown,
			"exhausted":       exhausted,
		}
		o.AdditionalProperties = ap
		out = append(out, o)
	}
	e.observeSelection(p, len(s.in), res, time.Since(s.start))
	return out, nil
}

// cut cuts a selected object to what the query loads (loads, noProps):
// whatever the pool's search or a read by id loaded for the selection.
func (p *plan) cut(schema any) any {
	props, ok := schema.(map[string]any)
	if !ok || (len(p.loads) == 0 && !p.noProps) {
		return schema
	}
	out := make(map[string]any, len(p.loads)+2)
	for _, name := range p.loads {
		if v, ok := props[name]; ok {
			out[name] = v
		}
	}
	for _, name := range []string{"id", "_additional"} {
		if v, ok := props[name]; ok {
			out[name] = v
		}
	}
	return out
}

// statsList turns a strategy's calibrated parameters into GraphQL values,
// sorted by name.
func statsList(m map[string]float64) []map[string]any {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	out := make([]map[string]any, len(names))
	for i, k := range names {
		out[i] = map[string]any{"name": k, "value": finite(m[k])}
	}
	return out
}

func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return x
}

// observeSelection is the one place a successful selection is reported: the
// metrics, the debug line per selection, and a warning when the strategy
// fell back (the best single item replaced its greedy set).
// The log fields are built only when a line is written: at the usual info
// level a selection costs no map or entry here.
func (e *Engine) observeSelection(p *plan, candidates int, res *selectors.Result, took time.Duration) {
	e.metrics.selection(res.Strategy, p.routeLabel, candidates, res, took)
	fields := func() logrus.Fields {
		return logrus.Fields{
			"class": p.className, "strategy": res.Strategy, "route": p.routeLabel, "candidates": candidates,
			"selected": len(res.Items), "removed": res.Removed, "tokensUsed": res.TokensUsed, "budget": res.Budget,
			"stopReason": res.Stop,
			"durationMs": float64(took.Microseconds()) / 1000,
		}
	}
	if levelEnabled(e.logger, logrus.DebugLevel) {
		e.logger.WithFields(fields()).Debug("diverse-select: selection")
	}
	if res.Stats["singleGuard"] == 1 {
		e.metrics.degradedPath("single_guard")
		e.logger.WithFields(fields()).Warn("diverse-select: the strategy fell back to the best single item, " +
			"which alone beats its greedy selection: the budget fits few candidates")
	}
}

// levelEnabled reports whether logger writes lines of level (true when it
// cannot tell).
func levelEnabled(logger logrus.FieldLogger, level logrus.Level) bool {
	switch l := logger.(type) {
	case *logrus.Entry:
		return l.Logger.IsLevelEnabled(level)
	case *logrus.Logger:
		return l.IsLevelEnabled(level)
	}
	return true
}
