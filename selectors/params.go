package selectors

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Kind is the type of a setting's value: of a strategy parameter, or of a
// key every strategy shares (config.Key).
type Kind string

const (
	KindFloat Kind = "float"
	KindInt   Kind = "int"
	KindBool  Kind = "bool"
	// KindString is one of Enum; with no Enum (common keys only: a
	// strategy parameter must list its values), any string.
	KindString Kind = "string"
	// KindProperty names a property of the candidates' objects; the caller
	// (the Weaviate module) loads it into Candidate.Properties.
	KindProperty Kind = "property"
	// KindStrings is a list of strings (common keys only).
	KindStrings Kind = "strings"
)

// ParamSpec describes one setting: a strategy's parameter, or, inside
// config.Key, a key every strategy shares. The one description drives
// validation (Check), the GraphQL schema, /v1/meta, the client helpers and
// the docs' tables (cmd/gen-docs).
type ParamSpec struct {
	Name string
	Kind Kind
	// Default is float64, int, bool or string according to Kind; nil means
	// "unset" (the strategy then behaves as its documentation says, for
	// example adagres calibrates beta when no fixed beta is given).
	Default any
	// Min and Max bound numeric values (inclusive unless MinOpen/MaxOpen).
	Min, Max         float64
	MinOpen, MaxOpen bool
	// Enum lists the allowed values of a string parameter.
	Enum []string
	Doc  string
}

// Range describes the allowed values for error messages and documentation.
func (s ParamSpec) Range() string {
	switch s.Kind {
	case KindBool:
		return "true or false"
	case KindString:
		if len(s.Enum) == 0 {
			return "a string"
		}
		return "one of " + strings.Join(s.Enum, ", ")
	case KindProperty:
		return "a property name"
	case KindStrings:
		return "a list of strings"
	}
	return fmt.Sprintf("%s %s", s.Kind, s.Interval())
}

// Interval is a number's bounds: "[0, 1]", "(0, inf)".
func (s ParamSpec) Interval() string {
	lo, hi := "[", "]"
	if s.MinOpen || math.IsInf(s.Min, -1) {
		lo = "("
	}
	if s.MaxOpen || math.IsInf(s.Max, 1) {
		hi = ")"
	}
	return fmt.Sprintf("%s%s, %s%s", lo, fmtBound(s.Min), fmtBound(s.Max), hi)
}

