package all_test

import (
	"os"
	"strings"
	"testing"

	"github.com/diverse-select/diverse-select/selectors"
)

// TestStrategiesDocDocumentsEveryStrategy keeps the strategy sections of
// docs/strategies.md in step with the registry: every strategy has a
// section with a query example and a row per parameter (cmd/gen-docs writes
// the rows; its TestDocsUpToDate checks them).
func TestStrategiesDocDocumentsEveryStrategy(t *testing.T) {
	raw, err := os.ReadFile("../../docs/strategies.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw) // docs/strategies.md
	for _, d := range selectors.Definitions() {
		start := strings.Index(readme, "\n## "+d.Name+"\n")
		if start < 0 {
			t.Errorf("docs/strategies.md has no section \"## %s\"", d.Name)
			continue
		}
		section := readme[start+1:]
		if end := strings.Index(section[3:], "\n## "); end >= 0 {
			section = section[:end+3]
		}
		if !strings.Contains(section, `diverseSelect: {strategy: "`+d.Name+`"`) {
			t.Errorf("docs/strategies.md section %s has no query example", d.Name)
		}
		for _, p := range d.Params {
			if !strings.Contains(section, "| `"+p.Name+"` |") {
				t.Errorf("docs/strategies.md section %s lacks a row for %s (run make docs-gen)", d.Name, p.Name)
			}
		}
	}
}
