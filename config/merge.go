package config

import (
	"errors"
	"sort"
	"strings"

	"github.com/diverse-select/diverse-select/selectors"
)

// Effective is the merged configuration of one query.
type Effective struct {
	Settings
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
	e := &Effective{Settings: m.Settings}
	for _, k := range Keys {
		if k.Default != nil { // a fixed default (Env sets the others')
			k.set(&e.Settings, k.Default)
		}
	}
	params := map[string]any{}
	for _, o := range []*Overrides{class, query} {
		if o == nil {
			continue
		}
		if o.Has(KeyStrategy) && o.Strategy != e.Strategy {
			params = map[string]any{}
		}
		for _, k := range Keys {
			if o.Has(k.Name) {
				k.copy(&e.Settings, &o.Settings)
			}
		}
		for k, v := range o.Params {
			params[k] = v
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

// StrategyError is a strategy's refusal of its parameters that names no
// parameter (an unavailable plugin, a New function's own check).
type StrategyError struct {
	Strategy string
	Err      error
}

func (e *StrategyError) Error() string { return e.Err.Error() }
func (e *StrategyError) Unwrap() error { return e.Err }

// paramError rewords a strategy parameter error so it lists the common keys too.
func paramError(strategy string, err error) error {
	var pe *selectors.ParamError
	if !errors.As(err, &pe) {
		return &StrategyError{Strategy: strategy, Err: err}
	}
	if pe.Unknown {
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

// ValidateClass checks a class's moduleConfig["diverse-select"] completely:
// keys, types, ranges, the strategy's parameters, and the schema references.
func ValidateClass(raw map[string]any, m Module, s Schema) error {
	return validateClass(raw, m, &s)
}

// ValidateClassKeys is ValidateClass before the class's schema is known
// (the gateway's config file): every check but the properties' and
// vectors' names, which the selection checks against the collection.
func ValidateClassKeys(raw map[string]any, m Module) error {
	return validateClass(raw, m, nil)
}

func validateClass(raw map[string]any, m Module, s *Schema) error {
	o, err := Parse(raw, m.Limits)
	if err != nil {
		return err
	}
	for _, k := range Keys {
		if k.QueryOnly && o.Has(k.Name) {
			return errf(k.Name, "is a query argument, not a class setting")
		}
	}
	if s != nil {
		if err := CheckSchema(o, *s); err != nil {
			return err
		}
	}
	if _, err := ParsePolicy(raw, "moduleConfig"); err != nil {
		return err
	}
	_, err = Merge(m, o, nil)
	return err
}
