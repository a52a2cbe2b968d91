package main

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
)

// pyKeywords are Python's keywords (lowercase): a name cannot be one.
var pyKeywords = map[string]bool{"and": true, "as": true, "assert": true, "async": true, "await": true, "break": true, "class": true, "continue": true, "def": true, "del": true, "elif": true, "else": true, "except": true, "finally": true, "for": true, "from": true, "global": true, "if": true, "import": true, "in": true, "is": true, "lambda": true, "nonlocal": true, "not": true, "or": true, "pass": true, "raise": true, "return": true, "try": true, "while": true, "with": true, "yield": true}

// pyName is the snake_case name of a wire name (lambda_ for the keyword).
func pyName(wire string) string {
	var b strings.Builder
	for i, r := range wire {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	if pyKeywords[b.String()] {
		b.WriteByte('_')
	}
	return b.String()
}

// pyClass names a strategy's settings class (MMRSelection, TopKSelection).
func pyClass(strategy string) string { return goStrategy(strategy) + "Selection" }

func pyType(o option) string {
	switch {
	case len(o.Enum) > 0:
		q := make([]string, len(o.Enum))
		for i, e := range o.Enum {
			q[i] = fmt.Sprintf("%q", e)
		}
		return "Optional[Literal[" + strings.Join(q, ", ") + "]]"
	case o.Kind == "int":
		return "Optional[int]"
	case o.Kind == "float":
		return "Optional[float]"
	case o.Kind == "bool":
		return "Optional[bool]"
	case o.Kind == "strings":
		return "Optional[List[str]]"
	}
	return "Optional[str]"
}

// common are the keys every factory takes (all but the strategy, which
// the factory names).
func common(s spec) []option { return s.Keys[1:] }

// pyParamsType is the type of ConfiguredSelection's params: strategy
// parameters by their wire names, for the collection's strategy.
const pyParamsType = "Optional[Mapping[str, Union[bool, float, str]]]"

// pyDocs writes one docstring line per option: its name, doc and allowed values.
func pyDocs(b *bytes.Buffer, opts []option) {
	for _, o := range opts {
		fmt.Fprintf(b, "    %s: %s\n", pyName(o.Wire), wrap(strings.ReplaceAll(docOf(o), `"""`, `'''`), 100, "\n        "))
	}
}

// pyFields writes the dataclass fields of opts.
func pyFields(b *bytes.Buffer, opts []option) {
	for _, o := range opts {
		fmt.Fprintf(b, "    %s: %s = None\n", pyName(o.Wire), pyType(o))
	}
}

// pyFactory writes Select's factory of one class: keyword-only arguments,
// first the strategy's own (and params for the collection's strategy), then
// the common settings; the class checks them.
func pyFactory(b *bytes.Buffer, name, class, doc string, own []option, params bool, s spec) {
	fmt.Fprintf(b, "\n    @staticmethod\n    def %s(\n        *,\n", name)
	if params {
		fmt.Fprintf(b, "        params: %s = None,\n", pyParamsType)
	}
	for _, o := range append(append([]option{}, own...), common(s)...) {
		fmt.Fprintf(b, "        %s: %s = None,\n", pyName(o.Wire), pyType(o))
	}
	fmt.Fprintf(b, "    ) -> %s:\n        \"\"\"%s\n\n        The arguments: %s.\"\"\"\n        return %s(**locals())\n",
		class, wrap(doc, 100, "\n        "), class, class)
}

func pySpec(s spec, js []byte) []byte {
	var b bytes.Buffer
	strategies := s.Keys[0].Enum
	fmt.Fprintf(&b, "# %s\n", header)
	b.WriteString(`"""The per-query settings of diverse selection as typed classes, one per strategy, and their
factories (Select), generated from the server's key table; _check checks them on construction."""

import json
from dataclasses import dataclass
from typing import Any, ClassVar, Dict, List, Literal, Mapping, Optional, Type, Union

from . import _check

`)
	exported := []string{`"Select"`, `"Selection"`, `"ConfiguredSelection"`, `"Strategy"`}
	for _, n := range strategies {
		exported = append(exported, fmt.Sprintf("%q", pyClass(n)))
	}
	fmt.Fprintf(&b, "__all__ = [%s]\n\n", wrap(strings.Join(exported, ", "), 100, "\n           "))
	fmt.Fprintf(&b, "SPEC = json.loads(r'''%s''')\n\n", js)
	b.WriteString("# The Python name of each wire name.\nFIELDS = {\n")
	for _, o := range all(s) {
		fmt.Fprintf(&b, "    %q: %q,\n", pyName(o.Wire), o.Wire)
	}
	b.WriteString("}\n\n")
	q := make([]string, len(strategies))
	for i, n := range strategies {
		q[i] = fmt.Sprintf("%q", n)
	}
	fmt.Fprintf(&b, "Strategy = Literal[%s]\n\"\"\"A built-in selection strategy.\"\"\"\n", strings.Join(q, ", "))

	b.WriteString(`

@dataclass(frozen=True, repr=False)
class Selection:
    """The settings every strategy takes: each set field overrides the collection's
    reranker-diverse-select config for one query (None: the collection's value). Made by Select's
    factories and checked on construction: a value the server would refuse raises SettingsError.

`)
	pyDocs(&b, common(s))
	b.WriteString("    \"\"\"\n\n    strategy: ClassVar[Optional[Strategy]] = None\n    \"\"\"The strategy these settings select with (None: the collection's).\"\"\"\n\n")
	pyFields(&b, common(s))
	b.WriteString(`
    def __post_init__(self) -> None:
        _check.validate(SPEC, FIELDS, self)

    def wire(self) -> Dict[str, Any]:
        """The settings by the server's key names, the strategy's included."""
        return _check.wire(FIELDS, self)

    def __repr__(self) -> str:
        return _check.show(self)
`)
	for _, n := range strategies {
		own := s.Strategies[n]
		doc := fmt.Sprintf("%s: %s; made by Select.%s.", n, s.StrategyDocs[n], n)
		if len(own) > 0 {
			doc += " Its parameters:"
		}
		fmt.Fprintf(&b, "\n\n@dataclass(frozen=True, repr=False)\nclass %s(Selection):\n    \"\"\"%s", pyClass(n), wrap(doc, 100, "\n    "))
		if len(own) > 0 {
			b.WriteString("\n\n")
			pyDocs(&b, own)
			b.WriteString("    ")
		}
		fmt.Fprintf(&b, "\"\"\"\n\n    strategy: ClassVar[Optional[Strategy]] = %q\n", n)
		if len(own) > 0 {
			b.WriteString("\n")
			pyFields(&b, own)
		}
	}
	fmt.Fprintf(&b, `

@dataclass(frozen=True, repr=False)
class ConfiguredSelection(Selection):
    """The collection's own strategy (its reranker-diverse-select config) with these settings; made by
    Select.configured.

    params: the strategy's parameters by the server's key names ({"lambda": 0.5}), each checked against
        the strategies that take it (the server checks it against the collection's strategy)
    """

    params: %s = None


# The class of each strategy's settings.
CLASSES: Dict[str, Type[Selection]] = {
`, pyParamsType)
	for _, n := range strategies {
		fmt.Fprintf(&b, "    %q: %s,\n", n, pyClass(n))
	}
	b.WriteString(`}


class Select:
    """Typed per-query settings, one factory per strategy, made as weaviate.classes.query's Rerank and
    Diversity are: Select.mmr(lambda_=0.7, token_budget=300). An argument the strategy does not take is a
    type error (and a TypeError); a value the server would refuse raises SettingsError, naming the
    setting and its allowed values. Pass the result to rerank(property, query, settings).
    """
`)
	for _, n := range strategies {
		pyFactory(&b, n, pyClass(n), n+": "+s.StrategyDocs[n]+".", s.Strategies[n], false, s)
	}
	pyFactory(&b, "configured", "ConfiguredSelection",
		"The collection's own strategy with these settings; its parameters, if any, go in params by the server's key names.",
		nil, true, s)
	b.WriteString(`
    @staticmethod
    def from_wire(options: Mapping[str, Any]) -> Selection:
        """The typed settings of a dict with the server's key names ({"strategy": "mmr", "tokenBudget":
        60}): the strategy's class, or ConfiguredSelection without a strategy."""
        return _check.from_wire(SPEC, FIELDS, options, CLASSES, ConfiguredSelection)
`)
	return b.Bytes()
}
