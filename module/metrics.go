package diverseselect

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sirupsen/logrus"
	"github.com/weaviate/weaviate/entities/modulecapabilities"
	"github.com/weaviate/weaviate/entities/moduletools"
	"github.com/weaviate/weaviate/entities/search"

	"github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/simcache"
)

// Error kinds of diverse_select_errors_total.
const (
	kindInvalidArgument = "invalid_argument" // a query or class setting refused (config.Error)
	kindInvalidData     = "invalid_data"     // the candidates cannot be selected from (no vector, NaN, ...)
	kindCapExceeded     = "cap_exceeded"     // candidate or matrix memory cap
	kindStrategy        = "strategy"         // the strategy failed
	kindPanic           = "panic"            // recovered panic in the module
	kindCanceled        = "canceled"         // the client went away
	kindTimeout         = "timeout"          // a deadline passed
	kindOther           = "other"
)

var (
	// errPanic marks the error of a recovered panic.
	errPanic = errors.New("internal error")
	// errCapExceeded marks a refusal by the module's candidate cap.
	errCapExceeded = errors.New("candidate cap exceeded")
	// errRefused marks a query the module refuses outside config.Parse
	// (groupBy, after): counted as invalid_argument like a
	// config.Error.
	errRefused = errors.New("query refused")
)

// errorKinds maps sentinel errors to kinds, first match wins; append a row
// for a new failure mode (a time cap, a plugin strategy's error, ...).
var errorKinds = []struct {
	target error
	kind   string
}{
	{context.Canceled, kindCanceled},
	{context.DeadlineExceeded, kindTimeout},
	{errPanic, kindPanic},
	{errCapExceeded, kindCapExceeded},
	{selectors.ErrMatrixTooLarge, kindCapExceeded},
	{errRefused, kindInvalidArgument},
	{selectors.ErrInvalidProblem, kindInvalidData},
	{errStrategy, kindStrategy},
}

// errStrategy marks an error returned by a strategy's run (see strategyError).
var errStrategy = errors.New("strategy failed")

// strategyError marks err as the strategy's, keeping its message and chain.
func strategyError(err error) error { return &markedError{err: err, mark: errStrategy} }

type markedError struct{ err, mark error }

func (e *markedError) Error() string   { return e.err.Error() }
func (e *markedError) Unwrap() []error { return []error{e.err, e.mark} }

// errorKind classifies a failed selection for diverse_select_errors_total.
func errorKind(err error) string {
	for _, k := range errorKinds {
		if errors.Is(err, k.target) {
			return k.kind
		}
	}
	var cfgErr *config.Error
	if errors.As(err, &cfgErr) {
		return kindInvalidArgument
	}
	return kindOther
}

// metrics are the module's Prometheus collectors. Weaviate serves its
// default registry on PROMETHEUS_MONITORING_PORT; a nil *metrics (monitoring
// off) records nothing.
type metrics struct {
	duration   *prometheus.HistogramVec
	candidates *prometheus.HistogramVec
	selected   *prometheus.HistogramVec
	budgetUse  *prometheus.HistogramVec
	// stops counts selections by why they ended (selectors.StopReason),
	// tokensLeft the budget they left unused.
	stops      *prometheus.CounterVec
	tokensLeft *prometheus.HistogramVec
	errors     *prometheus.CounterVec
	degraded   *prometheus.CounterVec
	// deferred counts selections over a pool loaded without properties,
	// deferredReads the objects they read by id, cachedVectors the
	// candidates whose vector came from the feature cache (deferred.go).
	deferred      prometheus.Counter
	deferredReads *prometheus.CounterVec
	cachedVectors prometheus.Counter
}

