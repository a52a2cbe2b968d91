// Package config reads diverse-select's configuration at its three levels and
// merges them: module defaults from environment variables, a class's
// moduleConfig["diverse-select"], and a query's diverseSelect arguments. The
// class config and the query use the same keys, so one parser validates both.
// Every error names the key and the allowed values.
//
// The package has no Weaviate imports: the module hands it plain maps and a
// Schema summary of the class.
package config

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/tokens"
)

// Common keys, shared by every strategy. Any other key is a strategy parameter.
const (
	KeyStrategy            = "strategy"
	KeyTokenBudget         = "tokenBudget"
	KeyCandidates          = "candidates"
	KeyMaxResults          = "maxResults"
	KeyTextProperty        = "textProperty"
	KeyExtraTextProperties = "extraTextProperties"
	KeyTokenizer           = "tokenizer"
	KeyTokenProperty       = "tokenProperty"
	KeyTargetVector        = "targetVector"
	KeySourceProperty      = "sourceProperty"
	KeyOrder               = "order"
	KeyDedupThreshold      = "dedupThreshold"
	KeyQuery               = "query"
)

// CommonKeys lists the keys every strategy accepts, in documentation order.
var CommonKeys = []string{
	KeyStrategy, KeyTokenBudget, KeyCandidates, KeyMaxResults, KeyTextProperty, KeyExtraTextProperties,
	KeyTokenizer, KeyTokenProperty, KeyTargetVector, KeySourceProperty, KeyOrder, KeyDedupThreshold, KeyQuery,
}

// MaxTokenBudget bounds tokenBudget: far beyond any model's context window,
// and small enough that sums of token counts never overflow.
const MaxTokenBudget = 1 << 30

// Overrides is one level's settings (class config or query); nil or empty
// fields are unset and fall through to the level below.
type Overrides struct {
	Strategy            string
	TokenBudget         *int
	Candidates          *int
	MaxResults          *int
	TextProperty        string
	ExtraTextProperties []string
	Tokenizer           string
	TokenProperty       string
	TargetVector        string
	SourceProperty      string
	Order               string
	DedupThreshold      *float64
	Query               string
	// Params are the strategy parameters, validated against Strategy (or the
	// strategy in effect) when the levels are merged.
	Params map[string]any
}

// Error is a configuration error naming the key at fault.
type Error struct {
	Key, Msg string
}

func (e *Error) Error() string { return fmt.Sprintf("diverseSelect: %q %s", clip(e.Key), e.Msg) }

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

// Parse validates a raw map (decoded JSON or GraphQL values) into Overrides.
// maxCandidates bounds the candidates key.
func Parse(raw map[string]any, maxCandidates int) (*Overrides, error) {
	o := &Overrides{Params: map[string]any{}}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		v, err := jsonNumbers(key, raw[key])
		if err != nil {
			return nil, err
		}
		if v == nil {
			continue
		}
		switch key {
		case KeyStrategy:
			o.Strategy, err = str(key, v)
			if err == nil {
				if _, ok := selectors.Lookup(o.Strategy); !ok {
					err = errf(key, "is %q; allowed: %s", clip(o.Strategy), strings.Join(selectors.Names(), ", "))
				}
			}
		case KeyTokenBudget:
			o.TokenBudget, err = intIn(key, v, 0, MaxTokenBudget, "0 = no budget")
		case KeyCandidates:
			o.Candidates, err = intIn(key, v, 1, maxCandidates, "the pool retrieved before selection")
		case KeyMaxResults:
			o.MaxResults, err = intIn(key, v, 0, selectors.MaxCandidates, "0 = no limit")
		case KeyTextProperty:
			o.TextProperty, err = str(key, v)
		case KeyExtraTextProperties:
			o.ExtraTextProperties, err = strList(key, v)
		case KeyTokenizer:
			o.Tokenizer, err = str(key, v)
			if err == nil {
				if _, terr := tokens.New(o.Tokenizer); terr != nil {
					err = errf(key, "is %q; allowed: %s", clip(o.Tokenizer), strings.Join(tokens.Names(), ", "))
				}
			}
		case KeyTokenProperty:
			o.TokenProperty, err = str(key, v)
		case KeyTargetVector:
			o.TargetVector, err = str(key, v)
		case KeySourceProperty:
			o.SourceProperty, err = str(key, v)
		case KeyOrder:
			o.Order, err = str(key, v)
			if err == nil && !validOrder(o.Order) {
				err = errf(key, "is %q; allowed: selection, relevance, edges", clip(o.Order))
			}
		case KeyDedupThreshold:
			var f float64
			f, err = number(key, v)
			if err == nil && (f <= 0 || f > 1) {
				err = errf(key, "is %v; allowed: a number in (0, 1]", f)
			}
			o.DedupThreshold = &f
		case KeyQuery:
			o.Query, err = str(key, v)
		default:
			o.Params[key] = v
		}
		if err != nil {
			return nil, err
		}
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

func validOrder(s string) bool {
	for _, o := range selectors.Orders {
		if string(o) == s {
			return true
		}
	}
	return false
}

func str(key string, v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", errf(key, "must be a string, got %s (%T)", clip(fmt.Sprint(v)), v)
	}
	return s, nil
}

func strList(key string, v any) ([]string, error) {
	switch x := v.(type) {
	case []string:
		return x, nil
	case []any:
		out := make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, errf(key, "must be a list of strings, got element %v (%T)", e, e)
			}
			out[i] = s
		}
		return out, nil
	}
	return nil, errf(key, "must be a list of strings, got %v (%T)", v, v)
}

func number(key string, v any) (float64, error) {
	f, ok := selectors.AsNumber(v)
	if !ok {
		return 0, errf(key, "must be a finite number, got %v (%T)", v, v)
	}
	return f, nil
}

func intIn(key string, v any, lo, hi int, note string) (*int, error) {
	f, err := number(key, v)
	if err != nil {
		return nil, errf(key, "must be an integer in [%d, %d] (%s), got %v (%T)", lo, hi, note, v, v)
	}
	if f != math.Trunc(f) || f < float64(lo) || f > float64(hi) {
		return nil, errf(key, "must be an integer in [%d, %d] (%s), got %v", lo, hi, note, v)
	}
	n := int(f)
	return &n, nil
}
