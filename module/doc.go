// Package diverseselect is the Weaviate module "diverse-select": after
// retrieval, it replaces a top-k result list by the best set of chunks for a
// language model's context - relevant, non-redundant, within a token budget -
// using the strategies of the selectors package.
//
// Configuration is per class (moduleConfig["diverse-select"] or
// ["reranker-diverse-select"]), overridable per query, with module defaults
// from the environment (package config). Weaviate hands the module typed
// accessors through its registration glue (Weaviate, cmd/patch-weaviate).
//
// # Where to start
//
// The files stand in layers; each uses only its own layer and those under
// it (TestLayers holds them to it). Read them top-down:
//
//   - The adapters Weaviate calls: module.go (diverse-select: the GraphQL
//     argument and field), reranker.go (reranker-diverse-select: the rerank
//     field of gRPC and GraphQL), standalone.go (the same engine in the
//     gateway, in front of a stock Weaviate), segment.go (the segmentation
//     endpoint), meta.go, graphql.go, capabilities.go.
//   - The stage and the query: stage.go is the entry point of every query
//     (SelectResults, the "selection-stage" patch). arrivalOf tells by
//     which route a query arrives; the route's entry point (route_graphql.go,
//     route_rerank.go, with the rerank settings' forms in rerank_settings.go
//     and rerank_syntax.go) reads its settings; query.go resolves them once
//     into a plan; search.go reads and sets the params of the search that
//     fetches the pool.
//   - Selection and reads: select.go selects from a pool and explains the
//     selected objects; problem.go turns the candidates into a
//     selectors.Problem; deferred.go and versions.go read what the search left
//     out; features.go, relevance.go, evidence.go, multivector.go and limits.go
//     (the time cap) serve them.
//   - The plan (plan.go) and the route table (route.go): what differs per
//     route is one row of routes.
//   - The engine (engine.go): the state the adapters share - defaults,
//     caches, the in-flight bound, metrics, plugins, reads by id. A query
//     keeps its own state in one query value.
//   - The leaves: metrics.go, errors.go, guard.go (a panic becomes the
//     query's error), status.go (the gRPC status an error leaves with),
//     inflight.go (the memory bound), over names.go.
//
// docs/development.md says how to add a strategy, a route, a setting or a
// patch.
package diverseselect
