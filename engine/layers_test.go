package engine

import (
	"testing"

	"github.com/diverse-select/diverse-select/internal/pkgcheck"
)

// TestLayers: no file of engine/ uses a name declared in a file of a layer
// above its own - the order doc.go gives a reader holds. A new file takes
// its place here.
func TestLayers(t *testing.T) {
	pkgcheck.Layers(t, [][]string{
		{"standalone.go", "standalone_create.go"},
		{"stage.go", "hooks.go", "route.go", "route_graphql.go", "route_rerank.go", "query.go", "search.go", "rerank_settings.go", "rerank_syntax.go"},
		{"select.go", "problem.go", "deferred.go", "features.go", "relevance.go", "evidence.go", "multivector.go", "versions.go", "limits.go"},
		{"plan.go"},
		{"engine.go"},
		{"metrics.go", "errors.go", "guard.go", "status.go", "inflight.go"},
		{"names.go", "doc.go", "faults.go"},
	})
}
