package simcache_test

import (
	"context"
	"fmt"

	"github.com/diverse-select/diverse-select/simcache"
)

// An engine over three candidates: cosines read by row, then the buffers
// go back to the pool for the next query.
func ExampleEngine() {
	e, err := simcache.New([][]float32{{1, 0}, {3, 4}, {0, 2}})
	if err != nil {
		panic(err)
	}
	defer e.Release()
	row := make([]float32, e.Len())
	e.Row(1, row)
	fmt.Printf("cos(1, j) = %.1f\n", row)
	fmt.Printf("cos(0, 2) = %.1f\n", e.At(0, 2))
	// Output:
	// cos(1, j) = [0.6 1.0 0.8]
	// cos(0, 2) = 0.0
}

// The features of one object are computed by the first query that loads
// them (queries loading it at the same time wait for that one) and read
// from the cache by the next; a new update time is a new key.
func ExampleFeatureCache() {
	cache := simcache.NewFeatureCache(1 << 20)
	key := simcache.FeatureKey{Class: "Article", ID: "6a1b1b6e-3e29-4f6f-9c1e-2f3d4c5b6a70", Updated: 1700000000000,
		Spec: "body|cl100k_base"}
	_, err := cache.Load(context.Background(), []simcache.FeatureKey{key},
		func(_ context.Context, keys []simcache.FeatureKey) (map[simcache.FeatureKey]*simcache.Features, error) {
			return map[simcache.FeatureKey]*simcache.Features{
				keys[0]: {Tokens: 42, Terms: []string{"statin", "side", "effect"}},
			}, nil
		})
	if err != nil {
		panic(err)
	}
	if f, ok := cache.Get(key); ok {
		fmt.Println(f.Tokens, f.Terms)
	}
	key.Updated++
	_, ok := cache.Get(key)
	fmt.Println("after an update:", ok)
	// Output:
	// 42 [statin side effect]
	// after an update: false
}
