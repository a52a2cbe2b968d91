// Package engine is diverse-select's selection stage, the one both adapters
// run: the Weaviate module (package module, inside a patched Weaviate) and
// the gateway (package gateway, in front of a stock Weaviate, through
// Standalone). A query arrives by one of the routes, its settings are
// resolved once into a plan, the pool is searched, the selectors package
// selects from it, and the selected objects are read and explained.
//
// # Where to start
//
// The files stand in layers; each uses only its own layer and those under
// it (TestLayers holds them to it). Read them top-down:
//
//   - The gateway's entry: standalone.go and standalone_create.go (the
//     engine outside Weaviate; only the search and the reads by id are the
//     gateway's).
//   - The stage and the query: stage.go is the entry point of every query
//     (SelectResults, the "selection-stage" patch); hooks.go holds the result
//     hooks a query reaches only by a path without the stage. arrivalOf
//     tells by which route a query arrives; the route's entry point
//     (route_graphql.go, route_rerank.go, with the rerank settings' forms in
//     rerank_settings.go and rerank_syntax.go) reads its settings; query.go
//     resolves them once into a plan; search.go reads and sets the params of
//     the search that fetches the pool.
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
package engine
