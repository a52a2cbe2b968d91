package engine

import (
	"context"
	"fmt"
	"runtime"

	"github.com/weaviate/weaviate/entities/additional"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/multi"
	"github.com/weaviate/weaviate/entities/search"

	"github.com/diverse-select/diverse-select/internal/workshare"
	"github.com/diverse-select/diverse-select/simcache"
)

// Deferred properties. Weaviate decodes every candidate's properties when it
// loads the pool - at a pool of 1000 the largest share of the query's CPU
// (docs/performance.md) - while the selection reads only their vectors and
// what the feature cache holds per object version (token counts, terms and
// the text itself), and returns a few of them. When the selection is the
// only reader of the pool's properties, the stage (search.go, setSearchLoads)
// reads the pool without them (Weaviate's own NoProps): the selection takes
// each candidate's text from the feature cache and reads the candidates the
// cache does not hold by id, in one batch, and the selected objects'
// properties are read by id before they leave the stage, so the response
// and generate see whole objects.

// hasMultiVector: the class has a multi-vector, which a selection may
// compare (multivector.go); those are not cached, so such searches load
// their vectors as before.
func hasMultiVector(class *models.Class) bool {
	for name := range class.VectorConfig {
		if targetIsMultiVector(class, name) {
			return true
		}
	}
	return false
}

// filtersExpiredOnProperty: Weaviate drops expired objects by a date
// property after the hooks, so the selection could pick one that is then
// dropped.
func filtersExpiredOnProperty(class *models.Class) bool {
	t := class.ObjectTTLConfig
	return t != nil && t.Enabled && t.FilterExpiredObjects &&
		t.DeleteOn != "" && t.DeleteOn[0] != '_'
}

// loadUncached looks every deferred candidate up in the feature cache and
// reads by id, in one batch, those whose text it does not hold - or, when
// the search deferred the vectors too, whose vector neither it nor the
// search holds - so that every candidate has its text and vector from one or
// the other; it computes and caches their features at once. A candidate
// another query is reading and computing now is not read twice
// (simcache.FeatureCache.Load): this query waits for that one, after it
// read its own, and reads only what the other could not cache. It returns the pool
// without the candidates deleted since the search, each candidate's cache
// entry (nil: none; the problem reuses them instead of looking them up
// again) and how many it read.
func (e *Engine) loadUncached(ctx context.Context, p *plan, in []search.Result) (_ []search.Result, entries []*simcache.Features, read int, err error) {
	counter, err := e.Counter(p.eff.Tokenizer)
	if err != nil {
		return nil, nil, 0, err
	}
	features := e.featureSource(p, counter)
	entries = make([]*simcache.Features, len(in))
	// A large pool's look-ups on every core: each is a few cache misses
	// (the entry and its key's strings), about 0.45 us at a pool of 1000.
	workers := 1
	if len(in) >= parallelLookups {
		workers = runtime.GOMAXPROCS(0)
	}
	workshare.Ranges(workers, len(in), lookupChunk, func(_, from, to int) {
		for i := from; i < to; i++ {
			entries[i] = features.lookup(&in[i])
		}
	})
	// own: read by this query whatever others do - not cacheable, or an
	// entry that lacks the text or vector (its features are merged into a
	// new entry); byKey: the others, which the feature cache's Load reads
	// once for all the queries that miss them at the same time.
	var own []int
	var keys []simcache.FeatureKey
	byKey := map[simcache.FeatureKey][]int{}
	for _, i := range uncachedIndexes(p, features, in, entries) {
		k, keyed := features.key(&in[i])
		if !keyed || entries[i] != nil {
			own = append(own, i)
			continue
		}
		if _, dup := byKey[k]; !dup {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], i)
	}
	gone := map[int]bool{}
	// load reads its keys' candidates by id, in one batch with the query's
	// own (the first time), and returns the entries it computed, which Load
	// caches (a candidate read in another version than searched is cached
	// under that version's key, and left out for the key asked).
	load := func(ctx context.Context, keys []simcache.FeatureKey) (map[simcache.FeatureKey]*simcache.Features, error) {
		idx := own
		own = nil
		for _, k := range keys {
			idx = append(idx, byKey[k]...)
		}
		read += len(idx)
		features.hold = map[simcache.FeatureKey]*simcache.Features{}
		defer func() { features.hold = nil }()
		if err := e.readFeatures(ctx, p, features, in, entries, idx, gone); err != nil {
			return nil, err
		}
		return features.hold, nil
	}
	got, err := e.features.Load(ctx, keys, load)
	if err != nil {
		return nil, nil, 0, err
	}
	if len(own) > 0 { // Load had nothing to read
		if _, err := load(ctx, nil); err != nil {
			return nil, nil, 0, err
		}
	}
	var again []int
	for _, k := range keys {
		for _, i := range byKey[k] {
			if f, ok := got[k]; ok && entries[i] == nil {
				entries[i] = f // another query read it
			}
			if !gone[i] && !holds(p, features, in[i], entries[i]) {
				again = append(again, i) // the other query could not cache it
			}
		}
	}
	if err := e.readFeatures(ctx, p, features, in, entries, again, gone); err != nil {
		return nil, nil, 0, err
	}
	return withoutGone(in, gone), withoutGone(entries, gone), read + len(again), nil
}

