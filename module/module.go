package diverseselect

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/tailor-platform/graphql/language/ast"
	"github.com/weaviate/weaviate/entities/dto"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/modulecapabilities"
	"github.com/weaviate/weaviate/entities/moduletools"
	"github.com/weaviate/weaviate/entities/schema"
	"github.com/weaviate/weaviate/entities/search"

	"github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/engine"
	"github.com/diverse-select/diverse-select/segmentapi"
)

// Module is the diverse-select Weaviate module: the GraphQL forms'
// adapter over the engine it shares with reranker-diverse-select, and the
// segmentation endpoint.
type Module struct {
	e *engine.Engine

	// segment is the segmentation endpoint (segment.go, package
	// segmentapi): Init sets its encoders and limits, connect Weaviate's
	// authentication and authorization (nil: every request is refused).
	segment *segmentapi.Handler
}

// New returns the module over a new engine; classByName reads the live schema.
func New(classByName engine.ClassByName) *Module {
	segmentDefaults, _ := config.SegmentFromEnv(func(string) string { return "" })
	e := engine.New(classByName)
	return &Module{e: e, segment: segmentapi.New(e, segmentDefaults, nil, nil)}
}

// Weaviate is what the modules use of the running Weaviate, handed over
// typed by the registration glue (cmd/patch-weaviate, rest_register.go.txt),
// which holds Weaviate's app state: a rename in Weaviate breaks the build of
// the glue, not a query. A nil function is a part that is not there (unit
// tests).
type Weaviate struct {
	// ClassByName reads a class from the live schema.
	ClassByName engine.ClassByName
	// MultiGet loads by id what the pool's search left out: the texts and
	// vectors of candidates the feature cache does not hold, and the
	// selected objects (engine/deferred.go).
	MultiGet engine.MultiGetFunc
	// IsReranker tells Weaviate's reranker modules apart (nil: by the
	// "reranker-" name prefix).
	IsReranker func(name string) bool
	// Authenticate authenticates a request to the module's HTTP handler as
	// Weaviate's REST API does (API key or OIDC bearer token; without one,
	// anonymous when anonymous access is on, else an error); Authorize is
	// Weaviate's authorizer (RBAC, or the admin list). Weaviate mounts module
	// handlers ahead of its own authentication, so the handler calls them
	// itself; nil refuses every request.
	Authenticate func(r *http.Request) (*models.Principal, error)
	Authorize    func(ctx context.Context, principal *models.Principal, verb string, resources ...string) error
}

// connect gives the engine and the segmentation endpoint what Weaviate
// provides.
func (m *Module) connect(w Weaviate) {
	m.e.Connect(w.MultiGet, w.IsReranker)
	m.segment.Authenticate, m.segment.Authorize = w.Authenticate, w.Authorize
}

// EnabledModules returns the modules of this project that the comma-separated
// ENABLE_MODULES value names: diverse-select (GraphQL forms) and
// reranker-diverse-select (the gRPC rerank route), over one engine.
func EnabledModules(enableModules string, w Weaviate) []modulecapabilities.Module {
	enabled := map[string]bool{}
	for _, name := range strings.Split(enableModules, ",") {
		enabled[strings.TrimSpace(name)] = true
	}
	var out []modulecapabilities.Module
	m := New(w.ClassByName)
	m.connect(w)
	if enabled[engine.Name] {
		out = append(out, m)
	}
	if enabled[engine.RerankerName] {
		out = append(out, NewReranker(m, !enabled[engine.Name]))
	}
	return out
}

// Name implements modulecapabilities.Module.
func (m *Module) Name() string { return engine.Name }

// Type implements modulecapabilities.Module.
func (m *Module) Type() modulecapabilities.ModuleType { return engine.ModuleType }

// Init starts the engine - its defaults from the environment, its plugins,
// caches and metrics ((*engine.Engine).Init) - and reads the segmentation endpoint's
// settings.
func (m *Module) Init(ctx context.Context, params moduletools.ModuleInitParams) error {
	if err := m.e.Init(params); err != nil {
		return err
	}
	var err error
	if m.segment.Config, err = config.SegmentFromEnv(nil); err != nil {
		return fmt.Errorf("%s: %w", engine.Name, err)
	}
	return nil
}

// SelectResults implements the explorer's ResultSelector (the
// "selection-stage" glue): selected is false for a query that does not
// select with this module.
func (m *Module) SelectResults(ctx context.Context, params dto.GetParams, searchPool engine.SearchPool) ([]search.Result, bool, error) {
	return m.e.SelectResults(ctx, params, searchPool)
}

// Close implements modulecapabilities.ModuleWithClose: Weaviate's shutdown
// ends the plugin processes.
func (m *Module) Close() error {
	m.e.Close()
	return nil
}

// MutableModuleConfig opts in to class config updates (see the
// "mutable-config" patch): selection defaults are tuning, not data layout.
func (m *Module) MutableModuleConfig() bool { return true }

// ClassConfigDefaults implements modulecapabilities.ClassConfigurator; the
// defaults are merged at query time so that changing the module's environment
// applies to every class.
func (m *Module) ClassConfigDefaults() map[string]any { return map[string]any{} }

// PropertyConfigDefaults implements modulecapabilities.ClassConfigurator.
func (m *Module) PropertyConfigDefaults(*schema.DataType) map[string]any { return nil }

// AdditionalProperties implements modulecapabilities.AdditionalProperties.
func (m *Module) AdditionalProperties() map[string]modulecapabilities.AdditionalProperty {
	return map[string]modulecapabilities.AdditionalProperty{
		engine.ArgName: {
			GraphQLNames:           []string{engine.ArgName},
			GraphQLFieldFunction:   additionalField,
			GraphQLExtractFunction: m.extractField,
			SearchFunctions: modulecapabilities.AdditionalSearch{
				ExploreGet:  m.e.FieldHook(),
				ExploreList: m.e.FieldHook(),
			},
		},
	}
}

// Arguments implements modulecapabilities.GraphQLArguments: the top-level
// diverseSelect argument of Get.
func (m *Module) Arguments() map[string]modulecapabilities.GraphQLArgument {
	return map[string]modulecapabilities.GraphQLArgument{
		engine.ArgName: {
			GetArgumentsFunction: getArgument,
			ExtractFunction:      m.extractArgument,
		},
	}
}

// The adapter's entry points: each enters the engine through a guard
// (engine.Guard).

// MetaInfo is shown in /v1/meta (see metaInfo).
func (m *Module) MetaInfo() (info map[string]any, err error) {
	err = engine.Guard(m.e.Logger(), "meta info", func() error {
		var merr error
		info, merr = metaInfo(m.e)
		return merr
	})
	return info, err
}

// extractArgument parses the top-level argument (Weaviate's
// GraphQLArgument.ExtractFunction); a failure travels in the Request to the
// selection stage ((*engine.Engine).ParseArgument).
func (m *Module) extractArgument(raw map[string]any) (any, *dto.TargetCombination, error) {
	return m.e.ParseArgument(raw), nil, nil
}

// extractField parses _additional { diverseSelect(...) } (Weaviate's
// GraphQLExtractFunction).
func (m *Module) extractField(args []*ast.Argument, class *models.Class) any {
	return m.e.ParseField(args, class)
}

// ValidateClass refuses a class whose diverse-select config is invalid, on
// create and on update, with a message naming the key and the allowed values.
func (m *Module) ValidateClass(_ context.Context, class *models.Class, _ moduletools.ClassConfig) error {
	return engine.Named(engine.ArgName, engine.Guard(m.e.Logger(), "class config validation", func() error { return m.e.ValidateClass(class) }))
}
