//go:build diverseselect_faults

package engine

// The fault-injection build (make weaviate-faults) links the misbehaving
// strategies of internal/faults into the server for the integration tests.
import _ "github.com/diverse-select/diverse-select/internal/faults"
