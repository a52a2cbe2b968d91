// Package diverseselect is diverse-select's helper for the Weaviate Go
// client: per-query settings as a typed Options struct, validated against
// the server's ranges (generated from its key table, options_gen.go), sent
// in the gRPC rerank property where only the application writes, and each
// selected object's explanation read into typed fields. Select runs a search
// without the protocol's internals in user code.
package diverseselect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Version is the settings form the server reads (engine/rerank_settings.go).
const Version = "diverseSelect.v1"

// MaxSettingsBytes bounds the rerank property with its settings (the
// server refuses a longer one).
const MaxSettingsBytes = 4096

const separator = "|"

// Int, Float and Bool return pointers for Options' optional numbers.
func Int(v int) *int               { return &v }
func Float(v float64) *float64     { return &v }
func Bool(v bool) *bool            { return &v }
func Strings(v ...string) []string { return v }

// field is one set option by its wire name.
type field struct {
	name  string
	value any
}

// option is one entry of the generated key table.
type option struct {
	Name       string   `json:"name"`
	Kind       string   `json:"kind"`
	Min        *float64 `json:"min"`
	Max        *float64 `json:"max"`
	MinOpen    bool     `json:"minOpen"`
	MaxOpen    bool     `json:"maxOpen"`
	Enum       []string `json:"enum"`
	Strategies []string `json:"strategies"`
}

var spec struct {
	Version    string              `json:"version"`
	Keys       []option            `json:"keys"`
	Params     []option            `json:"params"`
	Strategies map[string][]option `json:"strategies"`
}

func init() {
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
		panic("diverseselect: the generated key table does not decode: " + err.Error())
	}
}

// Error is an option the server would refuse; Key names it (the wire name).
type Error struct {
	Key, Msg string
}

func (e *Error) Error() string { return fmt.Sprintf("diverse-select: %q %s", e.Key, e.Msg) }

var propertyName = regexp.MustCompile(`^[_A-Za-z][_0-9A-Za-z]*$`)

// Validate returns an *Error for an option the server would refuse: a value
// out of the server's range, a parameter the strategy does not take
// (without a strategy: one no strategy takes with that value; the server
// checks it against the collection's strategy).
func (o *Options) Validate() error {
	for _, f := range o.fields() {
		if err := checkField(o.Strategy, f); err != nil {
			return err
		}
	}
	return nil
}

func checkField(strategy string, f field) error {
	if i := slices.IndexFunc(spec.Keys, func(k option) bool { return k.Name == f.name }); i >= 0 {
		if why := check(spec.Keys[i], f.value); why != "" {
			return &Error{Key: f.name, Msg: why}
		}
		return nil
	}
	i := slices.IndexFunc(spec.Params, func(k option) bool { return k.Name == f.name })
	if i < 0 {
		return &Error{Key: f.name, Msg: "is not a per-query setting"}
	}
	strategies := spec.Params[i].Strategies
	if strategy != "" {
		strategies = []string{strategy}
	}
	var whys []string
	for _, s := range strategies {
		for _, p := range spec.Strategies[s] {
			if p.Name == f.name {
				whys = append(whys, check(p, f.value))
			}
		}
	}
	if len(whys) == 0 {
		var names []string
		for _, p := range spec.Strategies[strategy] {
			names = append(names, p.Name)
		}
		if len(names) == 0 {
			names = []string{"(none)"}
		}
		return &Error{Key: f.name, Msg: fmt.Sprintf("is not a parameter of strategy %q; its parameters: %s", strategy, strings.Join(names, ", "))}
	}
	if slices.Contains(whys, "") {
		return nil
	}
	return &Error{Key: f.name, Msg: fmt.Sprintf("for strategy %s %s", strings.Join(strategies, " or "), whys[0])}
}

// check returns why v is not a value of o, or "".
func check(o option, v any) string {
	ok := true
	switch o.Kind {
	case "int", "float":
		var x float64
		switch n := v.(type) {
		case int:
			x = float64(n)
		case float64:
			x = n
			ok = !math.IsNaN(x) && !math.IsInf(x, 0) && (o.Kind == "float" || x == math.Trunc(x))
		default:
			ok = false
		}
		if o.Min != nil && (x < *o.Min || o.MinOpen && x == *o.Min) || o.Max != nil && (x > *o.Max || o.MaxOpen && x == *o.Max) {
			ok = false
		}
	case "bool":
		_, ok = v.(bool)
	case "strings":
		_, ok = v.([]string)
	default:
		s, isString := v.(string)
		ok = isString && (len(o.Enum) == 0 || slices.Contains(o.Enum, s))
	}
	if ok {
		return ""
	}
	b, _ := json.Marshal(v)
	return fmt.Sprintf("is %s; allowed: %s", b, allowed(o))
}

func allowed(o option) string {
	switch {
	case len(o.Enum) > 0:
		return "one of " + strings.Join(o.Enum, ", ")
	case o.Kind == "bool":
		return "true or false"
	case o.Kind == "strings":
		return "a list of strings"
	case o.Kind != "int" && o.Kind != "float":
		return "a string"
	}
	lo, hi := "(-inf", "inf)"
	if o.Min != nil {
		lo = fmt.Sprintf("[%v", *o.Min)
		if o.MinOpen {
			lo = fmt.Sprintf("(%v", *o.Min)
		}
	}
	if o.Max != nil {
		hi = fmt.Sprintf("%v]", *o.Max)
		if o.MaxOpen {
			hi = fmt.Sprintf("%v)", *o.Max)
		}
	}
	what := "a number"
	if o.Kind == "int" {
		what = "an integer"
	}
	return what + " in " + lo + ", " + hi
}

// RerankProperty returns the rerank property that asks for diverse
// selection reading property with the options as this query's settings:
// property itself when no option is set, else
// property|diverseSelect.v1|{"key":value,...} (keys sorted).
func RerankProperty(property string, o Options) (string, error) {
	if !propertyName.MatchString(property) {
		return "", &Error{Key: "property", Msg: fmt.Sprintf("is %q; allowed: a property name (letters, digits, _)", property)}
	}
	if err := o.Validate(); err != nil {
		return "", err
	}
	fields := o.fields()
	if len(fields) == 0 {
		return property, nil
	}
	sort.Slice(fields, func(i, j int) bool { return fields[i].name < fields[j].name })
	var b strings.Builder
	b.WriteString(property + separator + Version + separator + "{")
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(marshal(f.name) + ":" + marshal(f.value))
	}
	out := b.String() + "}"
	if len(out) > MaxSettingsBytes {
		return "", &Error{Key: "property", Msg: fmt.Sprintf("with its settings is %d bytes; allowed: at most %d", len(out), MaxSettingsBytes)}
	}
	return out, nil
}

// marshal is v as JSON without HTML escapes: the same bytes as the
// TypeScript and Python helpers write.
func marshal(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // strings, numbers, bools and lists of strings always encode
	return strings.TrimSuffix(b.String(), "\n")
}
