package diverseselect

import (
	"fmt"
	"strconv"

	"github.com/tailor-platform/graphql/language/ast"
	"github.com/weaviate/weaviate/entities/models"

	"github.com/diverse-select/diverse-select/config"
)

// The field route: _additional { diverseSelect(...) { ... } }. Weaviate hands
// the field's raw syntax to extractField; the selection stage resolves it
// (query.go); the query limit is the pool, as for rerankers.

// parseField parses _additional { diverseSelect(...) } from the raw AST.
func (e *engine) parseField(args []*ast.Argument, class *models.Class) *Request {
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
	r.query, r.err = config.Parse(raw, e.defaults.Limits)
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
