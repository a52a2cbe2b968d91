package config

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/diverse-select/diverse-select/selectors"
)

// DefaultStrategy is the strategy used when no level names one: coverage,
// chosen by evaluation (docs/quality.md, cmd/eval).
const DefaultStrategy = "coverage"

// Module holds the module-wide defaults and limits, read from the environment.
type Module struct {
	// Strategy: DIVERSE_SELECT_STRATEGY (default coverage).
	Strategy string
	// TokenBudget: DIVERSE_SELECT_TOKEN_BUDGET (default 0, no budget).
	TokenBudget int
	// Candidates: DIVERSE_SELECT_CANDIDATES (default 50), the pool of the top-level form.
	Candidates int
	// MaxCandidates: DIVERSE_SELECT_MAX_CANDIDATES (default 2000), the hard cap on the pool.
	MaxCandidates int
	// Tokenizer: DIVERSE_SELECT_TOKENIZER (default cl100k_base).
	Tokenizer string
	// MaxMatrixMB: DIVERSE_SELECT_MAX_MATRIX_MB (default 64, 0 = no cap), the
	// most memory in MiB one query's N x N matrices may use (facility: 4*N^2
	// bytes, twice that with a distance kernel; 2000 candidates need 15.3 MiB).
	MaxMatrixMB int
	// FeatureCacheMB: DIVERSE_SELECT_FEATURE_CACHE_MB (default 64, 0 = off),
	// the size of the per-object feature cache (token counts, analysed terms).
	FeatureCacheMB int
	// MaxSelectTime: DIVERSE_SELECT_MAX_SELECT_TIME (default 10s, 0 = no
	// cap), the longest one query's selection may run before it is stopped.
	MaxSelectTime time.Duration
	// MaxInflightMB: DIVERSE_SELECT_MAX_INFLIGHT_MB (default auto: 1/32
	// of the memory limit, see DefaultInflightMB; 0 = no bound), the
	// most memory in MiB the selections of all concurrent queries may hold
	// at once (matrices and packed vectors).
	MaxInflightMB int
}

// MaxInflightBytes is MaxInflightMB in bytes (0 = no bound).
func (m Module) MaxInflightBytes() int64 { return int64(m.MaxInflightMB) << 20 }

// MaxMatrixBytes is MaxMatrixMB in bytes (0 = no cap).
func (m Module) MaxMatrixBytes() int64 { return int64(m.MaxMatrixMB) << 20 }

// FeatureCacheBytes is FeatureCacheMB in bytes (0 = no cache).
func (m Module) FeatureCacheBytes() int64 { return int64(m.FeatureCacheMB) << 20 }

// Env lists the environment variables Module reads, with their defaults.
var Env = []EnvVar{
	{"DIVERSE_SELECT_STRATEGY", DefaultStrategy, "strategy when neither the class nor the query names one"},
	{"DIVERSE_SELECT_TOKEN_BUDGET", "0", "token budget when neither the class nor the query sets one (0 = none)"},
	{"DIVERSE_SELECT_CANDIDATES", "50", "candidate pool of the top-level diverseSelect argument"},
	{"DIVERSE_SELECT_MAX_CANDIDATES", "2000", "hard cap on the candidate pool; larger requests are refused"},
	{"DIVERSE_SELECT_TOKENIZER", "cl100k_base", "token counter when neither the class nor the query sets one"},
	{"DIVERSE_SELECT_MAX_MATRIX_MB", "64", "most memory (MiB) one query's N x N similarity matrices may use; larger requests are refused (0 = no cap)"},
	{"DIVERSE_SELECT_FEATURE_CACHE_MB", "64", "size (MiB) of the per-object cache of token counts and analysed terms (0 = off)"},
	{"DIVERSE_SELECT_MAX_SELECT_TIME", DefaultMaxSelectTime.String(), "longest one query's selection may run (a Go duration such as 500ms or 10s; 0 = no cap); a slower selection is stopped with an error"},
	{"DIVERSE_SELECT_MAX_INFLIGHT_MB", InflightAuto, "most memory (MiB) the selections of all concurrent queries may hold at once; auto = 1/32 of the cgroup memory limit, else of total memory, at least 64; a query that does not fit waits up to DIVERSE_SELECT_MAX_SELECT_TIME, then fails (0 = no bound)"},
}

