package engine

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sirupsen/logrus"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/moduletools"

	"github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/plugin/host"
	_ "github.com/diverse-select/diverse-select/selectors/all" // register every built-in strategy
	"github.com/diverse-select/diverse-select/selectors/tokens"
	"github.com/diverse-select/diverse-select/simcache"
)

// Engine is the state the adapters share - the module's diverse-select
// and reranker-diverse-select (package module) hold one engine between
// them, and the gateway runs one (Standalone): the defaults, the token counters, the feature cache, the
// in-flight bound, the metrics, the plugins and the reads by id. A query
// enters it through the selection stage (stage.go) and keeps its own state
// in one query value; nothing of a query is stored here.
type Engine struct {
	classByName ClassByName
	logger      logrus.FieldLogger
	defaults    config.Module

	countersMu sync.Mutex
	counters   map[string]tokens.Counter

	// features caches token counts, analysed terms and the text per object
	// (nil = off).
	features *simcache.FeatureCache
	// multiGet reads objects by id (nil: no database at hand, unit tests):
	// the properties and vectors the pool's search left out (deferred.go).
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

// New returns an engine with the built-in defaults; classByName reads the
// live schema (Init reads the environment's defaults).
func New(classByName ClassByName) *Engine {
	defaults, _ := config.FromEnv(func(string) string { return "" })
	return &Engine{classByName: classByName, defaults: defaults, logger: logrus.New(), counters: map[string]tokens.Counter{},
		features: simcache.NewFeatureCache(defaults.FeatureCacheBytes()), inflight: newInflight(defaults),
		isReranker: func(name string) bool { return strings.HasPrefix(name, "reranker-") }}
}

// Init reads the defaults from the environment; a bad value stops
// Weaviate's start-up with a message naming the variable. External selector
// plugins start first: their strategies are registered before
// DIVERSE_SELECT_STRATEGY, class configs and the GraphQL schema are checked
// against the registry.
func (e *Engine) Init(params moduletools.ModuleInitParams) error {
	if l := params.GetLogger(); l != nil {
		e.logger = l.WithField("module", Name)
	}
	if err := e.startPlugins(); err != nil {
		return fmt.Errorf("%s: %w", Name, err)
	}
	defaults, err := config.FromEnv(nil)
	if err != nil {
		return fmt.Errorf("%s: %w", Name, err)
	}
	e.defaults = defaults
	e.features = simcache.NewFeatureCache(defaults.FeatureCacheBytes())
	e.inflight = newInflight(defaults)
	return e.initMetrics(params)
}

// Connect gives the engine what Weaviate provides: reads by id (the
// deferred properties) and the reranker modules' names (nil: by the
// "reranker-" prefix).
func (e *Engine) Connect(multiGet MultiGetFunc, isReranker func(name string) bool) {
	e.multiGet = multiGet
	if isReranker != nil {
		e.isReranker = isReranker
	}
}

// Close ends the plugin processes.
func (e *Engine) Close() { e.plugins.Close() }

// startPlugins starts the external selector plugins the environment names
// (package plugin/host), once per process: the two module names share this
// engine. A broken plugin does not stop Weaviate; a malformed variable does.
func (e *Engine) startPlugins() error {
	var err error
	e.pluginsOnce.Do(func() {
		var cfg config.Plugins
		if cfg, err = config.PluginsFromEnv(nil); err == nil {
			e.plugins = host.Start(cfg, e.logger)
		}
	})
	return err
}

// initMetrics registers the collectors when Weaviate's monitoring is on.
func (e *Engine) initMetrics(params moduletools.ModuleInitParams) error {
	cfg, reg := params.GetConfig(), params.GetMetricsRegisterer()
	if cfg == nil || !cfg.Monitoring.Enabled || reg == nil {
		return nil
	}
	met, err := newMetrics(reg, func() simcache.CacheStats { return e.features.Stats() })
	if err != nil {
		return err
	}
	e.metrics = met
	return nil
}

// ValidateClass refuses a class whose diverse-select config is invalid, on
// create and on update, with a message naming the key and the allowed values.
func (e *Engine) ValidateClass(class *models.Class) error {
	raw := classConfig(class, Name)
	if raw == nil {
		return nil
	}
	return config.ValidateClass(raw, e.defaults, schemaOf(class))
}

// Counter is the token counter of a tokenizer, made once per engine.
func (e *Engine) Counter(name string) (tokens.Counter, error) {
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

// Logger is the engine's logger (Weaviate's, once Init has run).
func (e *Engine) Logger() logrus.FieldLogger { return e.logger }

// Defaults are the module's defaults and limits in force.
func (e *Engine) Defaults() config.Module { return e.defaults }

// Features is the feature cache (nil: off).
func (e *Engine) Features() *simcache.FeatureCache { return e.features }

// Plugins is the external selector plugins' host.
func (e *Engine) Plugins() *host.Host { return e.plugins }

// InflightBytes is the memory the selections in flight hold.
func (e *Engine) InflightBytes() int64 { return e.inflight.held.Load() }
