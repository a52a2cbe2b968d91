package diverseselect

import (
	"context"
	"strings"

	"github.com/tailor-platform/graphql/language/ast"
	"github.com/weaviate/weaviate/entities/dto"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/modulecapabilities"
	"github.com/weaviate/weaviate/entities/moduletools"
	"github.com/weaviate/weaviate/entities/schema"
	"github.com/weaviate/weaviate/entities/search"

	_ "github.com/diverse-select/diverse-select/selectors/all" // register every built-in strategy
)

// Module is the diverse-select Weaviate module: the GraphQL forms'
// adapter over the engine it shares with reranker-diverse-select.
type Module struct {
	*engine
}

// New returns the module over a new engine; classByName reads the live schema.
func New(classByName ClassByName) *Module {
	return &Module{engine: newEngine(classByName)}
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
	if enabled[Name] {
		out = append(out, m)
	}
	if enabled[RerankerName] {
		out = append(out, NewReranker(m, !enabled[Name]))
	}
	return out
}

// Name implements modulecapabilities.Module.
func (m *Module) Name() string { return Name }

// Type implements modulecapabilities.Module.
func (m *Module) Type() modulecapabilities.ModuleType { return ModuleType }

// Init starts the engine: its defaults from the environment, its plugins,
// caches and metrics (engine.init).
func (m *Module) Init(ctx context.Context, params moduletools.ModuleInitParams) error {
	return m.init(params)
}

// SelectResults implements the explorer's ResultSelector (the
// "selection-stage" glue): selected is false for a query that does not
// select with this module.
func (m *Module) SelectResults(ctx context.Context, params dto.GetParams, searchPool SearchPool) ([]search.Result, bool, error) {
	return m.selectResults(ctx, params, searchPool)
}

// Close implements modulecapabilities.ModuleWithClose: Weaviate's shutdown
// ends the plugin processes.
func (m *Module) Close() error {
	m.close()
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
		ArgName: {
			GraphQLNames:           []string{ArgName},
			GraphQLFieldFunction:   additionalField,
			GraphQLExtractFunction: m.extractField,
			SearchFunctions: modulecapabilities.AdditionalSearch{
				ExploreGet:  m.countingErrors(routeField, m.selectHook),
				ExploreList: m.countingErrors(routeField, m.selectHook),
			},
		},
	}
}

// Arguments implements modulecapabilities.GraphQLArguments: the top-level
// diverseSelect argument of Get.
func (m *Module) Arguments() map[string]modulecapabilities.GraphQLArgument {
	return map[string]modulecapabilities.GraphQLArgument{
		ArgName: {
			GetArgumentsFunction: getArgument,
			ExtractFunction:      m.extractArgument,
		},
	}
}

// The adapter's entry points: each enters the engine through a guard
// (guard.go).

// MetaInfo is shown in /v1/meta (see metaInfo).
func (m *Module) MetaInfo() (info map[string]any, err error) {
	err = guard(m.logger, "meta info", func() error {
		var merr error
		info, merr = m.metaInfo()
		return merr
	})
	return info, err
}

// extractArgument parses the top-level argument (Weaviate's
// GraphQLArgument.ExtractFunction). Extractors cannot return errors to
// Weaviate, so a failure travels in the Request to the selection stage.
func (m *Module) extractArgument(raw map[string]any) (any, *dto.TargetCombination, error) {
	var r *Request
	if err := guard(m.logger, "argument parsing", func() error { r = m.parseArgument(raw); return nil }); err != nil {
		r = &Request{e: m.engine, route: routeArgument, err: err}
	}
	return r, nil, nil
}

// extractField parses _additional { diverseSelect(...) } (Weaviate's
// GraphQLExtractFunction).
func (m *Module) extractField(args []*ast.Argument, class *models.Class) any {
	var r *Request
	if err := guard(m.logger, "argument parsing", func() error { r = m.parseField(args, class); return nil }); err != nil {
		r = &Request{e: m.engine, route: routeField, hasArgs: len(args) > 0, err: err}
	}
	return r
}

// ValidateClass refuses a class whose diverse-select config is invalid, on
// create and on update, with a message naming the key and the allowed values.
func (m *Module) ValidateClass(_ context.Context, class *models.Class, _ moduletools.ClassConfig) error {
	return named(ArgName, guard(m.logger, "class config validation", func() error { return m.validateClass(class) }))
}

// selectHook is the result hook of _additional { diverseSelect }. The
// selection stage takes every query that asks for it before its hooks run,
// so a query reaches the hook only by a path that has no stage.
func (m *Module) selectHook(context.Context, []search.Result, any, *int, map[string]any, moduletools.ClassConfig) ([]search.Result, error) {
	return nil, named(ArgName, errNoStage)
}

// countingErrors wraps a result hook so that its errors are counted by kind.
func (e *engine) countingErrors(route route, hook modulecapabilities.AdditionalPropertyFn) modulecapabilities.AdditionalPropertyFn {
	return func(ctx context.Context, in []search.Result, params any, limit *int,
		args map[string]any, cfg moduletools.ClassConfig,
	) ([]search.Result, error) {
		out, err := hook(ctx, in, params, limit, args, cfg)
		if err != nil {
			at := route
			if r, ok := params.(*Request); ok && r != nil {
				at = r.route
			}
			e.metrics.failure(at.String(), err)
		}
		return out, err
	}
}
