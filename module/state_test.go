package diverseselect

import (
	"testing"

	"github.com/diverse-select/diverse-select/internal/pkgcheck"
)

// TestNoPackageState: the adapters keep no package-level variable but
// interface assertions and read-only tables - nothing a query could share
// with another (no globals, no context keys).
func TestNoPackageState(t *testing.T) {
	pkgcheck.NoPackageState(t, "commonArgs")
}
