package all_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/diverse-select/diverse-select/selectors"
)

// TestREADMEDocumentsEveryStrategy keeps the README's strategy sections in
// step with the registry: every strategy has a section with a query example
// and a table row per parameter showing its default and allowed range.
func TestREADMEDocumentsEveryStrategy(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	for _, d := range selectors.Definitions() {
		start := strings.Index(readme, "\n### "+d.Name+"\n")
		if start < 0 {
			t.Errorf("README has no section \"### %s\"", d.Name)
			continue
		}
		section := readme[start+1:]
		if end := strings.Index(section[4:], "\n### "); end >= 0 {
			section = section[:end+4]
		}
		if !strings.Contains(section, `diverseSelect: {strategy: "`+d.Name+`"`) {
			t.Errorf("README section %s has no query example", d.Name)
		}
		for _, p := range d.Params {
			def := "unset"
			if p.Default != nil {
				def = fmt.Sprint(p.Default)
			}
			row := fmt.Sprintf("| `%s` | %s | %s |", p.Name, def, p.Range())
			if !strings.Contains(section, row) {
				t.Errorf("README section %s lacks the row %q", d.Name, row)
			}
		}
	}
}
