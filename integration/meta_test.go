package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"testing"

	"github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/tokens"
)

// metaModule is /v1/meta's modules["diverse-select"].
type metaModule struct {
	Name       string
	Version    string
	CommonKeys []string
	Tokenizers []string
	Defaults   map[string]any
	Strategies []struct {
		Name         string
		Doc          string
		NeedsVectors bool
		NeedsText    bool
		Parameters   []struct {
			Name    string
			Type    string
			Default any
			Allowed string
			Doc     string
		}
	}
}

// TestMeta: /v1/meta lists the module with its version and every registered
// strategy with each of its parameters (type, default, allowed values).
func TestMeta(t *testing.T) {
	resp, err := httpc.Get(srv.HTTPURL + "/v1/meta")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/meta: status %d", resp.StatusCode)
	}
	var meta struct {
		Version string
		Modules map[string]json.RawMessage
	}
	if err := json.NewDecoder(resp.Body).Decode(&meta); err != nil {
		t.Fatal(err)
	}
	if want := pinnedWeaviate(t); meta.Version != want {
		t.Errorf("Weaviate version %q, want %q, the version the root go.mod pins", meta.Version, want)
	}
	raw, ok := meta.Modules["diverse-select"]
	if !ok {
		t.Fatalf("/v1/meta lists modules %v, not diverse-select", keys(meta.Modules))
	}
	if _, ok := meta.Modules["text2vec-transformers"]; !ok {
		t.Errorf("text2vec-transformers missing from /v1/meta")
	}
	var m metaModule
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	if m.Name != "diverse-select" {
		t.Errorf("name %q", m.Name)
	}
	if !regexp.MustCompile(`^\d+\.\d+\.\d+`).MatchString(m.Version) {
		t.Errorf("version %q is not a semantic version", m.Version)
	}
	if fmt.Sprint(m.CommonKeys) != fmt.Sprint(config.CommonKeys) {
		t.Errorf("commonKeys %v, want %v", m.CommonKeys, config.CommonKeys)
	}
	if fmt.Sprint(m.Tokenizers) != fmt.Sprint(tokens.Names()) {
		t.Errorf("tokenizers %v, want %v", m.Tokenizers, tokens.Names())
	}
	// Every authenticated user reads /v1/meta: without DIVERSE_SELECT_META_DETAILS
	// it holds no plugin paths or PIDs and no cache or in-flight figures.
	var details map[string]any
	if err := json.Unmarshal(raw, &details); err != nil {
		t.Fatal(err)
	}
	if _, ok := details["inflightBytes"]; ok {
		t.Errorf("/v1/meta shows inflightBytes without DIVERSE_SELECT_META_DETAILS")
	}
	if fc, _ := details["featureCache"].(map[string]any); len(fc) != 1 || fc["enabled"] != true {
		t.Errorf("/v1/meta's featureCache is %v, want only {enabled: true} without DIVERSE_SELECT_META_DETAILS", fc)
	}
	if m.Defaults["strategy"] != config.DefaultStrategy {
		t.Errorf("default strategy %v, want %s", m.Defaults["strategy"], config.DefaultStrategy)
	}
	for _, e := range config.Env {
		if _, ok := m.Defaults[e.Meta]; !ok {
			t.Errorf("defaults %v lack %s (%s)", m.Defaults, e.Meta, e.Name)
		}
	}
	byName := map[string]int{}
	for i, s := range m.Strategies {
		byName[s.Name] = i
	}
	for _, d := range selectors.Definitions() {
		t.Run(d.Name, func(t *testing.T) {
			i, ok := byName[d.Name]
			if !ok {
				t.Fatalf("strategy %q missing from /v1/meta", d.Name)
			}
			s := m.Strategies[i]
			if s.Doc == "" || s.NeedsVectors != d.NeedsVectors || s.NeedsText != d.NeedsText {
				t.Errorf("meta %+v does not describe %+v", s, d)
			}
			if len(s.Parameters) != len(d.Params) {
				t.Fatalf("%d parameters listed, the strategy has %d", len(s.Parameters), len(d.Params))
			}
			for j, p := range d.Params {
				got := s.Parameters[j]
				if got.Name != p.Name || got.Type != string(p.Kind) || got.Allowed != p.Range() || got.Doc == "" {
					t.Errorf("parameter %d: listed %+v, want %s %s %s", j, got, p.Name, p.Kind, p.Range())
				}
				if fmt.Sprint(got.Default) != fmt.Sprint(p.Default) && !(got.Default == nil && p.Default == nil) {
					// JSON turns ints into float64; compare printed values.
					if want, ok := p.Default.(int); !ok || got.Default != float64(want) {
						t.Errorf("parameter %s: default %v, want %v", p.Name, got.Default, p.Default)
					}
				}
			}
		})
	}
	if len(m.Strategies) != len(selectors.Names()) {
		t.Errorf("/v1/meta lists %d strategies, %d are registered", len(m.Strategies), len(selectors.Names()))
	}
}

func keys(m map[string]json.RawMessage) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// pinnedWeaviate reads the Weaviate version from the root go.mod, the one
// line a bump changes, so this test never needs editing for a bump.
func pinnedWeaviate(t *testing.T) string {
	t.Helper()
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*github\.com/weaviate/weaviate v(\S+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("../go.mod does not require github.com/weaviate/weaviate")
	}
	return string(m[1])
}
