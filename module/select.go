package diverseselect

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/search"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/evidence"
	"github.com/diverse-select/diverse-select/simcache"
)

// pool is one pool as the selection reads it: the candidates
// within the plan's threshold, with what the pool's search deferred read by
// id or taken from the feature cache.
type pool struct {
	in       []search.Result
	entries  []*simcache.Features // the candidates' cache entries (nil: not deferred)
	uncached int                  // deferred candidates read by id for their text
}

// readPool applies the plan's threshold and the candidate cap to a pool the
// search returned, and reads what its search deferred and the feature cache
// does not hold (deferred.go).
func (e *engine) readPool(ctx context.Context, p *plan, in []search.Result) (*pool, error) {
	in = p.threshold.filter(in)
	if len(in) > e.defaults.MaxCandidates {
		return nil, candidateCapError(len(in), e.defaults.MaxCandidates)
	}
	out := &pool{in: in}
	if p.deferred != nil {
		var err error
		if out.in, out.entries, out.uncached, err = e.loadUncached(ctx, p, in); err != nil {
			return nil, errors.Join(e.stopped(ctx, p, len(in), "reading the candidates"), err)
		}
	}
	return out, nil
}

// selection is one selection over a pool: the selection and what its
// explanation needs. release frees its share of the in-flight bound.
type selection struct {
	*pool
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
func (e *engine) selectPool(ctx context.Context, p *plan, pool *pool, widenedFrom int) (_ *selection, err error) {
	s := &selection{pool: pool, release: func() {}, widened: widenedFrom}
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
	if s.problem, s.source, s.cards, err = e.problem(ctx, p, s.in, s.entries); err != nil {
		return nil, err
	}
	if sims, ok := s.problem.Similarities.(interface{ Release() }); ok {
		defer sims.Release() // the output keeps nothing of the similarity engine
	}
	if s.page, err = e.runSelection(ctx, p, s.problem); err != nil {
		return nil, err
	}
	s.widen = widenedFrom == 0 && e.spentOnCopies(p, s.in, s.problem, s.page.Result)
	return s, nil
}

// selectedObjects returns the selected objects of s, in the requested order,
// each with its explanation in _additional.diverseSelect; objects whose
// properties the pool's search deferred are read whole by id first (and
// cut to what the query loads), and one deleted since the search is left
// out.
func (e *engine) selectedObjects(ctx context.Context, q *query, s *selection) ([]search.Result, error) {
	if s.page == nil {
		return nil, nil // an empty pool
	}
	p := q.plan
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
		e.metrics.deferredSelection(s.uncached, read, cachedVectors(p, s.in, s.entries))
	}
	out := make([]search.Result, 0, len(res.Items))
	for _, it := range res.Items {
		if gone[it.Index] {
			continue
		}
		o := s.in[it.Index]
		o.Schema = q.cut(o.Schema) // what the query gets without the module
		var card any               // null without cards, and for an object without text
		if s.cards != nil && s.cards[it.Index].Text != "" {
			card = s.cards[it.Index].Text
			o.Schema = withCard(o.Schema, p.textProps, s.cards[it.Index].Text)
		}
		ap := models.AdditionalProperties{}
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

func candidateCapError(n, limit int) error {
	return &markedError{mark: errCapExceeded, err: fmt.Errorf("%d candidates exceed the module's cap of %d "+
		"(DIVERSE_SELECT_MAX_CANDIDATES); lower candidates, or with _additional { diverseSelect } the query limit, "+
		"which is the pool there", n, limit)}
}

// problem turns the candidate list into a selection problem, and tells
// where the candidates' relevance came from; with evidence cards it returns
// every candidate's card (see applyCards). entries are the candidates'
// feature cache entries when already looked up (nil: look them up).
func (e *engine) problem(ctx context.Context, p *plan, in []search.Result, entries []*simcache.Features) (*selectors.Problem, relevanceSource, []evidence.Card, error) {
	counter, err := e.counter(p.eff.Tokenizer)
	if err != nil {
		return nil, 0, nil, err
	}
	needVectors := p.needsVectors()
	prob := &selectors.Problem{
		Candidates:     make([]selectors.Candidate, len(in)),
		Budget:         p.eff.TokenBudget,
		MaxResults:     p.eff.MaxResults,
		Query:          p.queryText,
		Order:          p.eff.Order,
		DedupThreshold: p.eff.DedupThreshold,
		MaxMatrixBytes: e.defaults.MaxMatrixBytes(),
	}
	if p.maxOut > 0 && (prob.MaxResults == 0 || p.maxOut < prob.MaxResults) {
		prob.MaxResults = p.maxOut
	}
	propNames := propertyParams(p.eff)
	relevance, source := relevances(p, in)
	features := e.featureSource(p, counter)
	text := &lazyText{names: p.textProps, features: features}
	for i := range in {
		if i%checkEvery == 0 {
			if err := e.stopped(ctx, p, len(in), "building the problem"); err != nil {
				return nil, 0, nil, err
			}
		}
		res := &in[i]
		props, _ := res.Schema.(map[string]any)
		if entries != nil {
			text.resetWith(res, entries[i])
		} else {
			text.reset(res)
		}
		c := selectors.Candidate{ID: res.ID.String(), Relevance: relevance[i]}
		if needVectors && !p.multiVector {
			v, err := vectorOf(*res, p.target, text.cached)
			if err != nil {
				return nil, 0, nil, err
			}
			c.Vector = v
		}
		c.Tokens = tokenCount(props, p.eff.TokenProperty)
		var n int
		n, c.Terms, c.TermHashes = features.loadOrStore(text, c.Tokens == 0, c.Vector)
		if c.Tokens == 0 {
			c.Tokens = n
		}
		if p.eff.Selector.Def.NeedsText {
			c.Text = text.get() // for other strategies the text matters only to count tokens on a cache miss
		}
		if p.readsSources() {
			c.Source = fmt.Sprint(valueOr(props[p.eff.SourceProperty], ""))
		}
		if len(propNames) > 0 {
			c.Properties = pickProperties(props, propNames)
		}
		prob.Candidates[i] = c
	}
	if needVectors && p.multiVector {
		if err := e.setMultiVectors(p, in, prob); err != nil {
			return nil, 0, nil, err
		}
	} else if needVectors {
		// The SIMD engine, its buffers pooled across queries; mismatched or
		// non-finite vectors are still refused by the problem's validation.
		vecs := make([][]float32, len(prob.Candidates))
		for i := range prob.Candidates {
			vecs[i] = prob.Candidates[i].Vector
		}
		prob.Similarities = simcache.New(vecs)
	}
	cards, err := applyCards(ctx, p, prob, in, features, text)
	if err != nil {
		return nil, 0, nil, errors.Join(e.stopped(ctx, p, len(in), "making evidence cards"), err)
	}
	return prob, source, cards, nil
}

// vectorOf is the vector of res the strategy compares (target: a named
// vector, "" the legacy one), as the search loaded it or else from its
// feature cache entry (nil: none). Its errors are marked
// selectors.ErrInvalidProblem: the candidates cannot be selected from
// (invalid_data in the error metrics).
func vectorOf(res search.Result, target string, cached *simcache.Features) ([]float32, error) {
	if cached != nil && cached.Vector != nil && !hasVector(res, target) {
		return cached.Vector, nil
	}
	if target == "" {
		if len(res.Vector) == 0 {
			return nil, invalidData("object %s has no vector; the strategy compares vectors "+
				"(use a class with vectors, or a text strategy such as topk, cliff, knapsack or ngram)", res.ID)
		}
		return res.Vector, nil
	}
	switch v := res.Vectors[target].(type) {
	case []float32:
		if len(v) > 0 {
			return v, nil
		}
	case [][]float32:
		return nil, invalidData("vector %q of object %s is a multi-vector, but the class declares a single vector", target, res.ID)
	}
	return nil, invalidData("object %s has no vector %q; the strategy compares vectors", res.ID, target)
}

func invalidData(format string, args ...any) error {
	return &markedError{mark: selectors.ErrInvalidProblem, err: fmt.Errorf(format, args...)}
}

func tokenCount(props map[string]any, name string) int {
	if name == "" {
		return 0
	}
	var n float64
	switch v := props[name].(type) {
	case float64:
		n = v
	case int64:
		n = float64(v)
	case int:
		n = float64(v)
	}
	if n < 1 || math.IsNaN(n) || n > 1<<30 {
		return 0 // missing or unusable: count the text instead
	}
	return int(n)
}

// lazyText is one candidate's text and its feature cache entry (looked up
// once): the text is joined from its text properties only when something
// needs it - with its token count (and terms) cached, a strategy that reads
// no text never builds it - and taken from the cache when the search
// deferred the properties (deferred.go).
type lazyText struct {
	names    []string
	features *featureSource
	props    map[string]any
	key      simcache.FeatureKey
	keyed    bool               // the cache applies to this candidate
	cached   *simcache.Features // its entry, nil = none
	b        strings.Builder
	s        string
	built    bool
}

func (t *lazyText) reset(res *search.Result) {
	t.resetWith(res, nil)
	if t.keyed {
		t.cached, _ = t.features.cache.Get(t.key)
	}
}

// resetWith is reset with the cache entry already looked up (nil: none).
func (t *lazyText) resetWith(res *search.Result, cached *simcache.Features) {
	t.props, _ = res.Schema.(map[string]any)
	t.built, t.cached = false, cached
	t.key, t.keyed = t.features.key(res)
}

func (t *lazyText) get() string {
	if t.built {
		return t.s
	}
	if t.cached != nil && t.cached.HasText && !hasAnyText(t.props, t.names) {
		t.s, t.built = t.cached.Text, true
		return t.s
	}
	t.b.Reset()
	for _, name := range t.names {
		appendText(&t.b, t.props[name])
	}
	t.s, t.built = t.b.String(), true
	return t.s
}

func appendText(b *strings.Builder, v any) {
	switch x := v.(type) {
	case string:
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(x)
	case []string:
		for _, s := range x {
			appendText(b, s)
		}
	case []any:
		for _, s := range x {
			appendText(b, s)
		}
	}
}

func valueOr(v any, def any) any {
	if v == nil {
		return def
	}
	return v
}

func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return x
}
