package simcache

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/go-openapi/strfmt"
)

// countingLoad computes Features{Tokens: n} for key n's ID, counting how
// often each key is computed; it waits for gate (when not nil) first.
type countingLoad struct {
	mu      sync.Mutex
	calls   map[FeatureKey]int
	gate    chan struct{}
	started chan struct{} // closed when the load is called (when not nil)
	once    sync.Once
	skip    map[FeatureKey]bool // left out of the result
}

func (l *countingLoad) load(ctx context.Context, keys []FeatureKey) (map[FeatureKey]*Features, error) {
	if l.started != nil {
		l.once.Do(func() { close(l.started) })
	}
	if l.gate != nil {
		select {
		case <-l.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[FeatureKey]*Features{}
	for _, k := range keys {
		if l.calls == nil {
			l.calls = map[FeatureKey]int{}
		}
		l.calls[k]++
		if !l.skip[k] {
			out[k] = &Features{Tokens: len(k.ID), Text: string(k.ID), HasText: true}
		}
	}
	return out, nil
}

func loadKeys(ids ...string) []FeatureKey {
	keys := make([]FeatureKey, len(ids))
	for i, id := range ids {
		keys[i] = FeatureKey{Class: "C", ID: strfmt.UUID(id), Updated: 1, Spec: "body"}
	}
	return keys
}

// TestFeatureCacheLoadConcurrentMisses: queries that miss the same keys at
// once compute each key once; every query gets the one computed entry, and
// the others count as shared.
func TestFeatureCacheLoadConcurrentMisses(t *testing.T) {
	const queries, pool = 8, 50
	c := NewFeatureCache(1 << 20)
	ids := make([]string, pool)
	for i := range ids {
		ids[i] = fmt.Sprint(i)
	}
	keys := loadKeys(ids...)
	l := &countingLoad{gate: make(chan struct{})}
	var entered sync.WaitGroup
	entered.Add(queries)
	results := make([]map[FeatureKey]*Features, queries)
	errs := make([]error, queries)
	var done sync.WaitGroup
	for q := range queries {
		done.Add(1)
		go func() {
			defer done.Done()
			entered.Done()
			results[q], errs[q] = c.Load(context.Background(), keys, l.load)
		}()
	}
	entered.Wait()
	time.Sleep(20 * time.Millisecond) // let the others join the first load (they find the entries cached otherwise: the same counts)
	close(l.gate)
	done.Wait()
	for k, n := range l.calls {
		if n != 1 {
			t.Errorf("key %s computed %d times, want once", k.ID, n)
		}
	}
	if len(l.calls) != pool {
		t.Fatalf("%d keys computed, want %d", len(l.calls), pool)
	}
	for q := range queries {
		if errs[q] != nil {
			t.Fatalf("query %d: %v", q, errs[q])
		}
		if len(results[q]) != pool {
			t.Fatalf("query %d got %d entries, want %d", q, len(results[q]), pool)
		}
		for _, k := range keys {
			if results[q][k] != results[0][k] {
				t.Fatalf("query %d got another entry for %s than query 0", q, k.ID)
			}
		}
	}
	if s := c.Stats(); s.Shared != (queries-1)*pool {
		t.Errorf("Shared %d, want %d", s.Shared, (queries-1)*pool)
	}
}

// TestFeatureCacheLoad: what Load returns, caches and computes, per case.
func TestFeatureCacheLoad(t *testing.T) {
	k := loadKeys("a", "b", "c")
	noTime := FeatureKey{Class: "C", ID: "d", Spec: "body"}
	for _, tc := range []struct {
		name     string
		off      bool // a nil cache
		cached   []FeatureKey
		skip     []FeatureKey
		ask      []FeatureKey
		computed int // keys given to the load
		got      int
		stored   int // entries after
	}{
		{name: "all missing", ask: k, computed: 3, got: 3, stored: 3},
		{name: "some cached", cached: k[:2], ask: k, computed: 1, got: 3, stored: 3},
		{name: "left out: not cached, not returned", skip: k[1:2], ask: k, computed: 3, got: 2, stored: 2},
		{name: "no update time: computed, not cached", ask: []FeatureKey{k[0], noTime}, computed: 2, got: 2, stored: 1},
		{name: "cache off", off: true, ask: k, computed: 3, got: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c *FeatureCache
			if !tc.off {
				c = NewFeatureCache(1 << 20)
			}
			for _, key := range tc.cached {
				c.Put(key, &Features{Tokens: 99, HasText: true})
			}
			l := &countingLoad{skip: map[FeatureKey]bool{}}
			for _, key := range tc.skip {
				l.skip[key] = true
			}
			got, err := c.Load(context.Background(), tc.ask, l.load)
			if err != nil {
				t.Fatal(err)
			}
			if len(l.calls) != tc.computed || len(got) != tc.got {
				t.Fatalf("computed %d, got %d; want %d, %d", len(l.calls), len(got), tc.computed, tc.got)
			}
			for _, key := range tc.cached {
				if got[key].Tokens != 99 {
					t.Errorf("%s: the cached entry was not returned", key.ID)
				}
			}
			c.CleanUp()
			if n := c.Stats().Entries; n != tc.stored {
				t.Errorf("%d entries cached, want %d", n, tc.stored)
			}
		})
	}
}

// TestFeatureCacheLoadOverlap: two queries whose keys overlap each compute
// their own keys and wait for the shared one, computed once; neither waits
// for the other before its own load has run.
func TestFeatureCacheLoadOverlap(t *testing.T) {
	c := NewFeatureCache(1 << 20)
	k := loadKeys("a", "b", "c")
	first := &countingLoad{gate: make(chan struct{}), started: make(chan struct{})}
	second := &countingLoad{}
	res := make(chan map[FeatureKey]*Features, 1)
	go func() {
		m, _ := c.Load(context.Background(), k[:2], first.load)
		res <- m
	}()
	<-first.started // the first query is in its load of a and b
	loaded := make(chan map[FeatureKey]*Features, 1)
	go func() {
		m, _ := c.Load(context.Background(), k[1:], second.load)
		loaded <- m
	}()
	time.Sleep(10 * time.Millisecond) // the second computes c, then waits for b (it cannot own b either way)
	close(first.gate)
	a, b := <-res, <-loaded
	if len(a) != 2 || len(b) != 2 || a[k[1]] != b[k[1]] {
		t.Fatalf("results %v and %v: want both with the one entry of b", a, b)
	}
	if second.calls[k[1]] != 0 || second.calls[k[2]] != 1 || first.calls[k[1]] != 1 {
		t.Fatalf("first computed %v, second %v: want b once, by the first", first.calls, second.calls)
	}
}

// TestFeatureCacheLoadWaiterCancelled: a query waiting for another's load
// returns its own context's error; the load goes on and is cached.
func TestFeatureCacheLoadWaiterCancelled(t *testing.T) {
	c := NewFeatureCache(1 << 20)
	k := loadKeys("a")
	owner := &countingLoad{gate: make(chan struct{}), started: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		_, err := c.Load(context.Background(), k, owner.load)
		done <- err
	}()
	<-owner.started
	ctx, cancel := context.WithCancel(context.Background())
	waiter := &countingLoad{}
	go func() { time.Sleep(10 * time.Millisecond); cancel() }()
	if _, err := c.Load(ctx, k, waiter.load); !errors.Is(err, context.Canceled) {
		t.Fatalf("waiter: err %v, want context.Canceled", err)
	}
	close(owner.gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(waiter.calls) != 0 {
		t.Errorf("the waiter computed %v", waiter.calls)
	}
	if _, ok := c.Get(k[0]); !ok {
		t.Error("the owner's entry is not cached")
	}
}

// TestFeatureCacheLoadError: a failed load is the caller's error, caches
// nothing, and a later Load computes the keys again.
func TestFeatureCacheLoadError(t *testing.T) {
	c := NewFeatureCache(1 << 20)
	k := loadKeys("a", "b")
	boom := errors.New("read failed")
	_, err := c.Load(context.Background(), k, func(context.Context, []FeatureKey) (map[FeatureKey]*Features, error) {
		return nil, boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v, want %v", err, boom)
	}
	l := &countingLoad{}
	if got, err := c.Load(context.Background(), k, l.load); err != nil || len(got) != 2 || len(l.calls) != 2 {
		t.Fatalf("after the failure: %d entries, %d computed, %v", len(got), len(l.calls), err)
	}
}

// TestFeatureCacheStatsCountGetOnly: hits and misses are Get's; Load's own
// look-ups are not counted again.
func TestFeatureCacheStatsCountGetOnly(t *testing.T) {
	c := NewFeatureCache(1 << 20)
	k := loadKeys("a", "b")
	c.Get(k[0])
	c.Get(k[1])
	l := &countingLoad{}
	if _, err := c.Load(context.Background(), k, l.load); err != nil {
		t.Fatal(err)
	}
	c.Get(k[0])
	if s := c.Stats(); s.Hits != 1 || s.Misses != 2 {
		t.Errorf("hits %d misses %d, want 1 and 2", s.Hits, s.Misses)
	}
}
