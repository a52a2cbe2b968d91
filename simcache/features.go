package simcache

import (
	"context"
	"maps"
	"sync/atomic"
	"unsafe"

	"github.com/go-openapi/strfmt"
	"github.com/maypok86/otter/v2"
	"github.com/maypok86/otter/v2/stats"

	"github.com/diverse-select/diverse-select/selectors/evidence"
)

// FeatureKey identifies one object's text features (and the vector a
// selection compares). Updated (the object's last update time, unix ms) and
// DocID (Weaviate's internal id of the stored version, new whenever the
// vector changes) make a changed object a new key, so entries never go
// stale; two writes of one object within one millisecond that keep its
// vector share both, which the module rules out by caching only objects
// whose last write has settled (DIVERSE_SELECT_FEATURE_CACHE_SETTLE); Spec names what the features were computed from (text
// properties, tokenizer and the vector compared), so two configurations
// never share an entry.
type FeatureKey struct {
	Class   string
	Tenant  string
	ID      strfmt.UUID
	Updated int64
	DocID   uint64
	Spec    string
}

// Features are the text features of one object under one Spec. An entry is
// immutable once stored; a caller that adds a feature stores a new value.
type Features struct {
	// Tokens is the token count under the Spec's tokenizer; 0 = not cached.
	Tokens int
	// Terms are the analysed terms (text.Terms); nil = not cached.
	Terms []string
	// TermHashes are text.TermHash of each of Terms (selectors.Candidate's
	// TermHashes), so that a query does not hash every term again; nil =
	// not cached.
	TermHashes []uint32
	// WordPairs are selectors.WordPairs of Text (selectors.Candidate's
	// WordPairs), which the near-copy guard compares; nil = not cached.
	WordPairs []uint64
	// SingleLine is selectors.SingleLine(Text), with WordPairs.
	SingleLine bool
	// Evidence is the object's text split into sentences with their token
	// counts and terms, for evidence cards; nil = not cached.
	Evidence *evidence.Analysed
	// Text is the object's text as the selection reads it (its text
	// properties joined), so that a candidate whose properties the search
	// deferred needs no second read; HasText tells an empty text from none.
	Text    string
	HasText bool
	// Vector is the object's vector that the Spec's selection compares, so
	// that the search need not load it (nil = not cached).
	Vector []float32
}

// bytes estimates the memory an entry holds: the key's strings and header,
// the value, every term's header, bytes and hash, the word pairs, and the cache's own
// per-entry bookkeeping (a node, an index slot and frequency sketch
// counters, about 96 bytes in otter v2).
func (k FeatureKey) bytes(f *Features) uint32 {
	const entryOverhead = 96
	n := uint64(unsafe.Sizeof(k)) + uint64(len(k.Class)+len(k.Tenant)+len(k.ID)+len(k.Spec)+len(f.Text)) +
		uint64(unsafe.Sizeof(*f)) + entryOverhead
	n += uint64(len(f.Terms))*uint64(unsafe.Sizeof("")) + uint64(len(f.TermHashes))*4 + uint64(len(f.WordPairs))*8 +
		uint64(len(f.Vector))*4
	if f.Evidence != nil {
		n += uint64(f.Evidence.Bytes())
	}
	for _, t := range f.Terms {
		n += uint64(len(t))
	}
	return uint32(min(n, 1<<32-1))
}

// FeatureCache is a memory-bounded cache of per-object text features,
// shared by all queries of a server and safe for concurrent use. Eviction is
// otter's W-TinyLFU by weight, the weight of an entry being its estimated
// bytes, so the cache holds at most MaxBytes (otter may exceed it briefly
// while it evicts).
//
// What it caches, and why: BenchmarkFeatureCost and BenchmarkTextStrategies
// (docs/performance.md, "Feature costs, text strategies cold and warm, FMA
// peak") time each feature against a hit. The BPE token counts and the
// analysed terms cost many times a hit and dominate a query's problem
// building, so they are cached; the chars count costs about what a hit
// does, so it is not (cacheTokens in the module).
type FeatureCache struct {
	c        *otter.Cache[FeatureKey, *Features]
	counter  *stats.Counter
	maxBytes int64
	shared   atomic.Uint64 // keys Load returned without computing them
	loading  atomic.Int64  // Load calls in progress
}

// LoadFunc computes the features of keys, in one batch, for Load; a key it
// leaves out of its map (an object gone, or one not to be cached) is neither
// cached nor returned, to its caller or the calls that waited for it. It must
// not use the cache.
type LoadFunc func(ctx context.Context, keys []FeatureKey) (map[FeatureKey]*Features, error)

