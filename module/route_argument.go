package diverseselect

import "github.com/diverse-select/diverse-select/config"

// The argument route: Get { C(nearText: ..., limit: 10, diverseSelect: {...}) }.
// Weaviate extracts the argument (extractArgument), the selection-argument
// glue hands it to the selection stage with the query's arguments
// (route_graphql.go), and the stage resolves it (query.go): the query limit
// caps the output, candidates sizes the pool.

// parseArgument parses the top-level argument (GraphQL variables are
// already resolved into values here).
func (e *engine) parseArgument(raw map[string]any) *Request {
	r := &Request{e: e, route: routeArgument}
	r.query, r.err = config.Parse(raw, e.defaults.Limits)
	return r
}
