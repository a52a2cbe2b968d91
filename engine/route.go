package engine

import (
	"github.com/weaviate/weaviate/entities/models"

	"github.com/diverse-select/diverse-select/config"
)

// route is how a query reaches the selection stage. What differs between
// the routes is one row of routes, its entry point included (in a
// route_*.go file). Adding a route is a constant, its row and entry point,
// and the case of arrivalOf (stage.go) that recognises the query.
type route uint8

const (
	routeNone         route = iota // not a selection: the stage lets the query pass
	routeArgument                  // Get { C(diverseSelect: {...}) } (route_graphql.go)
	routeField                     // _additional { diverseSelect(...) } (route_graphql.go)
	routeRerank                    // a rerank by reranker-diverse-select (route_rerank.go)
	routeCrossEncoder              // a rerank by another module whose property carries settings (route_rerank.go)
)

// routeRow is what differs between the routes.
type routeRow struct {
	// label names the route in the metrics and the log.
	label string
	// config is the moduleConfig key of the class's settings and policy.
	config string
	// errPrefix names the module in the route's errors.
	errPrefix string
	// resolve is the route's entry point: it reads the query's settings,
	// merged over the class's config, and sets what the route decides of
	// the search - the offset, whether the query pages, the output cap. It
	// is given its own row (a row's function cannot name the table).
	resolve func(e *Engine, c *arrival, row *routeRow, class *models.Class, w window, s *searchFacts) (*config.Overrides, *settings, error)
	// candidatesArePool: the candidates setting sizes the pool; otherwise
	// the query limit does, under the class's pool policy.
	candidatesArePool bool
	// ownsRerank: the query's rerank call is this module's (no other
	// reranker scores the pool); reranksFirst: another reranker scores the
	// pool first, called with the rerank property's plain name.
	ownsRerank, reranksFirst bool
	// rerankScores: the reply gives each selected object a rerank score;
	// explainsInScore: a query that asks for explainScore gets each
	// object's explanation there (a gRPC reply carries no _additional).
	rerankScores, explainsInScore bool
}

// routes holds one row per route.
var routes = [...]routeRow{
	routeNone: {label: "none"},
	routeArgument: {label: "argument", config: Name, errPrefix: ArgName, resolve: resolveGraphQL,
		candidatesArePool: true},
	routeField: {label: "field", config: Name, errPrefix: ArgName, resolve: resolveGraphQL},
	routeRerank: {label: "rerank", config: RerankerName, errPrefix: RerankerName + ": rerank", resolve: resolveRerank,
		ownsRerank: true, rerankScores: true, explainsInScore: true},
	// The cross-encoder's settings are the field form's, carried in the
	// rerank property: its metrics and log lines count under "field".
	routeCrossEncoder: {label: "field", config: Name, errPrefix: ArgName, resolve: resolveCrossEncoder,
		reranksFirst: true, explainsInScore: true},
}

// String is the route's label in the metrics and the log.
func (r route) String() string { return routes[r].label }
