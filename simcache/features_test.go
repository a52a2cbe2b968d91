package simcache

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFeatureCacheHitsAndMisses(t *testing.T) {
	c := NewFeatureCache(1 << 20)
	k := FeatureKey{Class: "Doc", Tenant: "t1", ID: uuidOf(1), Updated: 100, Spec: "body|cl100k_base"}
	_, ok := c.Get(k)
	require.False(t, ok)
	c.Put(k, &Features{Tokens: 42, Terms: []string{"statin", "liver"}})
	f, ok := c.Get(k)
	require.True(t, ok)
	require.Equal(t, 42, f.Tokens)
	for name, other := range map[string]FeatureKey{
		"updated object": {Class: "Doc", Tenant: "t1", ID: uuidOf(1), Updated: 101, Spec: k.Spec},
		"other tenant":   {Class: "Doc", Tenant: "t2", ID: uuidOf(1), Updated: 100, Spec: k.Spec},
		"other class":    {Class: "Doc2", Tenant: "t1", ID: uuidOf(1), Updated: 100, Spec: k.Spec},
		"other spec":     {Class: "Doc", Tenant: "t1", ID: uuidOf(1), Updated: 100, Spec: "body|words"},
	} {
		_, ok := c.Get(other)
		require.False(t, ok, name)
	}
	s := c.Stats()
	require.Equal(t, uint64(1), s.Hits)
	require.Equal(t, uint64(5), s.Misses)
	require.InDelta(t, 1.0/6, s.HitRatio(), 1e-12)
	require.Equal(t, 1, s.Entries)

	// No update time: never cached (a changed object would keep its key).
	c.Put(FeatureKey{Class: "Doc", ID: uuidOf(2)}, &Features{Tokens: 1})
	_, ok = c.Get(FeatureKey{Class: "Doc", ID: uuidOf(2)})
	require.False(t, ok)
}

func TestFeatureCacheNilIsOff(t *testing.T) {
	c := NewFeatureCache(0)
	require.Nil(t, c)
	c.Put(FeatureKey{ID: uuidOf(1), Updated: 1}, &Features{Tokens: 1})
	_, ok := c.Get(FeatureKey{ID: uuidOf(1), Updated: 1})
	require.False(t, ok)
	require.Equal(t, CacheStats{}, c.Stats())
	c.CleanUp()
}

// TestFeatureCacheByteBound: however many objects pass, the cache's
// weighted size stays within its byte bound, and evictions are counted.
func TestFeatureCacheByteBound(t *testing.T) {
	for _, tc := range []struct {
		maxBytes int64
		terms    int
		hashes   bool
	}{{64 << 10, 10, false}, {256 << 10, 100, false}, {1 << 20, 300, false}, {256 << 10, 100, true}, {1 << 20, 300, true}} {
		t.Run(fmt.Sprintf("max=%d/terms=%d/hashes=%v", tc.maxBytes, tc.terms, tc.hashes), func(t *testing.T) {
			c := NewFeatureCache(tc.maxBytes)
			terms := make([]string, tc.terms)
			for i := range terms {
				terms[i] = fmt.Sprintf("term%d", i)
			}
			f := &Features{Tokens: 7, Terms: terms}
			if tc.hashes {
				f.TermHashes = make([]uint32, len(terms))
			}
			k0 := FeatureKey{Class: "Doc", ID: uuidOf(0), Updated: 1, Spec: "body"}
			perEntry := int64(k0.bytes(f))
			inserted := 0
			for i := 0; i < 4000; i++ {
				c.Put(FeatureKey{Class: "Doc", ID: uuidOf(i), Updated: 1, Spec: "body"}, f)
				inserted++
				if i%100 == 0 {
					c.CleanUp()
					require.LessOrEqual(t, c.Stats().Bytes, uint64(tc.maxBytes), "after %d puts", i)
				}
			}
			c.CleanUp()
			s := c.Stats()
			require.LessOrEqual(t, s.Bytes, uint64(tc.maxBytes))
			require.LessOrEqual(t, int64(s.Entries)*perEntry, tc.maxBytes)
			require.Greater(t, s.Evictions, uint64(0))
			require.Equal(t, uint64(tc.maxBytes), s.MaxBytes)
			require.Greater(t, s.Entries, 0)
		})
	}
}

// TestFeatureKeyBytes: the weight grows with the terms, their hashes and
// the text held.
func TestFeatureKeyBytes(t *testing.T) {
	k := FeatureKey{Class: "Doc", ID: uuidOf(1), Updated: 1, Spec: "body|cl100k_base"}
	small := k.bytes(&Features{Tokens: 3})
	require.Greater(t, small, uint32(96))
	for _, tc := range []struct {
		name string
		f    Features
		more uint32 // than small
	}{
		{"terms", Features{Tokens: 3, Terms: []string{"abcdef", "ghijkl"}}, 2*16 + 12},
		{"terms and hashes", Features{Tokens: 3, Terms: []string{"abcdef", "ghijkl"}, TermHashes: []uint32{1, 2}}, 2*16 + 12 + 2*4},
		{"text", Features{Tokens: 3, Text: "statin", HasText: true}, 6},
	} {
		require.Equal(t, small+tc.more, k.bytes(&tc.f), tc.name)
	}
}
