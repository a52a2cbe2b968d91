package simcache

import "sync"

// claims is the batch singleflight of Claim and Release, which Load
// replaces; it stays until module/deferred.go, its one caller, uses Load.
type claims struct {
	mu        sync.Mutex
	computing map[FeatureKey]chan struct{}
}

// Claim reserves the computation of k's features for the caller. owner is
// true when no one computes them now: the caller computes, Puts them and
// then calls Release(k). Otherwise done is closed when the owner releases
// k; the entry is then in the cache, unless the owner failed or it was
// evicted. An owner must release every key it claimed before it waits for
// another's, so that no two queries wait for each other.
//
// Deprecated: use Load.
func (c *FeatureCache) Claim(k FeatureKey) (owner bool, done <-chan struct{}) {
	if c == nil {
		return true, nil
	}
	c.claims.mu.Lock()
	defer c.claims.mu.Unlock()
	if ch, busy := c.claims.computing[k]; busy {
		c.shared.Add(1)
		return false, ch
	}
	if c.claims.computing == nil {
		c.claims.computing = map[FeatureKey]chan struct{}{}
	}
	c.claims.computing[k] = make(chan struct{})
	return true, nil
}

// Release ends the caller's claim on k and wakes the queries waiting for it.
//
// Deprecated: use Load.
func (c *FeatureCache) Release(k FeatureKey) {
	if c == nil {
		return
	}
	c.claims.mu.Lock()
	ch, ok := c.claims.computing[k]
	delete(c.claims.computing, k)
	c.claims.mu.Unlock()
	if ok {
		close(ch)
	}
}
