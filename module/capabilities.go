package diverseselect

import (
	"context"

	"github.com/weaviate/weaviate/entities/dto"
	"github.com/weaviate/weaviate/entities/modulecapabilities"
	"github.com/weaviate/weaviate/entities/search"

	"github.com/diverse-select/diverse-select/engine"
)

// Every capability the two modules implement, checked by the compiler: Weaviate
// finds a capability by type assertion at run time, so a mistyped method
// would silently drop it.
var (
	_ modulecapabilities.Module                 = (*Module)(nil)
	_ modulecapabilities.ModuleWithClose        = (*Module)(nil)
	_ modulecapabilities.MetaProvider           = (*Module)(nil)
	_ modulecapabilities.ClassConfigurator      = (*Module)(nil)
	_ modulecapabilities.AdditionalProperties   = (*Module)(nil)
	_ modulecapabilities.GraphQLArguments       = (*Module)(nil)
	_ mutableConfig                             = (*Module)(nil)
	_ modulecapabilities.ModuleWithHTTPHandlers = (*Module)(nil)

	_ modulecapabilities.Module               = (*Reranker)(nil)
	_ modulecapabilities.ModuleWithClose      = (*Reranker)(nil)
	_ modulecapabilities.MetaProvider         = (*Reranker)(nil)
	_ modulecapabilities.ClassConfigurator    = (*Reranker)(nil)
	_ modulecapabilities.AdditionalProperties = (*Reranker)(nil)
	_ mutableConfig                           = (*Reranker)(nil)

	_ resultSelector = (*Module)(nil)
	_ resultSelector = (*Reranker)(nil)

	_ selectionArgument = (*engine.Request)(nil)
)

// The interfaces our glue in Weaviate's packages (cmd/patch-weaviate/glue)
// asserts, restated here so that a change on either side fails the build.
type (
	// mutableConfig: schema_mutable.go.txt, mutableModuleConfigUpdate.
	mutableConfig interface{ MutableModuleConfig() bool }
	// resultSelector: explorer_selection.go.txt, the explorer's ResultSelector.
	resultSelector interface {
		SelectResults(ctx context.Context, params dto.GetParams,
			searchPool func(context.Context, dto.GetParams) ([]search.Result, error),
		) (out []search.Result, selected bool, err error)
	}
	// selectionArgument: get_selection_args.go.txt, the extracted argument values.
	selectionArgument interface {
		SelectionArguments(args map[string]interface{}) error
		HasArguments() bool
	}
)