// uncached are the candidates whose text, or deferred vector, neither the
// cache nor the search holds.
func uncachedIndexes(p *plan, features *featureSource, in []search.Result, entries []*simcache.Features) []int {
	var missing []int
	for i := range in {
		if !holds(p, features, in[i], entries[i]) {
			missing = append(missing, i)
		}
	}
	return missing
}

// holds: the candidate has its text, and its vector when the search
// deferred it, from its cache entry or the search.
func holds(p *plan, features *featureSource, res search.Result, entry *simcache.Features) bool {
	props, _ := res.Schema.(map[string]any)
	noText := (entry == nil || !entry.HasText) && !hasAnyText(props, p.textProps)
	noVector := p.deferred.vectors && features.vectors && (entry == nil || entry.Vector == nil) && !hasVector(res, p.target)
	return !noText && !noVector
}

// readFeatures reads in[idx] by id in one batch (with the compared vector
// when the search deferred it), marks the ones gone, and computes and
// caches the features of the others that can be cached: their entries
// replace the ones looked up (an object too recent to cache keeps none, and
// the problem computes its features once, from the text read here).
func (e *Engine) readFeatures(ctx context.Context, p *plan, features *featureSource, in []search.Result,
	entries []*simcache.Features, idx []int, gone map[int]bool,
) error {
	var vector *string // the vector to read with them
	if p.deferred.vectors && features.vectors {
		vector = &p.target
	}
	lost, err := e.loadProperties(ctx, p, in, idx, vector)
	if err != nil {
		return err
	}
	text := &lazyText{names: p.textProps, features: features}
	for n, i := range idx {
		if n%checkEvery == 0 {
			if err := e.stopped(ctx, p, len(in), "reading the candidates"); err != nil {
				return err
			}
		}
		if lost[i] {
			gone[i] = true
			continue
		}
		text.resetWith(&in[i], nil)
		if !text.keyed {
			continue // not cacheable: the problem computes its features from the text read here
		}
		var v []float32
		if features.vectors {
			v, _ = vectorOf(in[i], p.target, nil)
		}
		features.loadOrStore(text, true, v)
		entries[i] = text.cached
	}
	return nil
}

const (
	// parallelLookups is the pool from which the feature cache look-ups run
	// on every core (below it, waking another core costs more), lookupChunk
	// the look-ups in one unit of that work.
	parallelLookups = 256
	lookupChunk     = 64
)

// cachedVectors counts the candidates whose compared vector comes from their
// feature cache entry: the search did not load it.
func countCachedVectors(p *plan, in []search.Result, entries []*simcache.Features) int {
	if !p.cachesVectors() {
		return 0
	}
	n := 0
	for i, e := range entries {
		if e != nil && e.Vector != nil && !hasVector(in[i], p.target) {
			n++
		}
	}
	return n
}

