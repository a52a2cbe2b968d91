package config

import (
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/diverse-select/diverse-select/selectors"
)

// The module's environment: the variables, their defaults and their
// parsing. Env and PluginEnv are the tables the README's variable table,
// /v1/meta's defaults and the Docker image's check follow from.

// DefaultStrategy is the strategy used when no level names one: coverage,
// chosen by evaluation (docs/quality.md, tools/eval).
const DefaultStrategy = "coverage"

// DefaultMaxSelectTime is DIVERSE_SELECT_MAX_SELECT_TIME's default: about a
// thousand times a typical selection, so it stops only runaway work.
const DefaultMaxSelectTime = 10 * time.Second

// MaxSelectTimeLimit bounds DIVERSE_SELECT_MAX_SELECT_TIME.
const MaxSelectTimeLimit = time.Hour

// DefaultPluginTimeout is DIVERSE_SELECT_PLUGIN_TIMEOUT's default.
const DefaultPluginTimeout = 10 * time.Second

// Module holds the module-wide defaults and limits, read from the
// environment (see Env for each variable).
type Module struct {
	// Settings are the defaults of the keys with a variable (Key.Env):
	// strategy, tokenBudget, candidates, tokenizer.
	Settings
	// Limits bound what one query may ask for; they are checked before any
	// work starts.
	Limits
	// MaxMatrixMB is the most memory in MiB one query's N x N matrices may
	// use (facility: 4*N^2 bytes, twice that with a distance kernel; 2000
	// candidates need 15.3 MiB); 0 = no cap.
	MaxMatrixMB int
	// FeatureCacheMB is the size of the per-object feature cache (token
	// counts, analysed terms); 0 = off.
	FeatureCacheMB int
	// FeatureCacheSettle is how long after its last write an object's
	// features may be cached: two writes within one millisecond share the
	// cache key, and a write is read back some time after it is stamped.
	FeatureCacheSettle time.Duration
	// MaxSelectTime is the longest one query's selection may run before it
	// is stopped; 0 = no cap.
	MaxSelectTime time.Duration
	// MetaDetails shows the operational details in /v1/meta (plugin paths,
	// PIDs and errors, cache and in-flight figures), which Weaviate shows to
	// every authenticated user; off, they are in the metrics and the log.
	MetaDetails bool
	// MaxInflightMB is the most memory in MiB the selections of all
	// concurrent queries may hold at once (matrices and packed vectors);
	// auto = DefaultInflightMB of the memory limit, 0 = no bound.
	MaxInflightMB int
}

// Limits bound the size of one query's input: each is checked before the
// work it guards starts, and a query over one is refused with an error naming
// the argument, the limit and its variable (see Env).
type Limits struct {
	// MaxCandidates is the hard cap on the pool.
	MaxCandidates int
	// MaxQueryBytes bounds the query text the selection reads (the nearText
	// concepts, the bm25/hybrid or rerank query, the query key) and every
	// other string argument.
	MaxQueryBytes int
	// MaxQueryTerms bounds the distinct terms of that query text: the text
	// strategies and evidence cards do work per query term and candidate.
	MaxQueryTerms int
	// MaxListLength bounds every list argument (extraTextProperties).
	MaxListLength int
	// MaxSettingsBytes bounds the settings a rerank query carries, checked
	// before they are parsed; MaxSettingsDepth their bracket nesting.
	MaxSettingsBytes int
	MaxSettingsDepth int
}

// MaxInflightBytes is MaxInflightMB in bytes (0 = no bound).
func (m Module) MaxInflightBytes() int64 { return int64(m.MaxInflightMB) << 20 }

// inflightMB is MaxInflightMB as the variable gives it: auto or MiB.
type inflightMB int

// MaxMatrixBytes is MaxMatrixMB in bytes (0 = no cap).
func (m Module) MaxMatrixBytes() int64 { return int64(m.MaxMatrixMB) << 20 }

// FeatureCacheBytes is FeatureCacheMB in bytes (0 = no cache).
func (m Module) FeatureCacheBytes() int64 { return int64(m.FeatureCacheMB) << 20 }

