package diverseselect

import (
	"regexp"
	"testing"

	"github.com/diverse-select/diverse-select/engine"
)

// TestMetaVersion: /v1/meta's module section carries the module version, the
// const the release rule and the CHANGELOG follow (docs/development.md,
// "Releases and versions"; internal/doccheck checks the CHANGELOG).
func TestMetaVersion(t *testing.T) {
	if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(engine.Version) {
		t.Errorf("Version %q is not MAJOR.MINOR.PATCH", engine.Version)
	}
	info, err := New(nil).MetaInfo()
	if err != nil {
		t.Fatal(err)
	}
	if info["version"] != engine.Version {
		t.Errorf("meta version = %v, want %q", info["version"], engine.Version)
	}
}
