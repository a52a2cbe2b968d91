package config

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/diverse-select/diverse-select/selectors"
)

// Query policy: class settings that say what a query may set, for
// applications that pass their end users' text into queries. They sit in the
// same moduleConfig as the common keys (diverse-select for the GraphQL
// routes, reranker-diverse-select for the rerank route) but are not common
// keys: a query cannot give them, and Parse leaves them to ParsePolicy.
const (
	// KeyQuerySettings "off" refuses every per-query setting but the query
	// text, the text property and the page offset.
	KeyQuerySettings = "querySettings"
	// KeyRerankQuerySyntax true lets a rerank query start with
	// diverseSelect(...) settings (the in-text form; off by default because
	// whoever writes the query text writes the settings).
	KeyRerankQuerySyntax = "rerankQuerySyntax"
	// The caps on what a query may set (0 = no cap).
	KeyMaxQueryTokenBudget = "maxQueryTokenBudget"
	KeyMaxQueryCandidates  = "maxQueryCandidates"
	KeyMaxQueryWidenTo     = "maxQueryWidenTo"
)

// The values of querySettings.
const (
	QuerySettingsOn  = "on"
	QuerySettingsOff = "off"
)

// PolicyKey declares one query policy key (docs/configuration.md's query
// policy table): its ParamSpec, checked by ParamSpec.Check like a common
// key's, and how the docs describe it.
type PolicyKey struct {
	selectors.ParamSpec
	Allowed, DefaultDoc string
}

// PolicyKeys are the query policy keys, in documentation order.
var PolicyKeys = []PolicyKey{
	{selectors.ParamSpec{Name: KeyQuerySettings, Kind: selectors.KindString, Enum: []string{QuerySettingsOn, QuerySettingsOff},
		Doc: "`off`: a query may give no setting but its text, `textProperty` (the rerank property) and `offset`"},
		"`on`, `off`", "`on`"},
	{selectors.ParamSpec{Name: KeyRerankQuerySyntax, Kind: selectors.KindBool, Doc: "the rerank query may start with `diverseSelect(...)` settings " +
		"(unsafe when the query text is an end user's: they then set the settings)"},
		"`true`, `false`", "`false`"},
	{capKey(KeyMaxQueryTokenBudget, "largest `tokenBudget` a query may set (a query's 0, no budget, is then refused)"),
		"integer in [0, 2^30]", "0 = no cap"},
	{capKey(KeyMaxQueryCandidates, "largest pool a query may ask for: `candidates`, or the query `limit` on the field form and the rerank route"),
		"integer >= 0", "0 = no cap"},
	{capKey(KeyMaxQueryWidenTo, "largest `widenTo` a query may set"), "integer >= 0", "0 = no cap"},
}

// capKey is the ParamSpec of a cap on what a query may set (0 = no cap).
func capKey(name, doc string) selectors.ParamSpec {
	return selectors.ParamSpec{Name: name, Kind: selectors.KindInt, Max: math.MaxInt32, Doc: doc}
}

// IsPolicyKey reports whether name is a query policy key.
func IsPolicyKey(name string) bool {
	for _, k := range PolicyKeys {
		if k.Name == name {
			return true
		}
	}
	return false
}

// Policy is a class's query policy (the zero value: everything allowed, no
// in-text settings).
type Policy struct {
	// Off: per-query settings are refused.
	Off bool
	// RerankQuerySyntax: a rerank query may start with diverseSelect(...).
	RerankQuerySyntax bool
	MaxTokenBudget    int
	MaxCandidates     int
	MaxWidenTo        int
	// Setting names where the policy is configured, in errors:
	// moduleConfig["reranker-diverse-select"].
	Setting string
}

// ParsePolicy reads the policy keys of a class config; setting names the
// config in errors (e.g. moduleConfig["diverse-select"]).
func ParsePolicy(raw map[string]any, setting string) (Policy, error) {
	p := Policy{Setting: setting}
	for _, k := range PolicyKeys {
		v, ok := raw[k.Name]
		if !ok || v == nil {
			continue
		}
		v, err := jsonNumbers(k.Name, v)
		if err != nil {
			return p, err
		}
		got, err := k.Check(v)
		if err != nil {
			if k.Kind == selectors.KindInt {
				return p, refusal(k.ParamSpec, "0 = no cap", err.(*selectors.ValueError))
			}
			return p, errf(k.Name, "is %s; allowed: %s", clip(fmt.Sprint(v)), strings.ReplaceAll(k.Allowed, "`", ""))
		}
		switch k.Name {
		case KeyQuerySettings:
			p.Off = got == QuerySettingsOff
		case KeyRerankQuerySyntax:
			p.RerankQuerySyntax = got.(bool)
		case KeyMaxQueryTokenBudget:
			p.MaxTokenBudget = got.(int)
		case KeyMaxQueryCandidates:
			p.MaxCandidates = got.(int)
		case KeyMaxQueryWidenTo:
			p.MaxWidenTo = got.(int)
		}
	}
	return p, nil
}

// policyFree are the keys a query may give when querySettings is off: its
// text, the text it reads (the rerank property) and the page.
var policyFree = map[string]bool{KeyQuery: true, KeyTextProperty: true, KeyOffset: true}

// CheckQuery refuses the query's settings the policy does not allow.
func (p Policy) CheckQuery(q *Overrides) error {
	if q == nil {
		return nil
	}
	if p.Off {
		var given []string
		for _, k := range Keys {
			if q.Has(k.Name) && !policyFree[k.Name] {
				given = append(given, k.Name)
			}
		}
		params := make([]string, 0, len(q.Params))
		for name := range q.Params {
			params = append(params, name)
		}
		sort.Strings(params)
		given = append(given, params...)
		if len(given) > 0 {
			return errf(given[0], "is a per-query setting, and this collection refuses them (%s.%s: %q); "+
				"allowed per query: query text, textProperty, offset", p.Setting, KeyQuerySettings, QuerySettingsOff)
		}
	}
	if p.MaxTokenBudget > 0 && q.Has(KeyTokenBudget) && (q.TokenBudget == 0 || q.TokenBudget > p.MaxTokenBudget) {
		given := fmt.Sprint(q.TokenBudget)
		if q.TokenBudget == 0 {
			given = "0 (no budget)"
		}
		return errf(KeyTokenBudget, "is %s, above this collection's cap of %d (%s.%s); allowed: an integer in [1, %d]",
			given, p.MaxTokenBudget, p.Setting, KeyMaxQueryTokenBudget, p.MaxTokenBudget)
	}
	if q.Has(KeyCandidates) {
		if err := p.CheckPool(KeyCandidates, q.Candidates); err != nil {
			return err
		}
	}
	if p.MaxWidenTo > 0 && q.Has(KeyWidenTo) && q.WidenTo > p.MaxWidenTo {
		return errf(KeyWidenTo, "is %d, above this collection's cap of %d (%s.%s); allowed: 0 or an integer up to %d",
			q.WidenTo, p.MaxWidenTo, p.Setting, KeyMaxQueryWidenTo, p.MaxWidenTo)
	}
	return nil
}

// CheckPool refuses a pool (key: candidates, or the query's limit) above
// the policy's cap.
func (p Policy) CheckPool(key string, pool int) error {
	if p.MaxCandidates > 0 && pool > p.MaxCandidates {
		return errf(key, "is %d, above this collection's cap of %d candidates (%s.%s); allowed: an integer in [1, %d]",
			pool, p.MaxCandidates, p.Setting, KeyMaxQueryCandidates, p.MaxCandidates)
	}
	return nil
}
