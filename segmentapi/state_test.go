package segmentapi

import (
	"testing"

	"github.com/diverse-select/diverse-select/internal/pkgcheck"
)

// TestNoPackageState: the handler keeps no package-level variable - nothing
// a request could share with another.
func TestNoPackageState(t *testing.T) {
	pkgcheck.NoPackageState(t)
}

// TestNoModuleImport: the gateway serves this handler, so it stands on the
// engine, never on the module's adapters (package module); and package
// segment under it stays free of Weaviate.
func TestNoModuleImport(t *testing.T) {
	pkgcheck.NoImport(t, "github.com/diverse-select/diverse-select/module")
	chain, err := pkgcheck.ImportChain("../segment", "github.com/weaviate/weaviate")
	if err != nil {
		t.Fatal(err)
	}
	if chain != nil {
		t.Errorf("package segment imports Weaviate: %v", chain)
	}
}
