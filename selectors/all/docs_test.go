package all_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/tokens"
)

// TestStrategyDocsListEveryParameter keeps the strategy write-ups in docs/ in
// step with the registry: each strategy has a "## name:" section with a
// query example and, when it has parameters, a "<!-- BEGIN params" block,
// which cmd/gen-docs fills from its specs (its TestDocsUpToDate checks the
// rows).
func TestStrategyDocsListEveryParameter(t *testing.T) {
	files, err := filepath.Glob("../../docs/strategies-*.md")
	require.NoError(t, err)
	documented := map[string]bool{"topk": true} // the baseline is documented in docs/strategies.md only
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		doc := string(raw)
		for _, name := range selectors.Names() {
			if !strings.Contains(doc, "\n## "+name+":") {
				continue
			}
			require.False(t, documented[name], "%s: a second write-up of %s", f, name)
			documented[name] = true
			section := docSection(t, doc, name)
			def, _ := selectors.Lookup(name)
			params := paramsBlocks(section)
			if len(def.Params) > 0 {
				require.NotEmpty(t, params, "%s: %s has no <!-- BEGIN params block", f, name)
			}
			for _, p := range def.Params {
				require.Contains(t, params, fmt.Sprintf("| `%s` |", p.Name), "%s: %s.%s (run make docs-gen)", f, name, p.Name)
			}
			require.Contains(t, section, `diverseSelect: {strategy: "`+name+`"`, "%s: %s example", f, name)
		}
	}
	for _, name := range selectors.Names() {
		require.True(t, documented[name], "strategy %s has no write-up (a \"## %s:\" section of a docs/strategies-*.md)", name, name)
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

// paramsBlocks returns the text of a section's "<!-- BEGIN params" ...
// "<!-- END params -->" blocks, joined.
func paramsBlocks(section string) string {
	var b strings.Builder
	for {
		start := strings.Index(section, "<!-- BEGIN params")
		if start < 0 {
			return b.String()
		}
		section = section[start:]
		end := strings.Index(section, "<!-- END params -->")
		if end < 0 {
			return b.String()
		}
		b.WriteString(section[:end])
		section = section[end:]
	}
}

// TestNearCopyThresholdsDocumented: where docs/ gives the near-copy
// thresholds as "`selectors.NearCopyCosine` (`0.95`)", the value is the
// constant's (internal/doccheck lets such inline code through as code, so
// this is what keeps it true).
func TestNearCopyThresholdsDocumented(t *testing.T) {
	files, err := filepath.Glob("../../docs/*.md")
	require.NoError(t, err)
	constants := map[string]float64{"NearCopyCosine": selectors.NearCopyCosine, "NearCopyOverlap": selectors.NearCopyOverlap}
	found := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		for name, value := range constants {
			prefix := "`selectors." + name + "` (`"
			for rest := strings.Join(strings.Fields(string(raw)), " "); ; { // a line break is a space
				i := strings.Index(rest, prefix)
				if i < 0 {
					break
				}
				rest = rest[i+len(prefix):]
				end := strings.Index(rest, "`")
				require.GreaterOrEqual(t, end, 0, "%s: %s", f, prefix)
				require.Equal(t, fmt.Sprint(value), rest[:end], "%s: the value given for selectors.%s", f, name)
				found++
			}
		}
	}
	require.GreaterOrEqual(t, found, 2, "docs/strategies-quality.md gives both thresholds")
}
