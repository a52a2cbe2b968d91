package gateway

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sirupsen/logrus"
)

// fakeSchema is an upstream that keeps classes as stock Weaviate does: a
// moduleConfig naming a module it does not run is refused.
type fakeSchema struct {
	mu      sync.Mutex
	classes map[string]map[string]any
	posts   int
}

func (f *fakeSchema) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/schema", r.Method == http.MethodPut:
		f.posts++
		var c map[string]any
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &c); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if mc, _ := c["moduleConfig"].(map[string]any); mc != nil {
			for name := range mc {
				w.WriteHeader(http.StatusUnprocessableEntity)
				_, _ = w.Write([]byte(`{"error":[{"message":"module with name ` + name + ` doesn't exist"}]}`))
				return
			}
		}
		f.classes[c["class"].(string)] = c
		_ = json.NewEncoder(w).Encode(c)
	case r.Method == http.MethodGet && r.URL.Path == "/v1/schema":
		list := []any{}
		for _, c := range f.classes {
			list = append(list, c)
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"classes": list})
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/schema/"):
		c, ok := f.classes[strings.TrimPrefix(r.URL.Path, "/v1/schema/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_ = json.NewEncoder(w).Encode(c)
	default:
		http.NotFound(w, r)
	}
}

func newSchemaGateway(t *testing.T, up string, configPath string) *Gateway {
	t.Helper()
	logger := logrus.New()
	logger.SetOutput(io.Discard)
	g, err := New(Options{UpstreamGRPC: "127.0.0.1:1", UpstreamHTTP: up, ConfigPath: configPath,
		Getenv: func(string) string { return "" }, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	return g
}

func TestSchemaCreateKeepsModuleConfig(t *testing.T) {
	f := &fakeSchema{classes: map[string]map[string]any{}}
	up := httptest.NewServer(f)
	defer up.Close()
	g := newSchemaGateway(t, up.URL, "")
	gw := httptest.NewServer(g.HTTPHandler())
	defer gw.Close()

	do := func(method, path, body string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(method, gw.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	article := `{"class":"Article","description":"news","properties":[{"name":"body","dataType":["text"]}],` +
		`"moduleConfig":{"reranker-diverse-select":{"tokenBudget":600,"strategy":"mmr"}}}`
	if code, out := do("POST", "/v1/schema", article); code != 200 {
		t.Fatalf("create: %d %v", code, out)
	} else if mc, _ := out["moduleConfig"].(map[string]any); mc["reranker-diverse-select"] == nil || out["description"] != "news" {
		t.Errorf("the create's answer is not the class sent: %v", out)
	}
	kept := f.classes["Article"]
	if kept["moduleConfig"] != nil || !strings.HasPrefix(kept["description"].(string), "news\n\n"+storedMark) {
		t.Fatalf("upstream keeps %v", kept)
	}
	_, out := do("GET", "/v1/schema/Article", "")
	rr, _ := out["moduleConfig"].(map[string]any)["reranker-diverse-select"].(map[string]any)
	if rr["tokenBudget"] != 600.0 || out["description"] != "news" {
		t.Errorf("read back %v", out)
	}
	_, all := do("GET", "/v1/schema", "")
	if !strings.Contains(compactJSON(all), `"reranker-diverse-select":{"strategy":"mmr","tokenBudget":600}`) ||
		strings.Contains(compactJSON(all), storedMark) {
		t.Errorf("schema read %v", all)
	}

	// every gateway on the upstream reads the defaults from it
	other := newSchemaGateway(t, up.URL, "")
	if d := other.collectionDefaults(context.Background(), "Article"); d["tokenBudget"] != 600.0 || d["strategy"] != "mmr" {
		t.Errorf("another gateway's defaults: %v", d)
	}
	if d := other.collectionDefaults(context.Background(), "Missing"); d != nil {
		t.Errorf("a missing collection's defaults: %v", d)
	}

	// the config file wins
	path := filepath.Join(t.TempDir(), "gateway.yaml")
	if err := os.WriteFile(path, []byte("collections:\n  Article: {tokenBudget: 90}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	withFile := newSchemaGateway(t, up.URL, path)
	if d := withFile.collectionDefaults(context.Background(), "Article"); d["tokenBudget"] != 90.0 || d["strategy"] != nil {
		t.Errorf("the file's defaults: %v", d)
	}

	// a bad setting is refused with the key named, before the upstream
	posts := f.posts
	for _, bad := range []struct{ body, key string }{
		{`{"class":"Bad","moduleConfig":{"reranker-diverse-select":{"tokenBudget":-5}}}`, "tokenBudget"},
		{`{"class":"Bad","moduleConfig":{"reranker-diverse-select":{"tokenBugdet":5}}}`, "tokenBugdet"},
		{`{"class":"Bad","moduleConfig":{"diverse-select":{"strategy":"nope"}}}`, "strategy"},
		{`{"class":"Bad","moduleConfig":{"reranker-diverse-select":5}}`, "reranker-diverse-select"},
	} {
		code, out := do("POST", "/v1/schema", bad.body)
		if code != http.StatusUnprocessableEntity || !strings.Contains(compactJSON(out), bad.key) {
			t.Errorf("%s: %d %v, want 422 naming %s", bad.body, code, out, bad.key)
		}
	}
	if f.posts != posts {
		t.Errorf("a refused create reached the upstream")
	}

	// an update keeps the entries again, replacing the earlier ones; the
	// gateway that made it forgets the schema it kept
	if d := g.collectionDefaults(context.Background(), "Article"); d["tokenBudget"] != 600.0 {
		t.Errorf("before the update: %v", d)
	}
	upd := `{"class":"Article","description":"news","properties":[{"name":"body","dataType":["text"]}],` +
		`"moduleConfig":{"reranker-diverse-select":{"tokenBudget":300}}}`
	if code, out := do("PUT", "/v1/schema/Article", upd); code != 200 {
		t.Fatalf("update: %d %v", code, out)
	}
	if d := g.collectionDefaults(context.Background(), "Article"); d["tokenBudget"] != 300.0 {
		t.Errorf("after the update, the gateway that made it: %v", d)
	}
	if d := newSchemaGateway(t, up.URL, "").collectionDefaults(context.Background(), "Article"); d["tokenBudget"] != 300.0 {
		t.Errorf("after the update, another gateway: %v", d)
	}
	// a class without the module's entries passes as sent
	if code, out := do("POST", "/v1/schema", `{"class":"Plain","description":"x"}`); code != 200 || f.classes["Plain"]["description"] != "x" {
		t.Errorf("plain create: %d %v", code, out)
	}
}

func TestSplitStored(t *testing.T) {
	for _, plain := range []string{"", "a description", "text mentioning " + storedMark + " not JSON"} {
		desc, err := joinStored(plain, map[string]any{"reranker-diverse-select": map[string]any{"tokenBudget": 5.0}})
		if err != nil {
			t.Fatal(err)
		}
		got, kept, ok := splitStored(desc)
		if !ok || got != plain || kept["reranker-diverse-select"] == nil {
			t.Errorf("%q: %q %v %v", plain, got, kept, ok)
		}
	}
	if got, _, ok := splitStored("just words"); ok || got != "just words" {
		t.Errorf("a plain description: %q %v", got, ok)
	}
}
