package diverseselect

import (
	"github.com/diverse-select/diverse-select/config"
)

// form tells the two GraphQL forms apart.
type form int

const (
	formArgument form = iota // top-level diverseSelect: {...} (route_argument.go)
	formField                // _additional { diverseSelect(...) } (route_field.go)
)

// Request is one GraphQL query's diverse-select arguments, as Weaviate
// extracted them, and what the stage needs of the query's own arguments
// (SelectionArguments). A parse error is kept and reported by the stage,
// because Weaviate's extractors cannot return errors.
type Request struct {
	e       *engine
	form    form
	query   *config.Overrides
	err     error
	hasArgs bool // the _additional field was given arguments
	// limitGiven, offsetGiven: the query gave a limit (the top-level form's
	// output cap) or an offset, even 0 (then the response says whether the
	// pool is spent); the search params keep only their values.
	limitGiven, offsetGiven bool
	// settings: set only by crossEncoderRequest, which resolves them as it
	// reads them; the stage resolves the GraphQL forms' (query.go).
	settings *settings
}

// route names the GraphQL form r arrived by.
func (r *Request) route() string {
	if r.form == formArgument {
		return routeArgument
	}
	return routeField
}

// HasArguments reports whether this is the _additional field with arguments:
// the selection-argument glue refuses a query that also gives the top-level
// argument, which would otherwise replace them silently.
func (r *Request) HasArguments() bool { return r.form == formField && r.hasArgs }

// selectionArguments reads what the stage needs of the Get query's own
// arguments.
func (r *Request) selectionArguments(args map[string]any) {
	_, r.limitGiven = args["limit"]
	_, r.offsetGiven = args["offset"]
}
