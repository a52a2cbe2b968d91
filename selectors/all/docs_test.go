package all_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/diverse-select/diverse-select/selectors"
)

// TestVectorDocsListEveryParameter keeps docs/strategies-vector.md in step
// with the parameter specs: every parameter has a table row with its default.
func TestVectorDocsListEveryParameter(t *testing.T) {
	raw, err := os.ReadFile("../../docs/strategies-vector.md")
	require.NoError(t, err)
	doc := string(raw)
	for _, name := range []string{"adagres", "mmr", "facility", "dpp"} {
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
			if p.Default != nil {
				require.Contains(t, section, fmt.Sprintf("%s`%v` |", row, p.Default), "%s.%s default", name, p.Name)
			}
		}
		require.Contains(t, section, `diverseSelect: {strategy: "`+name+`"`)
	}
}
