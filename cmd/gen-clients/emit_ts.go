package main

import (
	"bytes"
	"fmt"
	"strings"
)

func tsSpec(js []byte) []byte {
	return []byte("// " + header + "\nexport const spec = " + string(js) + ";\n")
}

// tsOptions names a strategy's options type (MMROptions, TopKOptions).
func tsOptions(strategy string) string { return goStrategy(strategy) + "Options" }

// tsDoc is a one-line JSDoc comment.
func tsDoc(doc string) string { return "/** " + strings.ReplaceAll(doc, "*/", "* /") + " */" }

// tsInterface writes an interface of opts (their docs and allowed values).
func tsInterface(b *bytes.Buffer, doc, name, extends string, opts []option) {
	fmt.Fprintf(b, "%s\nexport interface %s%s {\n", tsDoc(doc), name, extends)
	for _, o := range opts {
		fmt.Fprintf(b, "  %s\n  %s?: %s;\n", tsDoc(docOf(o)), o.Wire, tsType(o))
	}
	b.WriteString("}\n\n")
}

// tsTypes writes the declarations of the typed factories: the options
// every strategy takes, each strategy's own on top of them, and Select's
// factories, whose option types make tsc reject a foreign parameter.
func tsTypes(s spec) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n\nimport type { Selection } from './index.js';\n\n", header)
	strategies := s.Keys[0].Enum
	fmt.Fprintf(&b, "/** A built-in selection strategy. */\nexport type Strategy = %s;\n\n", tsUnion(strategies))
	tsInterface(&b, "The settings every strategy takes: each overrides the collection's reranker-diverse-select config for one query.",
		"CommonOptions", "", common(s))
	for _, n := range strategies {
		tsInterface(&b, fmt.Sprintf("%s: %s; its parameters and the common settings.", n, s.StrategyDocs[n]),
			tsOptions(n), " extends CommonOptions", s.Strategies[n])
	}
	b.WriteString(`/** The collection's own strategy with the common settings; its parameters, if any, in params. */
export interface ConfiguredOptions extends CommonOptions {
  /** the strategy's parameters by their names ({ lambda: 0.5 }), each checked against the strategies that take it (the server checks it against the collection's strategy) */
  params?: Record<string, number | boolean | string>;
}

`)
	tsInterface(&b, "Every per-query setting by the server's key name: Select.fromWire's argument.", "WireOptions",
		" extends CommonOptions", append([]option{s.Keys[0]}, s.Params...))
	b.WriteString(`/**
 * Typed per-query settings, one factory per strategy, as weaviate-client's Diversity.mmr is:
 * Select.mmr({ lambda: 0.7, tokenBudget: 300 }). A parameter the strategy does not take does not compile;
 * a value the server would refuse throws a SettingsError naming it and its allowed values.
 */
export interface SelectFactories {
`)
	for _, n := range strategies {
		fmt.Fprintf(&b, "  %s\n  %s(options?: %s): Selection<'%s', %s>;\n",
			tsDoc(n+": "+s.StrategyDocs[n]+"."), n, tsOptions(n), n, tsOptions(n))
	}
	b.WriteString(`  /** The collection's own strategy with these settings. */
  configured(options?: ConfiguredOptions): Selection<undefined, ConfiguredOptions>;
  /** The settings of an object with the server's key names ({ strategy: 'mmr', tokenBudget: 60 }): its strategy's, or configured's without one. */
  fromWire(options: WireOptions): Selection;
}
`)
	return b.Bytes()
}

func tsUnion(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = "'" + v + "'"
	}
	return strings.Join(q, " | ")
}

func tsType(o option) string {
	switch {
	case o.Wire == "strategy":
		return "Strategy"
	case len(o.Enum) > 0:
		return tsUnion(o.Enum)
	case o.Kind == "int" || o.Kind == "float":
		return "number"
	case o.Kind == "bool":
		return "boolean"
	case o.Kind == "strings":
		return "string[]"
	}
	return "string"
}