// EnvVar is one environment variable the module reads: its name, its
// default as written in the environment, and what it sets.
type EnvVar struct{ Name, Default, Doc string }

// FromEnv reads Module from environment variables (getenv nil means os.Getenv).
func FromEnv(getenv func(string) string) (Module, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	get := func(name string) string {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			return v
		}
		for _, e := range Env {
			if e.Name == name {
				return e.Default
			}
		}
		return ""
	}
	m := Module{Strategy: get("DIVERSE_SELECT_STRATEGY"), Tokenizer: get("DIVERSE_SELECT_TOKENIZER")}
	ints := []struct {
		name   string
		dst    *int
		lo, hi int
	}{
		{"DIVERSE_SELECT_TOKEN_BUDGET", &m.TokenBudget, 0, MaxTokenBudget},
		{"DIVERSE_SELECT_MAX_CANDIDATES", &m.MaxCandidates, 1, selectors.MaxCandidates},
		{"DIVERSE_SELECT_CANDIDATES", &m.Candidates, 1, selectors.MaxCandidates},
		{"DIVERSE_SELECT_MAX_MATRIX_MB", &m.MaxMatrixMB, 0, 1 << 20},
		{"DIVERSE_SELECT_FEATURE_CACHE_MB", &m.FeatureCacheMB, 0, 1 << 20},
	}
	var err error
	for _, e := range ints {
		n, err := strconv.Atoi(get(e.name))
		if err != nil || n < e.lo || n > e.hi {
			return m, fmt.Errorf("%s=%q: want an integer in [%d, %d]", e.name, getenv(e.name), e.lo, e.hi)
		}
		*e.dst = n
	}
	if m.MaxSelectTime, err = selectTime(get("DIVERSE_SELECT_MAX_SELECT_TIME")); err != nil {
		return m, err
	}
	if m.MaxInflightMB, err = inflightMB(get("DIVERSE_SELECT_MAX_INFLIGHT_MB")); err != nil {
		return m, err
	}
	if m.Candidates > m.MaxCandidates {
		return m, fmt.Errorf("DIVERSE_SELECT_CANDIDATES=%d exceeds DIVERSE_SELECT_MAX_CANDIDATES=%d", m.Candidates, m.MaxCandidates)
	}
	if _, err := Parse(map[string]any{KeyStrategy: m.Strategy, KeyTokenizer: m.Tokenizer}, m.MaxCandidates); err != nil {
		return m, fmt.Errorf("environment: %w", err)
	}
	return m, nil
}

// DefaultMaxSelectTime is DIVERSE_SELECT_MAX_SELECT_TIME's default: about a
// thousand times a typical selection, so it stops only runaway work.
const DefaultMaxSelectTime = 10 * time.Second

// MaxSelectTimeLimit bounds DIVERSE_SELECT_MAX_SELECT_TIME.
const MaxSelectTimeLimit = time.Hour

// selectTime parses DIVERSE_SELECT_MAX_SELECT_TIME: a Go duration, or a bare
// 0 for no cap.
func selectTime(v string) (time.Duration, error) {
	if v == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 || d > MaxSelectTimeLimit {
		return 0, fmt.Errorf("DIVERSE_SELECT_MAX_SELECT_TIME=%q: want a duration in [0, %s] such as 500ms or 10s (0 = no cap)", v, MaxSelectTimeLimit)
	}
	return d, nil
}

