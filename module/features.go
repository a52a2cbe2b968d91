package diverseselect

import (
	"strings"

	"github.com/weaviate/weaviate/entities/search"

	"github.com/diverse-select/diverse-select/selectors/text"
	"github.com/diverse-select/diverse-select/selectors/tokens"
	"github.com/diverse-select/diverse-select/simcache"
)

// featureSource gives one query's candidates their token counts and, for
// the strategies that read them, their analysed terms, from the module's
// feature cache when the object (same class, tenant, id and update time,
// same text properties and tokenizer) was seen before.
type featureSource struct {
	cache       *simcache.FeatureCache
	counter     tokens.Counter
	spec        string
	tenant      string
	cacheTokens bool // the tokenizer is worth caching (see simcache.FeatureCache)
	wantTerms   bool
	an          *text.Analyzer // for this query's misses
}

func (m *Module) featureSource(r *plan, counter tokens.Counter) *featureSource {
	return &featureSource{
		cache:   m.features,
		counter: counter,
		// \x1f and \x1e cannot occur in property or tokenizer names.
		spec:        strings.Join(r.textProps, "\x1f") + "\x1e" + r.eff.Tokenizer,
		tenant:      r.tenant,
		cacheTokens: r.eff.Tokenizer != tokens.Chars,
		wantTerms:   r.eff.Selector.UsesTerms(),
	}
}

// get returns the candidate's token count (when needTokens) and its terms
// (when the strategy uses them; nil otherwise).
func (f *featureSource) get(res *search.Result, txt *lazyText, needTokens bool) (n int, terms []string) {
	var key simcache.FeatureKey
	var cached *simcache.Features
	useCache := (needTokens && f.cacheTokens) || f.wantTerms
	if useCache {
		if key, useCache = f.key(res); useCache {
			cached, _ = f.cache.Get(key)
		}
	}
	computed := false
	if needTokens {
		if cached != nil && cached.Tokens > 0 {
			n = cached.Tokens
		} else {
			n, computed = f.counter.Count(txt.get()), true
		}
	}
	if f.wantTerms {
		if cached != nil && cached.Terms != nil {
			terms = cached.Terms
		} else {
			terms, computed = f.analyzer().Terms([]string{}, txt.get()), true
		}
	}
	if useCache && computed {
		next := &simcache.Features{Tokens: n, Terms: terms}
		if cached != nil { // keep what another strategy or tokenizer-free query cached
			if next.Tokens == 0 && f.cacheTokens {
				next.Tokens = cached.Tokens
			}
			if next.Terms == nil {
				next.Terms = cached.Terms
			}
			next.Evidence = cached.Evidence
		}
		if !f.cacheTokens {
			next.Tokens = 0
		}
		f.cache.Put(key, next)
	}
	return n, terms
}

// key is the candidate's feature cache key; false when the cache is off or
// the object has no update time to tell versions apart.
func (f *featureSource) key(res *search.Result) (simcache.FeatureKey, bool) {
	if f.cache == nil || res.Updated <= 0 {
		return simcache.FeatureKey{}, false
	}
	tenant := res.Tenant
	if tenant == "" {
		tenant = f.tenant
	}
	return simcache.FeatureKey{Class: res.ClassName, Tenant: tenant, ID: res.ID, Updated: res.Updated, Spec: f.spec}, true
}
