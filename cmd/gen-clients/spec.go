// Command gen-clients writes the option tables of the client helpers
// (clients/typescript, clients/go, clients/python) from config.Keys and the
// built-in strategies' parameter specs, so the helpers cannot drift from
// the server: TestGeneratedFilesUpToDate fails when the committed files
// differ from what it writes. Run it with make clients-gen.
package main

import (
	"math"
	"sort"
	"strings"

	"github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/selectors"
	_ "github.com/diverse-select/diverse-select/selectors/all" // the built-in strategies
)

// option is one per-query setting as the helpers see it.
type option struct {
	Wire    string   `json:"name"` // the key on the wire (config.Keys' name)
	Kind    string   `json:"kind"` // string, int, float, bool, strings, property
	Min     *float64 `json:"min"`  // nil: unbounded
	Max     *float64 `json:"max"`  // nil: unbounded (or the server's candidate cap)
	MinOpen bool     `json:"minOpen,omitempty"`
	MaxOpen bool     `json:"maxOpen,omitempty"`
	Enum    []string `json:"enum,omitempty"`
	Doc     string   `json:"doc"`
	// Strategies that take this parameter (nil for a common key).
	Strategies []string `json:"strategies,omitempty"`
}

// spec is what every helper is generated from.
type spec struct {
	Version string   `json:"version"`
	Keys    []option `json:"keys"`
	// Params are the union of the strategies' parameters, one entry per
	// name (a name has one kind across strategies, selectors.CheckParamKinds).
	Params []option `json:"params"`
	// Strategies holds each built-in strategy's own parameter ranges.
	Strategies map[string][]option `json:"strategies"`
	// StrategyDocs are the strategies' one-line summaries, for the typed
	// factories' comments (the helpers' checks do not read them).
	StrategyDocs map[string]string `json:"-"`
}

// rerankOnly are the keys the rerank route sets itself (engine/rerank_settings.go
// refuses them in the settings).
var rerankOnly = map[string]bool{config.KeyCandidates: true, config.KeyTextProperty: true, config.KeyQuery: true}

// settingsVersion is the form engine/rerank_settings.go reads.
const settingsVersion = "diverseSelect.v1"

func bound(f float64) *float64 {
	if math.IsInf(f, 0) {
		return nil
	}
	return &f
}

func buildSpec() spec {
	s := spec{Version: settingsVersion, Strategies: map[string][]option{}, StrategyDocs: map[string]string{}}
	for _, k := range config.Keys {
		if rerankOnly[k.Name] {
			continue
		}
		o := option{Wire: k.Name, Kind: string(k.Kind), Doc: plain(k.Doc)}
		o.Enum = k.Spec(config.Limits{}).Enum
		switch k.Kind {
		case selectors.KindInt:
			o.Min = bound(k.Min)
			if k.Max > 0 {
				o.Max = bound(k.Max)
			}
		case selectors.KindFloat:
			o.Min, o.Max, o.MinOpen = bound(k.Min), bound(k.Max), k.MinOpen
		}
		s.Keys = append(s.Keys, o)
	}
	union := map[string]*option{}
	for _, name := range selectors.Names() {
		def, _ := selectors.Lookup(name)
		s.StrategyDocs[name] = plain(def.Doc)
		var own []option
		for _, p := range def.Params {
			o := option{Wire: p.Name, Kind: string(p.Kind), Enum: p.Enum, Doc: plain(p.Doc)}
			if p.Kind == selectors.KindInt || p.Kind == selectors.KindFloat {
				o.Min, o.Max, o.MinOpen, o.MaxOpen = bound(p.Min), bound(p.Max), p.MinOpen, p.MaxOpen
			}
			own = append(own, o)
			u, ok := union[p.Name]
			if !ok {
				// The union keeps no range: the helpers check a parameter
				// against its strategy's own entry in Strategies.
				u = &option{Wire: o.Wire, Kind: o.Kind}
				union[p.Name] = u
			}
			for _, e := range o.Enum {
				if !contains(u.Enum, e) {
					u.Enum = append(u.Enum, e)
				}
			}
			if u.Kind == "int" && o.Kind == "float" {
				u.Kind = "float" // int and float mix as a number
			}
			u.Strategies = append(u.Strategies, name)
			u.Doc += name + ": " + p.Doc + ". "
		}
		s.Strategies[name] = own
	}
	names := make([]string, 0, len(union))
	for n := range union {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		u := *union[n]
		u.Doc = trimSpace(u.Doc)
		s.Params = append(s.Params, u)
	}
	return s
}

func trimSpace(s string) string {
	for len(s) > 0 && s[len(s)-1] == ' ' {
		s = s[:len(s)-1]
	}
	return s
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// plain drops the README's code marks from a doc (they would end a Go raw
// string and mean nothing in the other languages' comments).
func plain(doc string) string { return strings.ReplaceAll(doc, "`", "") }
