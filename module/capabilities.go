package diverseselect

import (
	"github.com/weaviate/weaviate/entities/additional"
	"github.com/weaviate/weaviate/entities/filters"
	"github.com/weaviate/weaviate/entities/modulecapabilities"
)

// Every capability the two modules implement, checked by the compiler: Weaviate
// finds a capability by type assertion at run time, so a mistyped method
// would silently drop it.
var (
	_ modulecapabilities.Module               = (*Module)(nil)
	_ modulecapabilities.ModuleWithClose      = (*Module)(nil)
	_ modulecapabilities.MetaProvider         = (*Module)(nil)
	_ modulecapabilities.ClassConfigurator    = (*Module)(nil)
	_ modulecapabilities.AdditionalProperties = (*Module)(nil)
	_ modulecapabilities.GraphQLArguments     = (*Module)(nil)
	_ mutableConfig                           = (*Module)(nil)

	_ modulecapabilities.Module               = (*Reranker)(nil)
	_ modulecapabilities.ModuleWithClose      = (*Reranker)(nil)
	_ modulecapabilities.MetaProvider         = (*Reranker)(nil)
	_ modulecapabilities.ClassConfigurator    = (*Reranker)(nil)
	_ modulecapabilities.AdditionalProperties = (*Reranker)(nil)
	_ mutableConfig                           = (*Reranker)(nil)

	_ postProcessor = (*Request)(nil)
)

// The interfaces our glue in Weaviate's packages (cmd/patch-weaviate/glue)
// asserts, restated here so that a change on either side fails the build.
type (
	// mutableConfig: schema_mutable.go.txt, mutableModuleConfigUpdate.
	mutableConfig interface{ MutableModuleConfig() bool }
	// postProcessor: get_postprocess.go.txt, the extracted argument values.
	postProcessor interface {
		PreparePostProcess(className, tenant string, args map[string]interface{},
			pagination *filters.Pagination, addl *additional.Properties) (*filters.Pagination, error)
		GetPropertiesToExtract() []string
		HasArguments() bool
	}
)
