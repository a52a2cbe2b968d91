package diverseselect

import (
	"github.com/weaviate/weaviate/entities/models"

	"github.com/diverse-select/diverse-select/config"
)

// Request is one GraphQL query's diverse-select arguments, as Weaviate
// extracted them, and what the stage needs of the query's own arguments
// (SelectionArguments). A parse error is kept and reported by the stage,
// because Weaviate's extractors cannot return errors.
type Request struct {
	e *engine
	// route is the form the arguments came in: routeArgument or routeField.
	route   route
	query   *config.Overrides
	err     error
	hasArgs bool // the _additional field was given arguments
	// limitGiven, offsetGiven: the query gave a limit (the top-level form's
	// output cap) or an offset, even 0 (then the response says whether the
	// pool is spent); the search params keep only their values.
	limitGiven, offsetGiven bool
}

// HasArguments reports whether this is the _additional field with arguments:
// the selection-argument glue refuses a query that also gives the top-level
// argument, which would otherwise replace them silently.
func (r *Request) HasArguments() bool { return r.route == routeField && r.hasArgs }

// selectionArguments reads what the stage needs of the Get query's own
// arguments.
func (r *Request) selectionArguments(args map[string]any) {
	_, r.limitGiven = args["limit"]
	_, r.offsetGiven = args["offset"]
}

// resolveGraphQL is both GraphQL forms' entry point: the arguments Weaviate
// extracted, paged when the query gives an offset (even 0), and, where
// candidates size the pool, the query limit as the output cap.
func resolveGraphQL(e *engine, c *entry, class *models.Class, w window, s *searchFacts) (*config.Overrides, *settings, error) {
	r := c.req
	if r.err != nil {
		return nil, nil, r.err
	}
	s.offset, s.paged = w.offset, r.offsetGiven
	if routes[c.route].candidatesArePool && r.limitGiven && w.limit > 0 {
		s.limit = w.limit
	}
	st, err := e.settingsFor(class, c.route, r.query)
	if err != nil {
		return nil, nil, err
	}
	return r.query, st, nil
}
