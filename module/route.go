package diverseselect

// route is how a query reaches the selection stage. What differs between
// the routes is one row of routes; each route has one entry point in a
// route_*.go file, which route.resolve (query.go) calls. Adding a route is a
// constant, its row, its entry point with its case in route.resolve, and the
// case of arrivalOf (stage.go) that recognises the query.
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
	routeArgument: {label: "argument", config: Name, errPrefix: ArgName,
		candidatesArePool: true},
	routeField: {label: "field", config: Name, errPrefix: ArgName},
	routeRerank: {label: "rerank", config: RerankerName, errPrefix: RerankerName + ": rerank",
		ownsRerank: true, rerankScores: true, explainsInScore: true},
	// The cross-encoder's settings are the field form's, carried in the
	// rerank property: its metrics and log lines count under "field".
	routeCrossEncoder: {label: "field", config: Name, errPrefix: ArgName,
		reranksFirst: true, explainsInScore: true},
}

// String is the route's label in the metrics and the log.
func (r route) String() string { return routes[r].label }