// inflightMB parses DIVERSE_SELECT_MAX_INFLIGHT_MB: auto, or MiB (0 = no bound).
func inflightMB(v string) (int, error) {
	if v == InflightAuto {
		limit, _ := MemoryLimit("/")
		return DefaultInflightMB(limit), nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 1<<30 {
		return 0, fmt.Errorf("DIVERSE_SELECT_MAX_INFLIGHT_MB=%q: want auto or an integer in [0, %d] (MiB; 0 = no bound)", v, 1<<30)
	}
	return n, nil
}

// Effective is the merged configuration of one query.
type Effective struct {
	Strategy            string
	TokenBudget         int
	Candidates          int
	MaxResults          int
	TextProperty        string
	ExtraTextProperties []string
	Tokenizer           string
	TokenProperty       string
	TargetVector        string
	SourceProperty      string
	Order               selectors.Order
	DedupThreshold      float64
	Query               string
	// Selector is the strategy built from the merged parameters.
	Selector *selectors.Selector
}

// Merge combines module defaults, the class config and the query (each of
// the last two may be nil); the query wins over the class, the class over the
// module. The class's strategy parameters apply only while the class's
// strategy is in effect: a query that switches strategy starts from that
// strategy's own defaults, because a parameter name can mean different
// things to different strategies (lambda in mmr and adagres).
func Merge(m Module, class, query *Overrides) (*Effective, error) {
	e := &Effective{
		Strategy:    m.Strategy,
		TokenBudget: m.TokenBudget,
		Candidates:  m.Candidates,
		Tokenizer:   m.Tokenizer,
		Order:       selectors.OrderSelection,
	}
	params := map[string]any{}
	for _, o := range []*Overrides{class, query} {
		if o == nil {
			continue
		}
		if o.Strategy != "" && o.Strategy != e.Strategy {
			e.Strategy = o.Strategy
			params = map[string]any{}
		}
		for k, v := range o.Params {
			params[k] = v
		}
		setInt(&e.TokenBudget, o.TokenBudget)
		setInt(&e.Candidates, o.Candidates)
		setInt(&e.MaxResults, o.MaxResults)
		setStr(&e.TextProperty, o.TextProperty)
		setStr(&e.Tokenizer, o.Tokenizer)
		setStr(&e.TokenProperty, o.TokenProperty)
		setStr(&e.TargetVector, o.TargetVector)
		setStr(&e.SourceProperty, o.SourceProperty)
		setStr(&e.Query, o.Query)
		if o.ExtraTextProperties != nil {
			e.ExtraTextProperties = o.ExtraTextProperties
		}
		if o.Order != "" {
			e.Order = selectors.Order(o.Order)
		}
		if o.DedupThreshold != nil {
			e.DedupThreshold = *o.DedupThreshold
		}
	}
	if e.Candidates > m.MaxCandidates {
		return nil, errf(KeyCandidates, "is %d, above the module's cap of %d (DIVERSE_SELECT_MAX_CANDIDATES)", e.Candidates, m.MaxCandidates)
	}
	sel, err := selectors.New(e.Strategy, params)
	if err != nil {
		return nil, paramError(e.Strategy, err)
	}
	e.Selector = sel
	return e, nil
}

// paramError rewords a strategy parameter error so it lists the common keys too.
func paramError(strategy string, err error) error {
	pe, ok := err.(*selectors.ParamError)
	if !ok {
		return fmt.Errorf("diverseSelect: %w", err)
	}
	if strings.HasPrefix(pe.Msg, "unknown parameter") {
		def, _ := selectors.Lookup(strategy)
		var names []string
		for _, p := range def.Params {
			names = append(names, p.Name)
		}
		sort.Strings(names)
		return errf(pe.Param, "is not a setting of strategy %q; allowed: %s; strategy parameters: %s",
			strategy, strings.Join(CommonKeys, ", "), orNone(names))
	}
	return errf(pe.Param, "for strategy %q %s", strategy, pe.Msg)
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}

func setInt(dst *int, v *int) {
	if v != nil {
		*dst = *v
	}
}

func setStr(dst *string, v string) {
	if v != "" {
		*dst = v
	}
}