func fmtBound(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// Params are validated parameter values, defaults filled in.
type Params map[string]any

// Float returns a float parameter (int values are widened).
func (p Params) Float(name string) float64 {
	switch v := p[name].(type) {
	case float64:
		return v
	case int:
		return float64(v)
	}
	return 0
}

// Int returns an int parameter.
func (p Params) Int(name string) int {
	v, _ := p[name].(int)
	return v
}

// Bool returns a bool parameter.
func (p Params) Bool(name string) bool {
	v, _ := p[name].(bool)
	return v
}

// String returns a string parameter.
func (p Params) String(name string) string {
	v, _ := p[name].(string)
	return v
}

// Has reports whether the parameter has a value (given or defaulted).
func (p Params) Has(name string) bool {
	_, ok := p[name]
	return ok
}

// ParamError names the parameter at fault and what is allowed.
type ParamError struct {
	Strategy string
	Param    string
	Msg      string
	// Unknown: the strategy has no parameter of that name.
	Unknown bool
}

func (e *ParamError) Error() string {
	return fmt.Sprintf("strategy %q: parameter %q: %s", e.Strategy, e.Param, e.Msg)
}

// ValidateParams checks raw values (as decoded from JSON or GraphQL: float64,
// int, int64, bool, string) against specs and returns typed values with
// defaults filled in. Unknown names and out-of-range values are errors.
func ValidateParams(strategy string, specs []ParamSpec, raw map[string]any) (Params, error) {
	byName := make(map[string]ParamSpec, len(specs))
	for _, s := range specs {
		byName[s.Name] = s
	}
	out := Params{}
	for _, s := range specs {
		if s.Default != nil {
			out[s.Name] = s.Default
		}
	}
	names := make([]string, 0, len(raw))
	for k := range raw {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		spec, ok := byName[name]
		if !ok {
			allowed := make([]string, len(specs))
			for i, s := range specs {
				allowed[i] = s.Name
			}
			msg := "unknown parameter; this strategy has no parameters"
			if len(allowed) > 0 {
				msg = "unknown parameter; allowed: " + strings.Join(allowed, ", ")
			}
			return nil, &ParamError{Strategy: strategy, Param: name, Msg: msg, Unknown: true}
		}
		v, err := spec.Check(raw[name])
		if err != nil {
			return nil, &ParamError{Strategy: strategy, Param: name, Msg: err.Error()}
		}
		if v == nil {
			continue // explicit null keeps the default
		}
		out[name] = v
	}
	return out, nil
}

// ValueError is a value Check refused.
type ValueError struct {
	Spec ParamSpec
	// Value is the value given, or the element of a list that is not a
	// string (Element).
	Value   any
	Element bool
	// WrongType: Value is not of the Kind at all (for a number: not a
	// finite number), rather than a value of the Kind outside Spec's range.
	WrongType bool
}

func (e *ValueError) Error() string {
	return fmt.Sprintf("got %v (%T), want %s", e.Value, e.Value, e.Spec.Range())
}

// Check validates one raw value (as decoded from JSON or GraphQL: float64,
// int, int64, bool, string, []any) against s and returns it typed by Kind:
// float64, int, bool, string or []string. A nil value stays nil (unset).
// A refused value is a *ValueError.
func (s ParamSpec) Check(v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	wrongType := &ValueError{Spec: s, Value: v, WrongType: true}
	switch s.Kind {
	case KindBool:
		b, ok := v.(bool)
		if !ok {
			return nil, wrongType
		}
		return b, nil
	case KindStrings:
		switch x := v.(type) {
		case []string:
			return x, nil
		case []any:
			out := make([]string, len(x))
			for i, e := range x {
				str, ok := e.(string)
				if !ok {
					return nil, &ValueError{Spec: s, Value: e, Element: true, WrongType: true}
				}
				out[i] = str
			}
			return out, nil
		}
		return nil, wrongType
	case KindProperty, KindString:
		str, ok := v.(string)
		if !ok {
			return nil, wrongType
		}
		if s.Kind == KindProperty && !isPropertyName(str) ||
			s.Kind == KindString && len(s.Enum) > 0 && !slices.Contains(s.Enum, str) {
			return nil, &ValueError{Spec: s, Value: v}
		}
		return str, nil
	}
	f, ok := AsNumber(v)
	if !ok {
		return nil, wrongType
	}
	if f < s.Min || f > s.Max || (s.MinOpen && f == s.Min) || (s.MaxOpen && f == s.Max) ||
		s.Kind == KindInt && f != math.Trunc(f) {
		return nil, &ValueError{Spec: s, Value: v}
	}
	if s.Kind == KindInt {
		return int(f), nil
	}
	return f, nil
}

// isPropertyName reports whether s is a valid property name: a letter or
// underscore, then letters, digits and underscores (Weaviate's rule).
func isPropertyName(s string) bool {
	for i, r := range s {
		letter := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return s != ""
}

// PropertyParams returns the values of the parameters of kind property:
// the object properties a configured strategy reads.
func PropertyParams(specs []ParamSpec, p Params) []string {
	var out []string
	for _, s := range specs {
		if v := p.String(s.Name); s.Kind == KindProperty && v != "" {
			out = append(out, v)
		}
	}
	return out
}

// AsNumber converts a decoded JSON or GraphQL number (float64, float32, int,
// int64, int32) to float64. ok is false for any other type and for NaN and
// infinities, which no parameter accepts.
func AsNumber(v any) (f float64, ok bool) {
	switch x := v.(type) {
	case float64:
		f = x
	case float32:
		f = float64(x)
	case int:
		f = float64(x)
	case int64:
		f = float64(x)
	case int32:
		f = float64(x)
	default:
		return 0, false
	}
	return f, !math.IsNaN(f) && !math.IsInf(f, 0)
}
