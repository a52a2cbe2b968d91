// Package diverseselect is the Weaviate module "diverse-select": after
// retrieval, it replaces a top-k result list by the best set of chunks for a
// language model's context - relevant, non-redundant, within a token budget -
// using the strategies of the selectors package.
//
// It offers two query forms over one engine:
//
//   - the top-level Get argument diverseSelect: {...}, routed by a one-statement
//     patch in Weaviate's Get resolver (see cmd/patch-weaviate): the query limit
//     caps the output and candidates sizes the pool;
//   - the additional field _additional { diverseSelect(...) { ... } }, where the
//     query limit is the pool, as for Weaviate's rerankers.
//
// Configuration is per class (moduleConfig["diverse-select"]), overridable per
// query, with module defaults from the environment (package config).
//
// The module reranker-diverse-select (reranker.go) reaches the same engine
// through the rerank field of gRPC searches. Every route - route_argument.go,
// route_field.go (both through route_graphql.go) and route_rerank.go - builds
// one immutable query plan (plan.go, from the facts of the search in
// search.go) and ends in selectResults (hook.go); relevance.go holds the one
// relevance rule. Weaviate is reached through typed accessors its
// registration glue hands over (Weaviate), and capabilities.go asserts every
// capability the modules implement.
package diverseselect

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sirupsen/logrus"
	"github.com/weaviate/weaviate/entities/additional"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/modulecapabilities"
	"github.com/weaviate/weaviate/entities/moduletools"
	"github.com/weaviate/weaviate/entities/multi"
	"github.com/weaviate/weaviate/entities/schema"
	"github.com/weaviate/weaviate/entities/search"

	"github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/plugin/host"
	_ "github.com/diverse-select/diverse-select/selectors/all" // register every built-in strategy
	"github.com/diverse-select/diverse-select/selectors/tokens"
	"github.com/diverse-select/diverse-select/simcache"
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
	// MultiGet loads by id what a search did not: the properties of deferred
	// candidates (deferred.go), what a gRPC search left out (the rerank route).
	MultiGet MultiGetFunc
	// IsReranker tells Weaviate's reranker modules apart (nil: by the
	// "reranker-" name prefix).
	IsReranker func(name string) bool
}

// Module is the diverse-select Weaviate module.
type Module struct {
	classByName ClassByName
	logger      logrus.FieldLogger
	defaults    config.Module

	countersMu sync.Mutex
	counters   map[string]tokens.Counter

	// features caches token counts, analysed terms and the text per object
	// (nil = off).
	features *simcache.FeatureCache
	// multiGet reads objects by id (nil: no database at hand, unit tests):
	// the properties the search deferred (deferred.go).
	multiGet MultiGetFunc
	// metrics records selections when Weaviate's monitoring is on (nil = off).
	metrics *metrics
	// inflight bounds the memory of all concurrent selections (inflight.go).
	inflight *inflight
	// isReranker tells Weaviate's reranker modules apart (the rerank route
	// refuses a class that configures another one too).
	isReranker func(name string) bool
	// resolutions counts the queries whose settings were resolved (one per
	// query on every route; the stage's tests read it).
	resolutions atomic.Int64

	// plugins runs the external selector plugins, started once by Init.
	plugins     *host.Host
	pluginsOnce sync.Once
}

// New returns the module; classByName reads the live schema.
func New(classByName ClassByName) *Module {
	defaults, _ := config.FromEnv(func(string) string { return "" })
	return &Module{classByName: classByName, defaults: defaults, logger: logrus.New(), counters: map[string]tokens.Counter{},
		features: simcache.NewFeatureCache(defaults.FeatureCacheBytes()), inflight: newInflight(defaults),
		isReranker: func(name string) bool { return strings.HasPrefix(name, "reranker-") }}
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
	engine := New(w.ClassByName)
	engine.multiGet = w.MultiGet
	if w.IsReranker != nil {
		engine.isReranker = w.IsReranker
	}
	if enabled[Name] {
		out = append(out, engine)
	}
	if enabled[RerankerName] {
		out = append(out, NewReranker(engine, !enabled[Name], w))
	}
	return out
}

// Name implements modulecapabilities.Module.
func (m *Module) Name() string { return Name }

// Type implements modulecapabilities.Module.
func (m *Module) Type() modulecapabilities.ModuleType { return ModuleType }

// Init reads the module defaults from the environment; a bad value stops
// Weaviate's start-up with a message naming the variable.
// External selector plugins start first: their strategies are registered
// before DIVERSE_SELECT_STRATEGY, class configs and the GraphQL schema are
// checked against the registry.
func (m *Module) Init(ctx context.Context, params moduletools.ModuleInitParams) error {
	if l := params.GetLogger(); l != nil {
		m.logger = l.WithField("module", Name)
	}
	if err := m.startPlugins(); err != nil {
		return fmt.Errorf("%s: %w", Name, err)
	}
	defaults, err := config.FromEnv(nil)
	if err != nil {
		return fmt.Errorf("%s: %w", Name, err)
	}
	m.defaults = defaults
	m.features = simcache.NewFeatureCache(defaults.FeatureCacheBytes())
	m.inflight = newInflight(defaults)
	return m.initMetrics(params)
}

// Close implements modulecapabilities.ModuleWithClose: Weaviate's shutdown
// ends the plugin processes.
func (m *Module) Close() error {
	m.plugins.Close()
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
func (m *Module) validateClass(class *models.Class) error {
	raw := classConfig(class, Name)
	if raw == nil {
		return nil
	}
	return config.ValidateClass(raw, m.defaults, schemaOf(class))
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

func (m *Module) counter(name string) (tokens.Counter, error) {
	m.countersMu.Lock()
	defer m.countersMu.Unlock()
	if c, ok := m.counters[name]; ok {
		return c, nil
	}
	c, err := tokens.New(name)
	if err != nil {
		return nil, err
	}
	m.counters[name] = c
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
