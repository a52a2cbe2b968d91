package gateway

import (
	"testing"

	"github.com/diverse-select/diverse-select/internal/pkgcheck"
)

// TestNoModuleImport: the gateway runs the engine and the segmentation
// endpoint's handler (package segmentapi) in front of a stock Weaviate; it
// imports the module's adapters (package module) neither directly nor
// through another package of ours.
func TestNoModuleImport(t *testing.T) {
	pkgcheck.NoImport(t, "github.com/diverse-select/diverse-select/module")
}
