// Package diverseselect is the Weaviate module "diverse-select": after
// retrieval, it replaces a top-k result list by the best set of chunks for a
// language model's context - relevant, non-redundant, within a token budget -
// using the strategies of the selectors package.
//
// Files by job:
//
//   - the adapters Weaviate holds: module.go (diverse-select: the GraphQL
//     argument and field) and reranker.go (reranker-diverse-select: the
//     rerank field of gRPC and GraphQL), over one engine (engine.go: the
//     defaults, caches, in-flight bound, metrics, plugins and reads by id),
//     and standalone.go, the same engine outside Weaviate for the gateway
//     (package gateway: the stage over a stock Weaviate's gRPC API);
//   - the stage (stage.go): Weaviate's explorer offers each query to
//     SelectResults (the "selection-stage" patch, cmd/patch-weaviate); a
//     query resolves once into a plan (query.go, plan.go, from the facts of
//     its search in search.go), its pool is searched, selected
//     (select.go, relevance.go, evidence.go, multivector.go), widened
//     (widen.go), and its selected objects read (deferred.go, versions.go);
//   - the routes, where a query's settings come from: route_argument.go and
//     route_field.go (through route_graphql.go), route_rerank.go and
//     route_cross_encoder.go, with the rerank settings' forms
//     (rerank_settings.go, rerank_syntax.go);
//   - guard.go, limits.go, inflight.go, metrics.go, meta.go, plugins.go:
//     what keeps a query from harming the database, and what reports on it;
//     status.go, the gRPC status each error leaves with.
//
// Configuration is per class (moduleConfig["diverse-select"]), overridable
// per query, with module defaults from the environment (package config).
// Weaviate is reached through typed accessors its registration glue hands
// over (Weaviate), and capabilities.go asserts every capability the modules
// implement.
package diverseselect

import (
	"context"
	"net/http"
	"strings"

	"github.com/tailor-platform/graphql/language/ast"
	"github.com/weaviate/weaviate/entities/additional"
	"github.com/weaviate/weaviate/entities/dto"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/modulecapabilities"
	"github.com/weaviate/weaviate/entities/moduletools"
	"github.com/weaviate/weaviate/entities/multi"
	"github.com/weaviate/weaviate/entities/schema"
	"github.com/weaviate/weaviate/entities/search"

	"github.com/diverse-select/diverse-select/config"
	_ "github.com/diverse-select/diverse-select/selectors/all" // register every built-in strategy
	"github.com/diverse-select/diverse-select/selectors/tokens"
)

// Name is the module's name in ENABLE_MODULES and in a class's moduleConfig.
const Name = "diverse-select"

// ArgName is the GraphQL name of the argument and of the additional field.
const ArgName = "diverseSelect"

// Version is reported in /v1/meta.
const Version = "0.1.0"

// ModuleType is a type of our own: Weaviate exposes a non-vectorizer module on
// every class when it is the only module of its type, which is what a
// post-processor wants (a reranker type would be hidden on classes that do not
// configure it).
const ModuleType = modulecapabilities.ModuleType("Text2TextSelection")

// ClassByName reads a class from the schema.
type ClassByName func(name string) *models.Class

// MultiGetFunc loads objects by id from a tenant: Weaviate's DB.MultiGet.
type MultiGetFunc func(ctx context.Context, ids []multi.Identifier, addl additional.Properties, tenant string) ([]search.Result, error)

// Weaviate is what the modules use of the running Weaviate, handed over
// typed by the registration glue (cmd/patch-weaviate, rest_register.go.txt),
// which holds Weaviate's app state: a rename in Weaviate breaks the build of
// the glue, not a query. A nil function is a part that is not there (unit
// tests).
type Weaviate struct {
	// ClassByName reads a class from the live schema.
	ClassByName ClassByName
	// MultiGet loads by id what the pool's search left out: the texts and
	// vectors of candidates the feature cache does not hold, and the
	// selected objects (deferred.go).
	MultiGet MultiGetFunc
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

// validateClass refuses a class whose diverse-select config is invalid, on
// create and on update, with a message naming the key and the allowed values.
func (e *engine) validateClass(class *models.Class) error {
	raw := classConfig(class, Name)
	if raw == nil {
		return nil
	}
	return config.ValidateClass(raw, e.defaults, schemaOf(class))
}

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

func (e *engine) counter(name string) (tokens.Counter, error) {
	e.countersMu.Lock()
	defer e.countersMu.Unlock()
	if c, ok := e.counters[name]; ok {
		return c, nil
	}
	c, err := tokens.New(name)
	if err != nil {
		return nil, err
	}
	e.counters[name] = c
	return c, nil
}

// classConfig returns the class's moduleConfig[name], or nil.
func classConfig(class *models.Class, name string) map[string]any {
	if class == nil {
		return nil
	}
	all, _ := class.ModuleConfig.(map[string]any)
	cfg, _ := all[name].(map[string]any)
	return cfg
}

// schemaOf summarises a class for config validation.
func schemaOf(class *models.Class) config.Schema {
	s := config.Schema{Properties: map[string]string{}}
	for _, p := range class.Properties {
		if len(p.DataType) == 1 {
			s.Properties[p.Name] = p.DataType[0]
		}
	}
	for name := range class.VectorConfig {
		s.NamedVectors = append(s.NamedVectors, name)
	}
	return s
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
