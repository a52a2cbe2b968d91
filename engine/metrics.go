package engine

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/simcache"
)

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
func (m *metrics) selection(strategy, routeLabel string, candidates int, res *selectors.Result, took time.Duration) {
	if m == nil {
		return
	}
	m.duration.WithLabelValues(strategy, routeLabel).Observe(took.Seconds())
	m.candidates.WithLabelValues(strategy).Observe(float64(candidates))
	m.selected.WithLabelValues(strategy).Observe(float64(len(res.Items)))
	if res.Budget > 0 {
		m.budgetUse.WithLabelValues(strategy).Observe(float64(res.TokensUsed) / float64(res.Budget))
		m.tokensLeft.WithLabelValues(strategy).Observe(float64(res.TokensLeft()))
	}
	m.stops.WithLabelValues(strategy, string(res.Stop)).Inc()
}

func (m *metrics) failure(routeLabel string, err error) {
	if m != nil && err != nil {
		m.errors.WithLabelValues(errorKind(err), routeLabel).Inc()
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
