package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/weaviate/weaviate/entities/search"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/evidence"
	"github.com/diverse-select/diverse-select/simcache"
)

// pickProperties copies the named properties of one object (absent ones
// are null).
func pickProperties(props map[string]any, names []string) map[string]any {
	out := make(map[string]any, len(names))
	for _, n := range names {
		out[n] = props[n]
	}
	return out
}

// buildProblem turns the candidate list into a selection problem, and tells
// where the candidates' relevance came from; with evidence cards it returns
// every candidate's card (see applyCards). entries are the candidates'
// feature cache entries when already looked up (nil: look them up).
func (e *Engine) buildProblem(ctx context.Context, p *plan, in []search.Result, entries []*simcache.Features) (*selectors.Problem, relevanceSource, []evidence.Card, error) {
	counter, err := e.Counter(p.eff.Tokenizer)
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
			if x := text.cached; x != nil && x.HasText && x.Text == c.Text {
				c.WordPairs, c.SingleLine = x.WordPairs, x.SingleLine // the text's, computed when it was cached
			}
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
		// The SIMD engine, its buffers pooled across queries. Vectors of
		// another dimension leave none: the problem's validation refuses
		// them, naming the candidate, as it refuses non-finite ones.
		vecs := make([][]float32, len(prob.Candidates))
		for i := range prob.Candidates {
			vecs[i] = prob.Candidates[i].Vector
		}
		if sims, err := simcache.New(vecs); err == nil {
			prob.Similarities = sims
		}
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

func tokenCount(props map[string]any, name string) int {
	if name == "" {
		return 0
	}
	n, ok := selectors.AsNumber(props[name])
	if !ok || n < 1 || n > 1<<30 {
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
