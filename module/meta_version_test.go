package diverseselect

import (
	"regexp"
	"testing"
)

// TestMetaVersion: /v1/meta's module section carries the module version, the
// const the release rule and the CHANGELOG follow (docs/development.md,
// "Releases and versions"; internal/doccheck checks the CHANGELOG).
func TestMetaVersion(t *testing.T) {
	if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(Version) {
		t.Errorf("Version %q is not MAJOR.MINOR.PATCH", Version)
	}
	info, err := New(nil).MetaInfo()
	if err != nil {
		t.Fatal(err)
	}
	if info["version"] != Version {
		t.Errorf("meta version = %v, want %q", info["version"], Version)
	}
}
