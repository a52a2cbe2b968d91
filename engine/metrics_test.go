package engine

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"
	"github.com/weaviate/weaviate/entities/search"

	"github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/simcache"
)

func TestErrorKind(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&config.Error{Key: "strategy", Msg: "is unknown"}, kindInvalidArgument},
		{fmt.Errorf("diverseSelect: %w", &config.Error{Key: "tokenBudget", Msg: "is negative"}), kindInvalidArgument},
		{candidateCapError(2000, 1000), kindCapExceeded},
		{fmt.Errorf("diverseSelect: %w", strategyError(fmt.Errorf("%w: too big", selectors.ErrMatrixTooLarge))), kindCapExceeded},
		{fmt.Errorf("diverseSelect: %w", strategyError(fmt.Errorf("%w: NaN", selectors.ErrInvalidProblem))), kindInvalidData},
		{fmt.Errorf("diverseSelect: %w", strategyError(errors.New("no convergence"))), kindStrategy},
		{fmt.Errorf("diverseSelect: %w", strategyError(context.Canceled)), kindCanceled},
		{fmt.Errorf("diverseSelect: %w", strategyError(context.DeadlineExceeded)), kindTimeout},
		{fmt.Errorf("diverseSelect: %w (logged by the server): %v", errPanic, "boom"), kindPanic},
		{&markedError{mark: errRefused, err: errors.New("diverseSelect: cannot be combined with groupBy")}, kindInvalidArgument},
		{func() error { _, err := vectorOf(search.Result{}, "", nil); return err }(), kindInvalidData},
		{func() error { _, err := vectorOf(search.Result{}, "named", nil); return err }(), kindInvalidData},
		{errors.New("class not found"), kindOther},
	} {
		if got := errorKind(tc.err); got != tc.want {
			t.Errorf("errorKind(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
	// Marking keeps the message the client sees.
	if got := strategyError(errors.New("x")).Error(); got != "x" {
		t.Errorf("strategyError changed the message to %q", got)
	}
}

func TestMetricsRecord(t *testing.T) {
	reg := prometheus.NewRegistry()
	stats := simcache.CacheStats{Hits: 7, Misses: 3}
	m, err := newMetrics(reg, func() simcache.CacheStats { return stats })
	if err != nil {
		t.Fatal(err)
	}
	res := &selectors.Result{Strategy: "mmr", Items: make([]selectors.Item, 4), TokensUsed: 300, Budget: 400,
		Stop: selectors.StopPrice}
	m.selection("mmr", "argument", 50, res, 2*time.Millisecond)
	m.selection("mmr", "argument", 50, &selectors.Result{Strategy: "mmr", Items: make([]selectors.Item, 2),
		Stop: selectors.StopMaxResults}, time.Millisecond)
	m.failure("rerank", candidateCapError(5, 1))
	m.failure("rerank", nil)
	m.degradedPath("refetch")

	if n := testutil.CollectAndCount(m.duration); n != 1 {
		t.Errorf("duration series = %d, want 1", n)
	}
	for name, want := range map[string]float64{
		"diverse_select_feature_cache_hits_total":   7,
		"diverse_select_feature_cache_misses_total": 3,
	} {
		if got := gatheredValue(t, reg, name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if got := testutil.ToFloat64(m.errors.WithLabelValues(kindCapExceeded, "rerank")); got != 1 {
		t.Errorf("cap_exceeded errors = %v, want 1", got)
	}
	if got := testutil.ToFloat64(m.degraded.WithLabelValues("refetch")); got != 1 {
		t.Errorf("refetch = %v, want 1", got)
	}
	// Only the selection with a budget counts in the budget use ratio.
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]uint64{}
	for _, mf := range mfs {
		for _, s := range mf.GetMetric() {
			if h := s.GetHistogram(); h != nil {
				counts[mf.GetName()] += h.GetSampleCount()
			}
		}
	}
	want := map[string]uint64{
		"diverse_select_selection_duration_seconds": 2, "diverse_select_candidates": 2,
		"diverse_select_selected": 2, "diverse_select_budget_use_ratio": 1, "diverse_select_tokens_left": 1,
	}
	for name, n := range want {
		if counts[name] != n {
			t.Errorf("%s sample count = %d, want %d", name, counts[name], n)
		}
	}
	// Each selection counts under why it stopped; the budget it left unused
	// is observed once, for the one with a budget.
	for reason, want := range map[selectors.StopReason]float64{selectors.StopPrice: 1, selectors.StopMaxResults: 1,
		selectors.StopBudget: 0} {
		if got := testutil.ToFloat64(m.stops.WithLabelValues("mmr", string(reason))); got != want {
			t.Errorf("stops{%s} = %v, want %v", reason, got, want)
		}
	}
	if got := histogramSum(t, reg, "diverse_select_tokens_left"); got != 100 {
		t.Errorf("tokens left = %v, want 100 (budget 400, 300 used)", got)
	}
	// A nil *metrics (monitoring off) records nothing and does not panic.
	var off *metrics
	off.selection("mmr", "field", 1, res, time.Millisecond)
	off.failure("field", errPanic)
	off.degradedPath("refetch")
}

// histogramSum is the sum of the one series of histogram name.
func histogramSum(t *testing.T, g prometheus.Gatherer, name string) float64 {
	t.Helper()
	return onlyMetric(t, g, name).GetHistogram().GetSampleSum()
}

// gatheredValue is the value of the one series of counter name.
func gatheredValue(t *testing.T, g prometheus.Gatherer, name string) float64 {
	t.Helper()
	return onlyMetric(t, g, name).GetCounter().GetValue()
}

// onlyMetric is the one series of the metric family name.
func onlyMetric(t *testing.T, g prometheus.Gatherer, name string) *dto.Metric {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) == 1 {
			return mf.GetMetric()[0]
		}
	}
	t.Fatalf("%s not gathered", name)
	return nil
}

// TestObserveSelection: one debug line per selection with its figures, and a
// warning (and a degraded count) when the strategy fell back to the best
// single item.
func TestObserveSelection(t *testing.T) {
	logger, hook := logtest.NewNullLogger()
	logger.SetLevel(logrus.DebugLevel)
	reg := prometheus.NewRegistry()
	met, err := newMetrics(reg, func() simcache.CacheStats { return simcache.CacheStats{} })
	if err != nil {
		t.Fatal(err)
	}
	m := &Engine{logger: logger, metrics: met}
	for _, tc := range []struct {
		name     string
		p        *plan
		stats    map[string]float64
		route    string
		warnings int
	}{
		{"argument", &plan{routeLabel: "argument", className: "Doc"}, map[string]float64{}, "argument", 0},
		{"field, fallback", &plan{routeLabel: "field", className: "Doc"}, map[string]float64{"singleGuard": 1}, "field", 1},
		{"rerank", &plan{routeLabel: "rerank", className: "Doc"}, nil, "rerank", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hook.Reset()
			res := &selectors.Result{Strategy: "coverage", Items: make([]selectors.Item, 3), TokensUsed: 90, Budget: 100, Stats: tc.stats}
			m.observeSelection(tc.p, 20, res, 1500*time.Microsecond)
			var debug, warn []*logrus.Entry
			for _, e := range hook.AllEntries() {
				switch e.Level {
				case logrus.DebugLevel:
					debug = append(debug, e)
				case logrus.WarnLevel:
					warn = append(warn, e)
				}
			}
			if len(debug) != 1 || len(warn) != tc.warnings {
				t.Fatalf("%d debug and %d warning lines, want 1 and %d", len(debug), len(warn), tc.warnings)
			}
			want := logrus.Fields{"class": "Doc", "strategy": "coverage", "route": tc.route, "candidates": 20,
				"selected": 3, "removed": 0, "tokensUsed": 90, "budget": 100, "durationMs": 1.5}
			for k, v := range want {
				if debug[0].Data[k] != v {
					t.Errorf("field %s = %v, want %v", k, debug[0].Data[k], v)
				}
			}
		})
	}
	if got := testutil.ToFloat64(met.degraded.WithLabelValues("single_guard")); got != 1 {
		t.Errorf("single_guard count %v, want 1", got)
	}
	if got := testutil.CollectAndCount(met.duration); got != 3 {
		t.Errorf("%d duration series (strategy x route), want 3", got)
	}
}
