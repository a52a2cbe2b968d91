package diverseselect

import (
	"testing"

	"github.com/diverse-select/diverse-select/internal/pkgcheck"
)

// TestLayers: no file of module/ uses a name declared in a file of a layer
// above its own - the order doc.go gives a reader holds. The adapters stand
// on the engine (package engine, its own TestLayers). A new file takes its
// place here.
func TestLayers(t *testing.T) {
	pkgcheck.Layers(t, [][]string{
		{"module.go", "reranker.go", "segment.go", "segment_outside.go", "capabilities.go"},
		{"meta.go", "graphql.go"},
		{"doc.go"},
	})
}
