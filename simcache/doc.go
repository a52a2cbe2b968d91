// Package simcache is diverse-select's similarity engine and feature cache:
// what makes selection cheap enough to run on every query.
//
// Engine (one vector per candidate) and MultiEngine (several, compared by
// MaxSim) implement selectors.Similarities for one query: New packs the
// candidates' vectors once, L2-normalised and padded for the SIMD kernels,
// and the strategies read cosines as rows on demand or as the full N x N
// matrix. An engine is for one goroutine at a time; Release returns its
// buffers to a pool for the next query, after which neither the engine nor
// a slice it returned may be used.
//
// FeatureCache keeps, per object and selection set-up (FeatureKey), what a
// query would otherwise compute or read again (Features): the token count,
// the analysed terms and their hashes, the sentences of evidence cards, the
// text as the selection reads it with the near-copy guard's word pairs and
// whether it is one line, and the vector it compares. It is bounded
// in bytes and shared by all queries; a changed object is a new key, so an
// entry never goes stale, and Load lets one query compute what others
// wait for.
//
// Like package selectors, simcache imports nothing from Weaviate: the
// distancer and gonum kernels it was measured against appear only in its
// benchmarks.
package simcache
