package diverseselect

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/diverse-select/diverse-select/engine"
)

// TestRootHandler: Weaviate's mount of the module routes /segment to the
// segmentation endpoint (package segmentapi, whose tests cover it), which
// refuses a request without the glue's authenticator, and answers any other
// path with a 404 naming the route it serves.
func TestRootHandler(t *testing.T) {
	srv := httptest.NewServer(http.StripPrefix("/v1/modules/"+engine.Name, New(nil).RootHandler()))
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		path   string
		status int
		want   string
	}{
		{"/segment", http.StatusUnauthorized, "segment: no authenticator"},
		{"/other", http.StatusNotFound, "no route POST /v1/modules/" + engine.Name + "/other; the module serves POST /v1/modules/" + engine.Name + "/segment"},
	} {
		res, err := http.Post(srv.URL+"/v1/modules/"+engine.Name+tc.path, "application/json", strings.NewReader(`{"text":"One."}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != tc.status || !strings.Contains(string(body), tc.want) || res.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: status %d, body %s; want %d and %q", tc.path, res.StatusCode, body, tc.status, tc.want)
		}
	}
}
