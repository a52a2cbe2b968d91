package all_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/diverse-select/diverse-select/selectors"
)

// TestQualityDocsListEveryParameter keeps docs/strategies-quality.md (the
// default strategy) in step with its parameter specs: a table row per
// parameter with its type and default, and a query example.
func TestQualityDocsListEveryParameter(t *testing.T) {
	raw, err := os.ReadFile("../../docs/strategies-quality.md")
	require.NoError(t, err)
	doc := string(raw)
	for _, name := range []string{"coverage"} {
		start := strings.Index(doc, "\n## "+name+":")
		require.GreaterOrEqual(t, start, 0, "no section for %s", name)
		section := doc[start+1:]
		if end := strings.Index(section, "\n## "); end >= 0 {
			section = section[:end]
		}
		d, ok := selectors.Lookup(name)
		require.True(t, ok)
		for _, p := range d.Params {
			row := fmt.Sprintf("| `%s` | %s | ", p.Name, p.Kind)
			require.Contains(t, section, row, "%s.%s", name, p.Name)
			require.Contains(t, section, fmt.Sprintf("%s`%v` |", row, p.Default), "%s.%s default", name, p.Name)
		}
		require.Contains(t, section, `diverseSelect: {strategy: "`+name+`"`)
	}
}
