package all_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/tokens"
)

// TestStrategyDocsListEveryParameter keeps the strategy write-ups in docs/ in
// step with the parameter specs: each strategy has a "## name:" section with
// a query example and a table row per parameter with its type and default.
func TestStrategyDocsListEveryParameter(t *testing.T) {
	docs := []struct {
		file       string
		strategies []string
	}{
		{"strategies-vector.md", []string{"adagres", "mmr", "facility", "dpp"}},
		{"strategies-text.md", []string{"relcost", "cliff", "knapsack", "ngram"}},
		{"strategies-quality.md", []string{"coverage"}},
	}
	documented := map[string]bool{"topk": true} // the baseline is documented in the README only
	for _, d := range docs {
		raw, err := os.ReadFile("../../docs/" + d.file)
		require.NoError(t, err)
		doc := string(raw)
		for _, name := range d.strategies {
			documented[name] = true
			section := docSection(t, doc, name)
			def, ok := selectors.Lookup(name)
			require.True(t, ok, name)
			for _, p := range def.Params {
				row := fmt.Sprintf("| `%s` | %s | ", p.Name, p.Kind)
				require.Contains(t, section, row, "%s: %s.%s", d.file, name, p.Name)
				if p.Default != nil {
					require.Contains(t, section, fmt.Sprintf("%s`%v` |", row, p.Default), "%s: %s.%s default", d.file, name, p.Name)
				}
			}
			require.Contains(t, section, `diverseSelect: {strategy: "`+name+`"`, "%s: %s example", d.file, name)
		}
	}
	for _, name := range selectors.Names() {
		require.True(t, documented[name], "strategy %s has no write-up in docs/", name)
	}
}

// TestTokenizersDocumented checks docs/strategies-text.md lists every tokenizer.
func TestTokenizersDocumented(t *testing.T) {
	raw, err := os.ReadFile("../../docs/strategies-text.md")
	require.NoError(t, err)
	for _, name := range tokens.Names() {
		require.Contains(t, string(raw), "| `"+name+"`", "tokenizer %s", name)
	}
}

// docSection returns the "## name:" section of a markdown document.
func docSection(t *testing.T, doc, name string) string {
	t.Helper()
	start := strings.Index(doc, "\n## "+name+":")
	require.GreaterOrEqual(t, start, 0, "no section for %s", name)
	section := doc[start+1:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	return section
}
