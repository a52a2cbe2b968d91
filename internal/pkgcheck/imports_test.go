package pkgcheck

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestImportChain: the walk finds a direct import and one through another
// package of the repository, and none where there is none.
func TestImportChain(t *testing.T) {
	const mod = "github.com/diverse-select/diverse-select"
	for _, tc := range []struct {
		dir, forbidden, want string
	}{
		{"../../module", mod + "/engine", mod + "/module -> " + mod + "/engine"},
		{"../../module", mod + "/selectors/tokens", mod + "/module -> "},
		{"../../segment", mod + "/module", ""},
	} {
		dir, err := filepath.Abs(tc.dir)
		if err != nil {
			t.Fatal(err)
		}
		chain, err := ImportChain(dir, tc.forbidden)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(chain, " -> ")
		if tc.want == "" && got != "" || !strings.HasPrefix(got, tc.want) || tc.want != "" && !strings.HasSuffix(got, tc.forbidden) {
			t.Errorf("%s to %s: chain %q; want one starting %q", tc.dir, tc.forbidden, got, tc.want)
		}
	}
}