// EnvVar is one environment variable the module reads: its name, its
// default as written in the environment, and what it sets.
type EnvVar struct {
	Name, Default, Doc string
	// Meta names the value in /v1/meta's defaults (Module's variables).
	Meta string
	// Key is the common key whose default the variable sets ("" if none).
	Key string
	// Lo and Hi bound an integer variable.
	Lo, Hi int
	// field points at the variable's value in m (*int, *time.Duration, or
	// the key's field for a Key variable).
	field func(m *Module) any
}

// Env lists the environment variables Module reads, in documentation order.
var Env = []EnvVar{
	{Name: "DIVERSE_SELECT_STRATEGY", Default: DefaultStrategy, Key: KeyStrategy, Meta: KeyStrategy,
		Doc: "strategy when neither the class nor the query names one"},
	{Name: "DIVERSE_SELECT_TOKEN_BUDGET", Default: "0", Lo: 0, Hi: MaxTokenBudget, Key: KeyTokenBudget, Meta: KeyTokenBudget,
		Doc: "token budget when neither the class nor the query sets one (0 = none)"},
	{Name: "DIVERSE_SELECT_CANDIDATES", Default: "50", Lo: 1, Hi: selectors.MaxCandidates, Key: KeyCandidates, Meta: KeyCandidates,
		Doc: "candidate pool of the top-level argument"},
	{Name: "DIVERSE_SELECT_MAX_CANDIDATES", Default: "2000", Lo: 1, Hi: selectors.MaxCandidates, Meta: "maxCandidates",
		Doc:   "hard cap on the candidate pool; larger requests are refused",
		field: func(m *Module) any { return &m.MaxCandidates }},
	{Name: "DIVERSE_SELECT_MAX_QUERY_BYTES", Default: "16384", Lo: 1, Hi: 1 << 24, Meta: "maxQueryBytes",
		Doc:   "longest query text (bytes) a selection reads - nearText concepts, the bm25/hybrid or rerank query, the `query` key - and longest string argument; longer queries are refused",
		field: func(m *Module) any { return &m.MaxQueryBytes }},
	{Name: "DIVERSE_SELECT_MAX_QUERY_TERMS", Default: "512", Lo: 1, Hi: 1 << 20, Meta: "maxQueryTerms",
		Doc:   "most distinct terms in that query text (the text strategies and evidence cards work per query term and candidate); more are refused",
		field: func(m *Module) any { return &m.MaxQueryTerms }},
	{Name: "DIVERSE_SELECT_MAX_LIST_LENGTH", Default: "64", Lo: 1, Hi: 1 << 16, Meta: "maxListLength",
		Doc:   "most entries in a list argument (`extraTextProperties`, after duplicates are dropped); longer lists are refused",
		field: func(m *Module) any { return &m.MaxListLength }},
	{Name: "DIVERSE_SELECT_MAX_SETTINGS_BYTES", Default: "4096", Lo: 16, Hi: 1 << 20, Meta: "maxSettingsBytes",
		Doc:   "longest settings part of a rerank query (`diverseSelect(...)`), checked before it is parsed",
		field: func(m *Module) any { return &m.MaxSettingsBytes }},
	{Name: "DIVERSE_SELECT_MAX_SETTINGS_DEPTH", Default: "2", Lo: 1, Hi: 16, Meta: "maxSettingsDepth",
		Doc:   "deepest bracket nesting of those settings (2: the call and one list), checked before they are parsed",
		field: func(m *Module) any { return &m.MaxSettingsDepth }},
	{Name: "DIVERSE_SELECT_TOKENIZER", Default: "cl100k_base", Key: KeyTokenizer, Meta: KeyTokenizer,
		Doc: "token counter when neither the class nor the query sets one"},
	{Name: "DIVERSE_SELECT_MAX_MATRIX_MB", Default: "64", Lo: 0, Hi: 1 << 20, Meta: "maxMatrixMB",
		Doc:   "most memory (MiB) one query's N x N similarity matrices may use (facility, coverage), with the packed vectors of a multi-vector target under maxsim; larger requests are refused (0 = no cap)",
		field: func(m *Module) any { return &m.MaxMatrixMB }},
	{Name: "DIVERSE_SELECT_FEATURE_CACHE_MB", Default: "64", Lo: 0, Hi: 1 << 20, Meta: "featureCacheMB",
		Doc:   "size (MiB) of the per-object cache of token counts, analysed terms, text and the vector a selection compares (0 = off, and every pool is loaded with its properties and vectors; see docs/internals.md)",
		field: func(m *Module) any { return &m.FeatureCacheMB }},
	{Name: "DIVERSE_SELECT_FEATURE_CACHE_SETTLE", Default: "2s", Meta: "featureCacheSettle",
		Doc:   "an object's features are cached only once this long has passed since its last write (Go duration; 0 = at once): two writes of one object within one millisecond would share a cache key",
		field: func(m *Module) any { return &m.FeatureCacheSettle }},
	{Name: "DIVERSE_SELECT_MAX_SELECT_TIME", Default: DefaultMaxSelectTime.String(), Meta: "maxSelectTime",
		Doc:   "longest one query's selection may run (Go duration; 0 = no cap); a slower one is stopped with an error naming the variable",
		field: func(m *Module) any { return &m.MaxSelectTime }},
	{Name: "DIVERSE_SELECT_MAX_INFLIGHT_MB", Default: InflightAuto, Lo: 0, Hi: 1 << 30, Meta: "maxInflightMB",
		Doc: "most memory (MiB) the selections of all concurrent queries may hold at once; auto = 1/32 of the cgroup memory limit, else of total memory, at least 64; " +
			"a query that does not fit waits up to DIVERSE_SELECT_MAX_SELECT_TIME, then fails with an error naming the variable (0 = no bound)",
		field: func(m *Module) any { return (*inflightMB)(&m.MaxInflightMB) }},
	{Name: "DIVERSE_SELECT_META_DETAILS", Default: "false", Meta: "metaDetails",
		Doc: "show plugin paths, PIDs and errors, the feature cache's and the in-flight bound's figures in `/v1/meta`, which every authenticated user may read " +
			"(false: only plugin names and states; the figures are in the metrics, the rest in the log)",
		field: func(m *Module) any { return &m.MetaDetails }},
}

