package gateway

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
)

// TestOwnEndpoints: the status endpoint shows the config only to a caller
// the upstream authenticates (with the upstream's refusal code and no
// detail otherwise); liveness and readiness reveal nothing, readiness
// following the upstream's.
func TestOwnEndpoints(t *testing.T) {
	var ready atomic.Bool
	ready.Store(true)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/.well-known/ready":
			if !ready.Load() {
				w.WriteHeader(http.StatusServiceUnavailable)
			}
		case "/v1/meta":
			if r.Header.Get("Authorization") != "Bearer good" {
				http.Error(w, `{"error":"anonymous access not enabled"}`, http.StatusUnauthorized)
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer up.Close()
	dir := t.TempDir()
	cfg := dir + "/gateway.yaml"
	writeFile(t, cfg, "collections:\n  SecretDocs: {strategy: mmr}\n")
	g, err := New(Options{UpstreamGRPC: "127.0.0.1:1", UpstreamHTTP: up.URL, ConfigPath: cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	h := g.HTTPHandler()
	get := func(path, auth string) (int, string) {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		b, _ := io.ReadAll(rec.Body)
		return rec.Code, string(b)
	}
	for _, tc := range []struct {
		name, path, auth string
		ready            bool
		code             int
		shows            bool // the body names the collection
	}{
		{"status, no key", StatusPath, "", true, http.StatusUnauthorized, false},
		{"status, wrong key", StatusPath, "Bearer bad", true, http.StatusUnauthorized, false},
		{"status, a key the upstream takes", StatusPath, "Bearer good", true, http.StatusOK, true},
		{"live", LivePath, "", false, http.StatusOK, false},
		{"ready", ReadyPath, "", true, http.StatusOK, false},
		{"not ready", ReadyPath, "", false, http.StatusServiceUnavailable, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ready.Store(tc.ready)
			code, body := get(tc.path, tc.auth)
			if code != tc.code || strings.Contains(body, "SecretDocs") != tc.shows {
				t.Errorf("%s: %d %q, want %d, collection shown: %t", tc.path, code, body, tc.code, tc.shows)
			}
			if !tc.shows && (strings.Contains(body, "mmr") || strings.Contains(body, "Cache")) {
				t.Errorf("%s reveals the config or the caches: %q", tc.path, body)
			}
		})
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
