// Package simcache is diverse-select's similarity engine and caches: what
// makes selection cheap enough to run on every query.
//
//   - Engine packs a query's candidate vectors contiguously (float32,
//     L2-normalised once, zero padded for the SIMD kernels) and gives cosine
//     similarities as rows on demand (the greedy strategies need only k rows)
//     or as the full N x N matrix (facility location), computed in 4x4
//     register-blocked AVX-512/AVX2 kernels of our own, in L2-sized panels, on
//     several cores when large. Engines and their buffers are pooled across
//     queries. It implements selectors.Similarities.
//   - FeatureCache keeps per-object text features (token counts, analysed
//     terms) keyed by class, tenant, object id and last update time, bounded
//     in bytes.
//
// Like package selectors, simcache imports nothing from Weaviate: the
// distancer and gonum kernels it was measured against appear only in its
// benchmarks.
package simcache