// PluginEnv lists the environment variables Plugins reads, with their defaults.
var PluginEnv = []EnvVar{
	{Name: "DIVERSE_SELECT_PLUGIN_DIR", Doc: "folder of external selector plugins: every executable file (or symlink to one) in it is started, named after the file (see docs/plugins.md)"},
	{Name: "DIVERSE_SELECT_PLUGINS", Doc: "comma-separated paths of more plugin files"},
	{Name: "DIVERSE_SELECT_PLUGIN_SHA256", Doc: "comma-separated `name=sha256` pins; a plugin whose file does not match its pin is refused"},
	{Name: "DIVERSE_SELECT_PLUGIN_TIMEOUT", Default: DefaultPluginTimeout.String(), Doc: "most time one plugin call may take; a plugin past it is killed and restarted"},
	{Name: "DIVERSE_SELECT_PLUGIN_ENV", Doc: "comma-separated names of the environment variables a plugin process gets from Weaviate's; it gets no other (no API keys or credentials unless named here)"},
}

// EnvError is a malformed environment variable: its name, its value and
// what it wants.
type EnvError struct{ Var, Value, Want string }

func (e *EnvError) Error() string { return fmt.Sprintf("%s=%q: %s", e.Var, e.Value, e.Want) }

// FromEnv reads Module from environment variables (getenv nil means os.Getenv).
func FromEnv(getenv func(string) string) (Module, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	var m Module
	for _, e := range Env {
		v := strings.TrimSpace(getenv(e.Name))
		if v == "" {
			v = e.Default
		}
		if err := e.parse(&m, v); err != nil {
			return m, err
		}
	}
	if m.Candidates > m.MaxCandidates {
		return m, &EnvError{"DIVERSE_SELECT_CANDIDATES", strconv.Itoa(m.Candidates),
			fmt.Sprintf("exceeds DIVERSE_SELECT_MAX_CANDIDATES=%d", m.MaxCandidates)}
	}
	return m, nil
}

