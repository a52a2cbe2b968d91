// Package config reads diverse-select's configuration at its three levels and
// merges them: module defaults from environment variables (env.go), a
// class's moduleConfig["diverse-select"], and a query's diverseSelect
// arguments (Parse, then Merge). The class config and the query use the same
// keys, described once in the table Keys (keys.go) - each by the
// selectors.ParamSpec a strategy parameter has, checked by the same
// ParamSpec.Check - so one parser validates both. Every error names the key
// and the allowed values (*Error, *EnvError).
//
// The package has no Weaviate imports: the module hands it plain maps and a
// Schema summary of the class.
package config

import (
	"encoding/json"
	"fmt"
	"sort"
	"unicode/utf8"
)

// Overrides is one level's settings (class config or query): the keys it
// gives, in Settings, and its strategy parameters.
type Overrides struct {
	Settings
	// given holds the keys this level sets; the others fall through to
	// the level below.
	given map[string]bool
	// Params are the strategy parameters, validated against Strategy (or the
	// strategy in effect) when the levels are merged.
	Params map[string]any
}

// Has reports whether the level sets the key.
func (o *Overrides) Has(key string) bool { return o != nil && o.given[key] }

// Error is a configuration error naming the key at fault. Its text starts
// with the key; the module names itself before it where the error leaves
// the module.
type Error struct {
	Key, Msg string
}

func (e *Error) Error() string { return fmt.Sprintf("%q %s", clip(e.Key), e.Msg) }

func errf(key, format string, args ...any) error {
	return &Error{Key: key, Msg: fmt.Sprintf(format, args...)}
}

// maxEcho bounds how much of a given value an error message repeats: a
// 10 MB argument must not come back as a 10 MB error.
const maxEcho = 120

func clip(s string) string {
	if len(s) <= maxEcho {
		return s
	}
	cut := maxEcho
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d bytes)", s[:cut], len(s))
}

// Parse validates a raw map (decoded JSON or GraphQL values) into Overrides:
// each common key by its entry in Keys, any other key as a strategy
// parameter. lim bounds the values (MaxCandidates the candidates key). A null
// value, and "" for a string key that allows it, leaves the key unset.
func Parse(raw map[string]any, lim Limits) (*Overrides, error) {
	o := &Overrides{given: map[string]bool{}, Params: map[string]any{}}
	names := make([]string, 0, len(raw))
	for name := range raw {
		if !IsPolicyKey(name) { // class-only: ParsePolicy reads them
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		v, err := jsonNumbers(name, raw[name])
		if err != nil {
			return nil, err
		}
		if v == nil {
			continue
		}
		k, common := LookupKey(name)
		if !common {
			o.Params[name] = v
			continue
		}
		pv, err := k.parse(v, lim)
		if err != nil {
			return nil, err
		}
		if s, isString := pv.(string); isString && s == "" {
			continue // "" leaves a string key unset
		}
		k.set(&o.Settings, pv)
		o.given[name] = true
	}
	return o, nil
}

// jsonNumbers turns json.Number values (Weaviate's REST handler decodes a new
// class's moduleConfig with UseNumber, and validates it before converting
// them) into float64, in lists too.
func jsonNumbers(key string, v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return nil, errf(key, "is %s, not a number", x.String())
		}
		return f, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			ev, err := jsonNumbers(key, e)
			if err != nil {
				return nil, err
			}
			out[i] = ev
		}
		return out, nil
	}
	return v, nil
}

func str(key string, v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", errf(key, "must be a string, got %s (%T)", clip(fmt.Sprint(v)), v)
	}
	return s, nil
}

// distinct is a list of strings (property names) without its duplicates,
// at most lim.MaxListLength long: a repeated name would only repeat work.
func distinct(key string, list []string, lim Limits) ([]string, error) {
	seen := make(map[string]bool, min(len(list), 64))
	out := list[:0:0]
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	if lim.MaxListLength > 0 && len(out) > lim.MaxListLength {
		return nil, errf(key, "lists %d distinct entries, above the module's limit of %d (DIVERSE_SELECT_MAX_LIST_LENGTH)", len(out), lim.MaxListLength)
	}
	return out, nil
}
