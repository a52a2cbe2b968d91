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

// TestTextDocsListEveryParameter keeps docs/strategies-text.md in step with
// the parameter specs of relcost, cliff, knapsack and ngram, and with the
// tokenizer names.
func TestTextDocsListEveryParameter(t *testing.T) {
	raw, err := os.ReadFile("../../docs/strategies-text.md")
	require.NoError(t, err)
	doc := string(raw)
	for _, name := range []string{"relcost", "cliff", "knapsack", "ngram"} {
		start := strings.Index(doc, "\n## "+name+":")
		require.GreaterOrEqual(t, start, 0, "no section for %s", name)
		section := doc[start+1:]
		if end := strings.Index(section, "\n## "); end >= 0 {
			section = section[:end]
		}
		d, ok := selectors.Lookup(name)
		require.True(t, ok)
		for _, p := range d.Params {
			row := fmt.Sprintf("| `%s` | %s | `%v` |", p.Name, p.Kind, p.Default)
			require.Contains(t, section, row, "%s.%s", name, p.Name)
		}
		require.Contains(t, section, `diverseSelect: {strategy: "`+name+`"`)
	}
	for _, name := range tokens.Names() {
		require.Contains(t, doc, "| `"+name+"`", "tokenizer %s", name)
	}
}