// parse sets the variable's value v in m.
func (e EnvVar) parse(m *Module, v string) error {
	var key Key
	dst := any(nil)
	if e.Key != "" {
		key, _ = LookupKey(e.Key)
		dst = key.field(&m.Settings)
	} else {
		dst = e.field(m)
	}
	switch d := dst.(type) {
	case *int:
		n, err := strconv.Atoi(v)
		if err != nil || n < e.Lo || n > e.Hi {
			return &EnvError{e.Name, v, fmt.Sprintf("want an integer in [%d, %d]", e.Lo, e.Hi)}
		}
		*d = n
	case *inflightMB:
		if v == InflightAuto {
			limit, _ := MemoryLimit("/")
			*d = inflightMB(DefaultInflightMB(limit))
			return nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < e.Lo || n > e.Hi {
			return &EnvError{e.Name, v, fmt.Sprintf("want %s or an integer in [%d, %d] (MiB; 0 = no bound)", InflightAuto, e.Lo, e.Hi)}
		}
		*d = inflightMB(n)
	case *bool:
		b, err := strconv.ParseBool(v)
		if err != nil {
			return &EnvError{e.Name, v, "want true or false"}
		}
		*d = b
	case *time.Duration:
		t, err := selectTime(v)
		if err != nil {
			return &EnvError{e.Name, v, fmt.Sprintf("want a duration in [0, %s] such as 500ms or 10s (0 = no cap)", MaxSelectTimeLimit)}
		}
		*d = t
	default:
		pv, err := key.parse(v, Limits{MaxCandidates: selectors.MaxCandidates, MaxListLength: 1 << 16, MaxQueryBytes: 1 << 24})
		if err != nil {
			return &EnvError{e.Name, v, err.Error()}
		}
		key.set(&m.Settings, pv)
	}
	return nil
}

// selectTime parses a time cap: a Go duration, or a bare 0 for no cap.
func selectTime(v string) (time.Duration, error) {
	if v == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 || d > MaxSelectTimeLimit {
		return 0, fmt.Errorf("bad duration %q", v)
	}
	return d, nil
}

// Defaults are the module defaults in force, by their /v1/meta names.
func (m Module) Defaults() map[string]any {
	out := make(map[string]any, len(Env))
	for _, e := range Env {
		var v any
		if e.Key != "" {
			key, _ := LookupKey(e.Key)
			v = key.Value(&m.Settings)
		} else {
			switch x := e.field(&m).(type) {
			case *int:
				v = *x
			case *bool:
				v = *x
			case *time.Duration:
				v = x.String()
			case *inflightMB:
				v = int(*x)
			}
		}
		out[e.Meta] = v
	}
	return out
}

// PluginsFromEnv reads Plugins (getenv nil means os.Getenv). A malformed
// value is an error naming the variable; a plugin that is missing or broken
// is not (the host reports it per plugin).
func PluginsFromEnv(getenv func(string) string) (Plugins, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	get := func(name string) string { return strings.TrimSpace(getenv(name)) }
	p := Plugins{Dir: get("DIVERSE_SELECT_PLUGIN_DIR"), SHA256: map[string][]byte{}, Timeout: DefaultPluginTimeout}
	for _, s := range strings.Split(get("DIVERSE_SELECT_PLUGINS"), ",") {
		if s = strings.TrimSpace(s); s != "" {
			p.Paths = append(p.Paths, s)
		}
	}
	for _, pin := range strings.Split(get("DIVERSE_SELECT_PLUGIN_SHA256"), ",") {
		if pin = strings.TrimSpace(pin); pin == "" {
			continue
		}
		name, sum, ok := strings.Cut(pin, "=")
		b, err := hex.DecodeString(strings.TrimSpace(sum))
		if !ok || strings.TrimSpace(name) == "" || err != nil || len(b) != 32 {
			return p, &EnvError{"DIVERSE_SELECT_PLUGIN_SHA256", pin, "want name=<64 hex digits of sha256>"}
		}
		p.SHA256[strings.TrimSpace(name)] = b
	}
	for _, name := range strings.Split(get("DIVERSE_SELECT_PLUGIN_ENV"), ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		if strings.ContainsAny(name, "= \t") {
			return p, &EnvError{"DIVERSE_SELECT_PLUGIN_ENV", name, "want comma-separated variable names"}
		}
		p.Env = append(p.Env, name)
	}
	if v := get("DIVERSE_SELECT_PLUGIN_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return p, &EnvError{"DIVERSE_SELECT_PLUGIN_TIMEOUT", v, "want a positive duration such as 5s or 500ms"}
		}
		p.Timeout = d
	}
	return p, nil
}
