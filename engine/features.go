package engine

import (
	"slices"
	"strings"
	"time"

	"github.com/weaviate/weaviate/entities/search"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/text"
	"github.com/diverse-select/diverse-select/selectors/tokens"
	"github.com/diverse-select/diverse-select/simcache"
)

// featureSource gives one query's candidates their token counts, for the
// strategies that read them their analysed terms (with the terms' hashes),
// and their text, from the module's feature cache when the object (same
// class, tenant, id and update time, same text properties and tokenizer)
// was seen before.
type featureSource struct {
	cache       *simcache.FeatureCache
	counter     tokens.Counter
	spec        string
	tenant      string
	cacheTokens bool // the tokenizer's counts are worth caching (see simcache.FeatureCache)
	wantTerms   bool
	// vectors: the entries hold the vector the selection compares (a single
	// vector, target; multi-vectors are not cached).
	vectors bool
	target  string
	// hold, when not nil, takes the entries loadOrStore computes instead of
	// the cache: they are the result of a FeatureCache.Load's load, which
	// must not write the cache itself (loadUncached).
	hold map[simcache.FeatureKey]*simcache.Features
	an   *text.Analyzer // for this query's misses
	// settled is the newest update time (unix ms) an object may have to be
	// cached (see FeatureKey).
	settled int64
}

func (e *Engine) featureSource(p *plan, counter tokens.Counter) *featureSource {
	return &featureSource{
		cache:   e.features,
		counter: counter,
		// \x1f, \x1e and \x1d cannot occur in property, tokenizer or
		// vector names.
		spec:        strings.Join(p.textProps, "\x1f") + "\x1e" + p.eff.Tokenizer + "\x1d" + p.target,
		tenant:      p.tenant,
		cacheTokens: p.eff.Tokenizer != tokens.Chars,
		wantTerms:   p.eff.Selector.UsesTerms(),
		vectors:     p.cachesVectors(),
		target:      p.target,
		settled:     time.Now().Add(-e.defaults.FeatureCacheSettle).UnixMilli(),
	}
}

// loadOrStore returns the candidate's token count (when needTokens) and its
// terms with their hashes (when the strategy uses the terms; nil
// otherwise), loaded from the cache entry t looked up or computed from its
// text; what it computes it stores in the cache, with the text and the
// candidate's vector (the one the search loaded, when the entry lacks it),
// so that the next query can defer the candidate's properties and vector
// and need not analyse or hash its text again.
func (f *featureSource) loadOrStore(t *lazyText, needTokens bool, vector []float32) (n int, terms []string, hashes []uint32) {
	c := t.cached
	computed := false
	if needTokens {
		if c != nil && c.Tokens > 0 {
			n = c.Tokens
		} else {
			n, computed = f.counter.Count(t.get()), true
		}
	}
	if f.wantTerms {
		if c != nil && c.Terms != nil {
			terms = c.Terms
		} else {
			terms, computed = f.analyzer().Terms([]string{}, t.get()), true
		}
		// The hashes are kept with the terms whichever strategy asked for
		// them (4 bytes a term beside a term's 16-byte header and bytes):
		// the entry is shared by every strategy of the class.
		if c != nil && c.Terms != nil && c.TermHashes != nil {
			hashes = c.TermHashes
		} else {
			hashes, computed = text.TermHashes(make([]uint32, 0, len(terms)), terms), true
		}
	}
	newVector := f.vectors && vector != nil && (c == nil || c.Vector == nil)
	if t.keyed && (computed || c == nil || !c.HasText || c.WordPairs == nil || newVector) {
		next := &simcache.Features{Tokens: n, Terms: terms, TermHashes: hashes, Text: t.get(), HasText: true}
		// The near-copy guard's word pairs, once per object version (about
		// 2 us a chunk, then 8 bytes a pair): the guard of every diversity
		// strategy asks for those of the candidates it is about to select.
		// With them, whether the text is one line (then coverage need not
		// read it to look for a title line).
		if c != nil && c.WordPairs != nil && c.Text == next.Text {
			next.WordPairs, next.SingleLine = c.WordPairs, c.SingleLine
		} else {
			next.WordPairs, next.SingleLine = selectors.WordPairs(next.Text), selectors.SingleLine(next.Text)
		}
		if newVector {
			next.Vector = slices.Clone(vector) // not the search's slice: the response may carry it on
		}
		if c != nil { // keep what another strategy or tokenizer-free query cached
			if next.Tokens == 0 {
				next.Tokens = c.Tokens
			}
			if next.Terms == nil {
				next.Terms, next.TermHashes = c.Terms, c.TermHashes
			}
			if next.Vector == nil {
				next.Vector = c.Vector
			}
			next.Evidence = c.Evidence
		}
		if !f.cacheTokens {
			next.Tokens = 0
		}
		if f.hold != nil {
			f.hold[t.key] = next // FeatureCache.Load caches what its load returns
		} else {
			f.cache.Put(t.key, next)
		}
		t.cached = next
	}
	return n, terms, hashes
}

// lookup returns the candidate's cache entry, nil when there is none.
func (f *featureSource) lookup(res *search.Result) *simcache.Features {
	key, ok := f.key(res)
	if !ok {
		return nil
	}
	c, _ := f.cache.Get(key)
	return c
}

// key is the candidate's feature cache key; false when the cache is off, the
// object has no update time to tell versions apart, or its last write is too
// recent to be cached (another write in the same millisecond would get the
// same key: DIVERSE_SELECT_FEATURE_CACHE_SETTLE).
func (f *featureSource) key(res *search.Result) (simcache.FeatureKey, bool) {
	if f.cache == nil || res.Updated <= 0 || res.Updated > f.settled {
		return simcache.FeatureKey{}, false
	}
	var docID uint64
	if res.DocID != nil {
		docID = *res.DocID
	}
	tenant := res.Tenant
	if tenant == "" {
		tenant = f.tenant
	}
	return simcache.FeatureKey{Class: res.ClassName, Tenant: tenant, ID: res.ID, Updated: res.Updated, DocID: docID, Spec: f.spec}, true
}