// loadSelected reads by id the properties of the selected candidates
// (indexes into in) that the search deferred, for the response and the hooks
// after the selection; it reports the ones deleted since the search.
func (e *Engine) loadSelected(ctx context.Context, p *plan, in []search.Result, selected []int) (gone map[int]bool, read int, err error) {
	var missing []int
	for _, i := range selected {
		if !propertiesLoaded(in[i]) {
			missing = append(missing, i)
		}
	}
	gone, err = e.loadProperties(ctx, p, in, missing, nil)
	return gone, len(missing), err
}

// loadProperties reads the properties of in[missing] by id in one batch and
// puts them in place, with the vector named by vector ("" the legacy one)
// when it is not nil and the search did not load it. It reports the
// candidates whose object is gone, or changed since a filtered search
// (takeVersion); the version read replaces the search's, so the cache keys
// what was read.
func (e *Engine) loadProperties(ctx context.Context, p *plan, in []search.Result, missing []int, vector *string) (gone map[int]bool, err error) {
	if len(missing) == 0 {
		return nil, nil
	}
	if p.read == nil {
		return nil, fmt.Errorf("the search deferred the properties of %d candidates and no database is at hand to read them", len(missing))
	}
	got, err := readByID(ctx, p.read, in, missing, p.tenant)
	if err != nil {
		return nil, fmt.Errorf("load the properties of %d candidates: %w", len(missing), err)
	}
	for k, i := range missing {
		if k >= len(got) || !takeVersion(p.filtered, &in[i], got[k]) {
			// Deleted, or changed since a filtered search (versions.go).
			if gone == nil {
				gone = map[int]bool{}
			}
			gone[i] = true
			continue
		}
		in[i].Schema = got[k].Schema
		if vector != nil {
			fillVector(&in[i], got[k], *vector)
		}
	}
	return gone, nil
}

// readByID reads the objects of in[idx] by id, in one batch, from tenant:
// got[k] is in[idx[k]]'s whole object (properties and vectors: Weaviate's
// MultiGet reads them all), or another id (the zero result) when it is gone.
func readByID(ctx context.Context, read MultiGetFunc, in []search.Result, idx []int, tenant string) ([]search.Result, error) {
	ids := make([]multi.Identifier, len(idx))
	for k, i := range idx {
		ids[k] = multi.Identifier{ID: in[i].ID.String(), ClassName: in[i].ClassName}
	}
	return read(ctx, ids, additional.Properties{}, tenant)
}

// propertiesLoaded: a result loaded without properties holds only its id
// (and, from hybrid's vector half, its _additional).
func propertiesLoaded(r search.Result) bool {
	props, _ := r.Schema.(map[string]any)
	for k := range props {
		if k != "id" && k != "_additional" {
			return true
		}
	}
	return false
}

// hasAnyText reports whether props hold any of the text properties names
// (not so when the search deferred them).
func hasAnyText(props map[string]any, names []string) bool {
	for _, n := range names {
		if _, ok := props[n]; ok {
			return true
		}
	}
	return false
}

func hasVector(res search.Result, target string) bool {
	if target == "" {
		return len(res.Vector) > 0
	}
	_, ok := res.Vectors[target]
	return ok
}

// fillVector copies the loaded vector into a search result without changing what
// the search already set.
func fillVector(dst *search.Result, src search.Result, target string) {
	if target == "" {
		if len(dst.Vector) == 0 {
			dst.Vector = src.Vector
		}
		return
	}
	if v, ok := src.Vectors[target]; ok {
		vecs := models.Vectors{}
		for k, x := range dst.Vectors {
			vecs[k] = x
		}
		if _, ok := vecs[target]; !ok {
			vecs[target] = v
		}
		dst.Vectors = vecs
	}
}

// withoutGone returns s without the elements at the indexes gone marks (in
// place): the candidates, or what runs beside them.
func withoutGone[T any](s []T, gone map[int]bool) []T {
	if len(gone) == 0 {
		return s
	}
	kept := s[:0]
	for i, x := range s {
		if !gone[i] {
			kept = append(kept, x)
		}
	}
	return kept
}
