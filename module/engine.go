package diverseselect

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/moduletools"

	"github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/plugin/host"
	"github.com/diverse-select/diverse-select/selectors/tokens"
	"github.com/diverse-select/diverse-select/simcache"
)

// engine is the state the module's adapters share - diverse-select
// (module.go) and reranker-diverse-select (reranker.go) hold one engine
// between them: the defaults, the token counters, the feature cache, the
// in-flight bound, the metrics, the plugins and the reads by id. A query
// enters it through the selection stage (stage.go) and keeps its own state
// in one query value; nothing of a query is stored here.
type engine struct {
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

	// plugins runs the external selector plugins, started once by init.
	plugins     *host.Host
	pluginsOnce sync.Once

	// The segmentation endpoint (segment.go): its encoders and limits, the
	// client of its encoder calls, and Weaviate's authentication and
	// authorization (nil: every request is refused).
	segmentConfig config.Segment
	encoderClient *http.Client
	authenticator func(r *http.Request) (*models.Principal, error)
	authorize     func(ctx context.Context, principal *models.Principal, verb string, resources ...string) error
}

func newEngine(classByName ClassByName) *engine {
	defaults, _ := config.FromEnv(func(string) string { return "" })
	segmentDefaults, _ := config.SegmentFromEnv(func(string) string { return "" })
	return &engine{classByName: classByName, defaults: defaults, logger: logrus.New(), counters: map[string]tokens.Counter{},
		features: simcache.NewFeatureCache(defaults.FeatureCacheBytes()), inflight: newInflight(defaults),
		isReranker:    func(name string) bool { return strings.HasPrefix(name, "reranker-") },
		segmentConfig: segmentDefaults, encoderClient: &http.Client{Timeout: 30 * time.Second}}
}

// init reads the defaults from the environment; a bad value stops
// Weaviate's start-up with a message naming the variable. External selector
// plugins start first: their strategies are registered before
// DIVERSE_SELECT_STRATEGY, class configs and the GraphQL schema are checked
// against the registry.
func (e *engine) init(params moduletools.ModuleInitParams) error {
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
	if e.segmentConfig, err = config.SegmentFromEnv(nil); err != nil {
		return fmt.Errorf("%s: %w", Name, err)
	}
	e.features = simcache.NewFeatureCache(defaults.FeatureCacheBytes())
	e.inflight = newInflight(defaults)
	return e.initMetrics(params)
}

// connect gives the engine what Weaviate provides: reads by id (the
// deferred properties), the reranker modules' names, and authentication and
// authorization for the segmentation endpoint.
func (e *engine) connect(w Weaviate) {
	e.multiGet = w.MultiGet
	if w.IsReranker != nil {
		e.isReranker = w.IsReranker
	}
	e.authenticator, e.authorize = w.Authenticate, w.Authorize
}

// close ends the plugin processes.
func (e *engine) close() { e.plugins.Close() }

// startPlugins starts the external selector plugins the environment names
// (package plugin/host), once per process: the two module names share this
// engine. A broken plugin does not stop Weaviate; a malformed variable does.
func (e *engine) startPlugins() error {
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
func (e *engine) initMetrics(params moduletools.ModuleInitParams) error {
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

// validateClass refuses a class whose diverse-select config is invalid, on
// create and on update, with a message naming the key and the allowed values.
func (e *engine) validateClass(class *models.Class) error {
	raw := classConfig(class, Name)
	if raw == nil {
		return nil
	}
	return config.ValidateClass(raw, e.defaults, schemaOf(class))
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
