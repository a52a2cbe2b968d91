package doccheck

import (
	"regexp"
	"strings"
	"testing"

	"github.com/diverse-select/diverse-select/engine"
)

var reRelease2 = regexp.MustCompile(`(?m)^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}\n\nBuilt on Weaviate (v\S+)\.`)

// TestChangelogNamesTheRelease: the CHANGELOG's newest release is the module
// version /v1/meta reports (module.Version), built on go.mod's Weaviate pin,
// and the LICENSE is BSD-3-Clause, as Weaviate's.
func TestChangelogNamesTheRelease(t *testing.T) {
	changelog := read(t, "CHANGELOG.md")
	m := reRelease2.FindStringSubmatch(changelog)
	if m == nil {
		t.Fatal("CHANGELOG.md has no release section (## [X.Y.Z] - YYYY-MM-DD, then \"Built on Weaviate vX.Y.Z.\")")
	}
	if m[1] != engine.Version {
		t.Errorf("the newest CHANGELOG release is %s, module.Version is %s", m[1], engine.Version)
	}
	if pin := pinnedWeaviate(t); m[2] != pin {
		t.Errorf("the newest CHANGELOG release is built on Weaviate %s, go.mod pins %s", m[2], pin)
	}
	if i, j := strings.Index(changelog, "## [Unreleased]"), strings.Index(changelog, m[0]); i > j {
		t.Error("## [Unreleased] must come before the releases")
	}
	license := read(t, "LICENSE")
	for _, want := range []string{"BSD 3-Clause License", "Neither the name of the copyright holder"} {
		if !strings.Contains(license, want) {
			t.Errorf("LICENSE lacks %q", want)
		}
	}
}
