package engine

import (
	"context"
	"maps"

	"github.com/weaviate/weaviate/entities/search"

	"github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/evidence"
	"github.com/diverse-select/diverse-select/selectors/text"
	"github.com/diverse-select/diverse-select/simcache"
)

// Evidence cards (the evidence key): each candidate is compressed to its
// lead sentence and its best sentences for the query (selectors/evidence),
// and the selection prices it at its card's tokens, so the budget admits more
// distinct chunks. Relevance and redundancy stay the chunk's vector's; the
// text strategies read the card's terms and text. The selected objects are
// returned with the card in place of their text (so that generate reads the
// cards, and gRPC clients get them in the properties); the stored objects are
// never touched.

// cardOptions decides whether the query uses cards, and their size: off,
// cards always (the evidenceSentences and evidenceMaxWords keys, lead
// sentence kept), or auto (evidence.Auto from the budget and the pool's
// token counts).
func cardOptions(eff *config.Effective, cands []selectors.Candidate) (evidence.Options, bool) {
	switch eff.Evidence {
	case config.EvidenceCards:
		return evidence.Options{Sentences: eff.EvidenceSentences, MaxWords: eff.EvidenceMaxWords, Lead: true}, true
	case config.EvidenceAuto:
		counts := make([]int, len(cands))
		for i, c := range cands {
			counts[i] = c.Tokens
		}
		return evidence.Auto(eff.TokenBudget, counts)
	}
	return evidence.Options{}, false
}

// applyCards turns the problem's candidates into their cards when the plan
// asks for them, and returns the cards (nil = whole chunks). Each
// candidate's sentence analysis comes from the feature cache.
// It stops with ctx's error when the query's context ends.
func applyCards(ctx context.Context, p *plan, prob *selectors.Problem, in []search.Result, features *featureSource, txt *lazyText) ([]evidence.Card, error) {
	opts, ok := cardOptions(p.eff, prob.Candidates)
	if !ok {
		return nil, nil
	}
	analysed := make([]*evidence.Analysed, len(in))
	for i := range in {
		if i%checkEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		txt.reset(&in[i])
		analysed[i] = features.analysed(txt)
	}
	queryTerms := features.analyzer().Terms(nil, p.queryText)
	if len(queryTerms) == 0 {
		// No query text to score sentences by (nearVector without the query
		// argument): a card is the chunk's leading sentences, not the lead alone.
		opts.Lead = false
	}
	q := evidence.NewQuery(queryTerms, analysed)
	wantTerms := p.eff.Selector.UsesTerms()
	cards := make([]evidence.Card, len(in))
	for i := range in {
		if i%checkEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		card := q.Card(i, opts)
		cards[i] = card
		c := &prob.Candidates[i]
		c.Tokens = max(card.Tokens, 1)
		if wantTerms {
			// The card's terms; the chunk's hashes are not theirs.
			c.Terms, c.TermHashes = analysed[i].Terms([]string{}, card.Sentences), nil
		}
		if c.Text != "" {
			c.Text, c.WordPairs, c.SingleLine = card.Text, nil, false // the guard compares the card's word pairs
		}
	}
	return cards, nil
}

// withCard returns the object's properties for the output with the card
// in place of its text: the first text property the selection read holds
// the card, the others are left out. The map is a copy: the object as
// stored (and as Weaviate may hold it elsewhere) is not changed.
func withCard(schema any, textProps []string, card string) any {
	props, ok := schema.(map[string]any)
	if !ok || len(textProps) == 0 {
		return schema
	}
	out := maps.Clone(props)
	for _, name := range textProps[1:] {
		delete(out, name)
	}
	switch out[textProps[0]].(type) {
	case []string, []any:
		out[textProps[0]] = []string{card}
	default:
		out[textProps[0]] = card
	}
	return out
}

// analysed returns the candidate's sentence analysis, from the feature cache
// when the object was seen before under the same text properties and
// tokenizer.
func (f *featureSource) analysed(t *lazyText) *evidence.Analysed {
	if c := t.cached; c != nil && c.Evidence != nil {
		return c.Evidence
	}
	x := evidence.Analyse(t.get(), f.analyzer(), f.counter.Count)
	if t.keyed {
		next := &simcache.Features{Evidence: x, Text: t.get(), HasText: true}
		if c := t.cached; c != nil {
			next.Tokens, next.Terms, next.TermHashes, next.Vector = c.Tokens, c.Terms, c.TermHashes, c.Vector
			if c.Text == next.Text {
				next.WordPairs, next.SingleLine = c.WordPairs, c.SingleLine
			}
		}
		f.cache.Put(t.key, next)
		t.cached = next
	}
	return x
}

func (f *featureSource) analyzer() *text.Analyzer {
	if f.an == nil {
		f.an = text.NewAnalyzer()
	}
	return f.an
}
