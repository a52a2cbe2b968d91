package engine

import (
	"fmt"
	"strconv"

	"github.com/tailor-platform/graphql/language/ast"
	"github.com/weaviate/weaviate/entities/models"

	"github.com/diverse-select/diverse-select/config"
)

// The two GraphQL routes.
//
// The argument route: Get { C(nearText: ..., limit: 10, diverseSelect: {...}) }.
// Weaviate extracts the argument (extractArgument), the selection-argument
// glue hands it to the selection stage with the query's arguments
// (SelectionArguments), and the stage resolves it (resolveGraphQL): the
// query limit caps the output, candidates sizes the pool.
//
// The field route: _additional { diverseSelect(...) { ... } }. Weaviate hands
// the field's raw syntax to extractField; the stage resolves it
// (resolveGraphQL); the query limit is the pool, as for rerankers.

// Request is one GraphQL query's diverse-select arguments, as Weaviate
// extracted them, and what the stage needs of the query's own arguments
// (SelectionArguments). A parse error is kept and reported by the stage,
// because Weaviate's extractors cannot return errors.
type Request struct {
	e *Engine
	// route is the form the arguments came in: routeArgument or routeField.
	route     route
	overrides *config.Overrides
	err       error
	hasArgs   bool // the _additional field was given arguments
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
func resolveGraphQL(e *Engine, c *arrival, row *routeRow, class *models.Class, w window, s *searchFacts) (*config.Overrides, *settings, error) {
	r := c.req
	if r.err != nil {
		return nil, nil, r.err
	}
	s.offset, s.paged = w.offset, r.offsetGiven
	if row.candidatesArePool && r.limitGiven && w.limit > 0 {
		s.limit = w.limit
	}
	st, err := e.settingsFor(class, row.config, r.overrides)
	if err != nil {
		return nil, nil, err
	}
	return r.overrides, st, nil
}

// ParseArgument parses the top-level argument (Weaviate's
// GraphQLArgument.ExtractFunction). Extractors cannot return errors to
// Weaviate, so a failure, a panic included, travels in the Request to the
// selection stage.
func (e *Engine) ParseArgument(raw map[string]any) *Request {
	var r *Request
	if err := Guard(e.logger, "argument parsing", func() error { r = e.parseArgument(raw); return nil }); err != nil {
		r = &Request{e: e, route: routeArgument, err: err}
	}
	return r
}

// ParseField parses _additional { diverseSelect(...) } (Weaviate's
// GraphQLExtractFunction), a failure travelling as ParseArgument's.
func (e *Engine) ParseField(args []*ast.Argument, class *models.Class) *Request {
	var r *Request
	if err := Guard(e.logger, "argument parsing", func() error { r = e.parseField(args, class); return nil }); err != nil {
		r = &Request{e: e, route: routeField, hasArgs: len(args) > 0, err: err}
	}
	return r
}

// parseArgument parses the top-level argument (GraphQL variables are
// already resolved into values here).
func (e *Engine) parseArgument(raw map[string]any) *Request {
	r := &Request{e: e, route: routeArgument}
	r.overrides, r.err = config.Parse(raw, e.defaults.Limits)
	return r
}

// parseField parses _additional { diverseSelect(...) } from the raw AST.
func (e *Engine) parseField(args []*ast.Argument, class *models.Class) *Request {
	r := &Request{e: e, route: routeField, hasArgs: len(args) > 0}
	raw := map[string]any{}
	for _, a := range args {
		v, err := astValue(a.Name.Value, a.Value)
		if err != nil {
			r.err = err
			return r
		}
		raw[a.Name.Value] = v
	}
	r.overrides, r.err = config.Parse(raw, e.defaults.Limits)
	return r
}

// astValue turns a GraphQL literal into the value config.Parse expects.
func astValue(name string, v ast.Value) (any, error) {
	switch x := v.(type) {
	case *ast.StringValue:
		return x.Value, nil
	case *ast.EnumValue:
		return x.Value, nil
	case *ast.BooleanValue:
		return x.Value, nil
	case *ast.IntValue:
		n, err := strconv.ParseInt(x.Value, 10, 64)
		if err != nil {
			return nil, &config.Error{Key: name, Msg: fmt.Sprintf("is %s, not a 64-bit integer", x.Value)}
		}
		return n, nil
	case *ast.FloatValue:
		f, err := strconv.ParseFloat(x.Value, 64)
		if err != nil {
			return nil, &config.Error{Key: name, Msg: fmt.Sprintf("is %s, not a number", x.Value)}
		}
		return f, nil
	case *ast.ListValue:
		// Lists hold strings (extraTextProperties): a list inside a list is
		// never a valid value, and refusing it bounds this recursion.
		for _, e := range x.Values {
			if _, nested := e.(*ast.ListValue); nested {
				return nil, &config.Error{Key: name, Msg: "is a list of lists; allowed: a list of strings"}
			}
		}
		out := make([]any, len(x.Values))
		for i, e := range x.Values {
			ev, err := astValue(name, e)
			if err != nil {
				return nil, err
			}
			out[i] = ev
		}
		return out, nil
	case *ast.Variable:
		return nil, &config.Error{Key: name, Msg: "is a variable; _additional { diverseSelect(...) } takes literal values only " +
			"(Weaviate passes this field's raw syntax): use literals, or the top-level diverseSelect argument, which supports variables"}
	}
	return nil, &config.Error{Key: name, Msg: fmt.Sprintf("has an unsupported value of kind %s", v.GetKind())}
}

// SelectionArguments is called by the selection-argument glue in
// Weaviate's Get resolver with the query's arguments (see Request).
func (r *Request) SelectionArguments(args map[string]any) error {
	if err := Guard(r.e.logger, "query arguments", func() error { r.selectionArguments(args); return nil }); err != nil {
		r.err = err // reported by the stage
	}
	return nil
}