// newMetrics registers the collectors with reg; cache reads the feature
// cache's counters at scrape time.
func newMetrics(reg prometheus.Registerer, cache func() simcache.CacheStats) (*metrics, error) {
	m := &metrics{
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "diverse_select_selection_duration_seconds",
			Help:    "Time to build the selection problem and select, per strategy and route.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 16), // 0.1 ms .. 3.3 s
		}, []string{"strategy", "route"}),
		candidates: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "diverse_select_candidates",
			Help:    "Candidates a selection chose from, per strategy.",
			Buckets: prometheus.ExponentialBuckets(5, 2, 10), // 5 .. 2560
		}, []string{"strategy"}),
		selected: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "diverse_select_selected",
			Help:    "Items a selection returned, per strategy.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 9), // 1 .. 256
		}, []string{"strategy"}),
		budgetUse: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "diverse_select_budget_use_ratio",
			Help:    "Tokens used / token budget of selections with a budget, per strategy.",
			Buckets: prometheus.LinearBuckets(0.1, 0.1, 10),
		}, []string{"strategy"}),
		stops: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "diverse_select_stops_total",
			Help: "Selections by why they ended: budget (nothing left fits), price (nothing left pays for its tokens), maxResults or pool (nothing left), per strategy.",
		}, []string{"strategy", "reason"}),
		tokensLeft: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "diverse_select_tokens_left",
			Help:    "Budget a selection with a budget left unused, in tokens, per strategy.",
			Buckets: prometheus.ExponentialBuckets(8, 2, 12), // 8 .. 16384
		}, []string{"strategy"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "diverse_select_errors_total",
			Help: "Refused or failed selections, by kind and route.",
		}, []string{"kind", "route"}),
		degraded: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "diverse_select_degraded_total",
			Help: "Selections that took a slower or fallback path, by reason (refetch, single_guard).",
		}, []string{"reason"}),
		deferred: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "diverse_select_deferred_selections_total",
			Help: "Selections over a pool the search loaded without properties (the text from the feature cache).",
		}),
		deferredReads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "diverse_select_deferred_reads_total",
			Help: "Objects of deferred selections read by id: uncached (the feature cache did not hold their text) or selected (for the response).",
		}, []string{"reason"}),
		cachedVectors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "diverse_select_cached_vectors_total",
			Help: "Candidates of deferred selections whose vector came from the feature cache: the search did not load it.",
		}),
	}
	collectors := []prometheus.Collector{m.duration, m.candidates, m.selected, m.budgetUse, m.stops, m.tokensLeft,
		m.errors, m.degraded,
		m.deferred, m.deferredReads, m.cachedVectors,
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "diverse_select_feature_cache_hits_total",
			Help: "Feature cache lookups that found an object's token count or terms.",
		}, func() float64 { return float64(cache().Hits) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "diverse_select_feature_cache_misses_total",
			Help: "Feature cache lookups that had to count tokens or analyse terms.",
		}, func() float64 { return float64(cache().Misses) }),
	}
	for _, c := range collectors {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// selection records one finished selection.
func (m *metrics) selection(strategy, route string, candidates int, res *selectors.Result, took time.Duration) {
	if m == nil {
		return
	}
	m.duration.WithLabelValues(strategy, route).Observe(took.Seconds())
	m.candidates.WithLabelValues(strategy).Observe(float64(candidates))
	m.selected.WithLabelValues(strategy).Observe(float64(len(res.Items)))
	if res.Budget > 0 {
		m.budgetUse.WithLabelValues(strategy).Observe(float64(res.TokensUsed) / float64(res.Budget))
		m.tokensLeft.WithLabelValues(strategy).Observe(float64(res.TokensLeft()))
	}
	m.stops.WithLabelValues(strategy, string(res.Stop)).Inc()
}

func (m *metrics) failure(route string, err error) {
	if m != nil && err != nil {
		m.errors.WithLabelValues(errorKind(err), route).Inc()
	}
}

// deferredSelection records a selection over a pool without properties, the
// objects it read by id and the vectors it took from the feature cache.
func (m *metrics) deferredSelection(uncached, selected, cachedVectors int) {
	if m != nil {
		m.deferred.Inc()
		m.deferredReads.WithLabelValues("uncached").Add(float64(uncached))
		m.deferredReads.WithLabelValues("selected").Add(float64(selected))
		m.cachedVectors.Add(float64(cachedVectors))
	}
}

func (m *metrics) degradedPath(reason string) {
	if m != nil {
		m.degraded.WithLabelValues(reason).Inc()
	}
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

// observeSelection is the one place a successful selection is reported: the
// metrics, the debug line per selection, and a warning when the strategy
// fell back (the best single item replaced its greedy set).
// The log fields are built only when a line is written: at the usual info
// level a selection costs no map or entry here.
func (e *engine) observeSelection(p *plan, candidates int, res *selectors.Result, took time.Duration) {
	route := p.route.String()
	e.metrics.selection(res.Strategy, route, candidates, res, took)
	fields := func() logrus.Fields {
		return logrus.Fields{
			"class": p.className, "strategy": res.Strategy, "route": route, "candidates": candidates,
			"selected": len(res.Items), "removed": res.Removed, "tokensUsed": res.TokensUsed, "budget": res.Budget,
			"stopReason": res.Stop,
			"durationMs": float64(took.Microseconds()) / 1000,
		}
	}
	if levelEnabled(e.logger, logrus.DebugLevel) {
		e.logger.WithFields(fields()).Debug("diverse-select: selection")
	}
	if res.Stats["singleGuard"] == 1 {
		e.metrics.degradedPath("single_guard")
		e.logger.WithFields(fields()).Warn("diverse-select: the strategy fell back to the best single item, " +
			"which alone beats its greedy selection: the budget fits few candidates")
	}
}

// levelEnabled reports whether logger writes lines of level (true when it
// cannot tell).
func levelEnabled(logger logrus.FieldLogger, level logrus.Level) bool {
	switch l := logger.(type) {
	case *logrus.Entry:
		return l.Logger.IsLevelEnabled(level)
	case *logrus.Logger:
		return l.IsLevelEnabled(level)
	}
	return true
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