// Load returns the features of keys: those cached, and for the others what
// load computes, which the cache then stores. A key that another Load is
// computing now is not computed again: this call waits for that one
// (otter's BulkGet), after its own load has run, so no two calls wait for
// each other, and returns early with ctx's error. load is called once unless
// a key is written while it runs; keys without an update time (see Put), or
// all keys of a nil cache, go to a load of their own and are not cached.
// Its look-ups count as neither hits nor misses: the caller's Get counted
// them.
func (c *FeatureCache) Load(ctx context.Context, keys []FeatureKey, load LoadFunc) (map[FeatureKey]*Features, error) {
	if c != nil {
		c.loading.Add(1)
		defer c.loading.Add(-1)
	}
	got := make(map[FeatureKey]*Features, len(keys))
	var absent, uncached []FeatureKey
	for _, k := range keys {
		switch {
		case c == nil || k.Updated <= 0:
			uncached = append(uncached, k)
		default:
			if e, ok := c.c.GetEntryQuietly(k); ok {
				got[k] = e.Value
				c.shared.Add(1) // another caller computed it since the caller's Get
			} else {
				absent = append(absent, k)
			}
		}
	}
	if len(uncached) > 0 {
		m, err := load(ctx, uncached)
		if err != nil {
			return nil, err
		}
		for _, k := range uncached {
			if f := m[k]; f != nil {
				got[k] = f
			}
		}
	}
	if len(absent) == 0 {
		return got, nil
	}
	asked := map[FeatureKey]bool{}
	m, err := c.c.BulkGet(ctx, absent, otter.BulkLoaderFunc[FeatureKey, *Features](
		func(ctx context.Context, keys []FeatureKey) (map[FeatureKey]*Features, error) {
			for _, k := range keys {
				asked[k] = true
			}
			m, err := load(ctx, keys)
			maps.DeleteFunc(m, func(k FeatureKey, f *Features) bool { return f == nil || k.Updated <= 0 })
			return m, err
		}))
	for k, f := range m {
		got[k] = f
		if !asked[k] {
			c.shared.Add(1) // another caller computed it
		}
	}
	if err != nil {
		return nil, err
	}
	return got, nil
}

// countedHere is the cache's statistics without otter's hits and misses:
// Get counts its own, so that Load's look-ups of keys Get missed are not
// counted twice.
type countedHere struct{ *stats.Counter }

func (countedHere) RecordHits(int)   {}
func (countedHere) RecordMisses(int) {}

// NewFeatureCache returns a cache of at most maxBytes, or nil when maxBytes
// is 0 (caching off; the methods of a nil cache do nothing).
func NewFeatureCache(maxBytes int64) *FeatureCache {
	if maxBytes <= 0 {
		return nil
	}
	counter := stats.NewCounter()
	c := otter.Must(&otter.Options[FeatureKey, *Features]{
		MaximumWeight: uint64(maxBytes),
		Weigher:       func(k FeatureKey, f *Features) uint32 { return k.bytes(f) },
		StatsRecorder: countedHere{counter},
	})
	return &FeatureCache{c: c, counter: counter, maxBytes: maxBytes}
}

// Get returns the features of k when cached.
func (c *FeatureCache) Get(k FeatureKey) (*Features, bool) {
	if c == nil {
		return nil, false
	}
	f, ok := c.c.GetIfPresent(k)
	if ok {
		c.counter.RecordHits(1)
	} else {
		c.counter.RecordMisses(1)
	}
	return f, ok
}

// Put stores the features of k (f must not be modified afterwards). Objects
// without an update time (Updated <= 0) are not cached: their key could not
// tell a changed object from the old one.
func (c *FeatureCache) Put(k FeatureKey, f *Features) {
	if c == nil || k.Updated <= 0 || f == nil {
		return
	}
	// Never replace a live entry in place: otter v2.2.1 loses track of the
	// weight when an entry's value (and weight) is replaced while other
	// goroutines read and write, and then holds many times MaxBytes for good
	// (FuzzFeatureCacheBound found it). Drop the old entry, then insert; a
	// concurrent insert of the same key wins, which for a cache is as good.
	c.c.Invalidate(k)
	c.c.SetIfAbsent(k, f)
}

// CacheStats are a FeatureCache's figures since start.
type CacheStats struct {
	Hits, Misses, Evictions uint64
	Entries                 int
	Bytes, MaxBytes         uint64
	// Shared counts the keys Load returned without computing them: another
	// query computed them, since the caller's Get or while it waited.
	Shared uint64
	// Loading is the Load calls in progress, computing or waiting for
	// another's computation.
	Loading int
}

// HitRatio is Hits / (Hits + Misses), 0 before any lookup.
func (s CacheStats) HitRatio() float64 {
	if s.Hits+s.Misses == 0 {
		return 0
	}
	return float64(s.Hits) / float64(s.Hits+s.Misses)
}

// Stats returns the cache's hit, miss and eviction counts and its size.
func (c *FeatureCache) Stats() CacheStats {
	if c == nil {
		return CacheStats{}
	}
	s := c.c.Stats()
	return CacheStats{Hits: s.Hits, Misses: s.Misses, Evictions: s.Evictions, Entries: c.c.EstimatedSize(),
		Bytes: c.c.WeightedSize(), MaxBytes: uint64(c.maxBytes), Shared: c.shared.Load(),
		Loading: int(c.loading.Load())}
}

// CleanUp runs the cache's pending maintenance (evictions) now; for tests
// and for exact figures.
func (c *FeatureCache) CleanUp() {
	if c != nil {
		c.c.CleanUp()
	}
}
