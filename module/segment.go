package diverseselect

import (
	"fmt"
	"net/http"

	"github.com/diverse-select/diverse-select/engine"
	"github.com/diverse-select/diverse-select/segmentapi"
)

// RootHandler implements modulecapabilities.ModuleWithHTTPHandlers: Weaviate
// serves it under /v1/modules/diverse-select/. Its one route is the
// segmentation endpoint, POST /v1/modules/diverse-select/segment, served by
// package segmentapi's handler, which the gateway serves too.
func (m *Module) RootHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/segment", m.segment)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		segmentapi.WriteError(w, http.StatusNotFound, fmt.Sprintf("no route %s /v1/modules/%s%s; the module serves POST /v1/modules/%s/segment", r.Method, engine.Name, r.URL.Path, engine.Name))
	})
	return mux
}
