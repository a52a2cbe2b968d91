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
	useCache := f.cache != nil && res.Updated > 0 && ((needTokens && f.cacheTokens) || f.wantTerms)
	var key simcache.FeatureKey
	var cached *simcache.Features
	if useCache {
		tenant := res.Tenant
		if tenant == "" {
			tenant = f.tenant
		}
		key = simcache.FeatureKey{Class: res.ClassName, Tenant: tenant, ID: res.ID, Updated: res.Updated, Spec: f.spec}
		cached, _ = f.cache.Get(key)
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
			if f.an == nil {
				f.an = text.NewAnalyzer()
			}
			terms, computed = f.an.Terms([]string{}, txt.get()), true
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
		}
		if !f.cacheTokens {
			next.Tokens = 0
		}
		f.cache.Put(key, next)
	}
	return n, terms
}
