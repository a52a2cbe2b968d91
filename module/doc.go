// Package diverseselect is the Weaviate module "diverse-select": after
// retrieval, it replaces a top-k result list by the best set of chunks for a
// language model's context - relevant, non-redundant, within a token budget -
// using the strategies of the selectors package.
//
// This package holds what Weaviate calls; the selection stage it runs is
// package engine, which the gateway (package gateway) runs too, in front of
// a stock Weaviate. Configuration is per class (moduleConfig["diverse-select"]
// or ["reranker-diverse-select"]), overridable per query, with module
// defaults from the environment (package config). Weaviate hands the module
// typed accessors through its registration glue (Weaviate,
// cmd/patch-weaviate).
//
// # Where to start
//
// The files stand in layers; each uses only its own layer and those under
// it (TestLayers holds them to it):
//
//   - The adapters Weaviate calls: module.go (diverse-select: the GraphQL
//     argument and field, the stage's entry point SelectResults),
//     reranker.go (reranker-diverse-select: the rerank field of gRPC and
//     GraphQL), segment.go (the segmentation endpoint; segment_outside.go
//     serves it in the gateway), capabilities.go
//     (the interfaces Weaviate and the glue assert).
//   - What they show Weaviate: meta.go (/v1/meta), graphql.go (the GraphQL
//     types of the argument and the field).
//
// docs/development.md says how to add a strategy, a route, a setting or a
// patch.
package diverseselect
