package simcache

import (
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// FuzzFeatureCacheBound: any mix of entry sizes, written from several
// goroutines at once, leaves the cache within its byte limit once its
// maintenance ran, with its accounted size equal to the sum of the weights
// of the entries it holds (the accounting cannot drift).
func FuzzFeatureCacheBound(f *testing.F) {
	f.Add(uint64(1), uint16(64), uint16(2000), uint8(4))
	f.Add(uint64(2), uint16(1), uint16(5000), uint8(8))
	f.Add(uint64(3), uint16(512), uint16(300), uint8(1))
	f.Add(uint64(4), uint16(8), uint16(60000), uint8(16)) // entries larger than the whole cache
	f.Fuzz(func(t *testing.T, seed uint64, limitKiB, maxTerms uint16, writers uint8) {
		limit := int64(limitKiB%1024+1) << 10
		w := int(writers%16) + 1
		c := NewFeatureCache(limit)
		var wg sync.WaitGroup
		for g := 0; g < w; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(seed, uint64(g)))
				for i := 0; i < 150; i++ {
					terms := make([]string, rng.IntN(int(maxTerms)%2048+1))
					for j := range terms {
						terms[j] = strings.Repeat("x", rng.IntN(12)+1)
					}
					k := FeatureKey{Class: "Doc", Tenant: string(rune('a' + g)), ID: uuidOf(rng.IntN(500)), Updated: int64(rng.IntN(3) + 1), Spec: "body"}
					f := &Features{Tokens: len(terms), Terms: terms}
					if rng.IntN(2) == 0 {
						f.TermHashes = make([]uint32, len(terms))
					}
					c.Put(k, f)
					if rng.IntN(4) == 0 {
						c.Get(k)
					}
				}
			}(g)
		}
		wg.Wait()
		c.CleanUp()
		s := c.Stats()
		var sum uint64
		for k, v := range c.c.All() {
			sum += uint64(k.bytes(v))
		}
		if s.Bytes > uint64(limit) {
			t.Fatalf("cache holds %d bytes (entries weigh %d, %d entries), limit %d", s.Bytes, sum, s.Entries, limit)
		}
		if sum != s.Bytes {
			t.Fatalf("accounted %d bytes, entries weigh %d", s.Bytes, sum)
		}
	})
}
