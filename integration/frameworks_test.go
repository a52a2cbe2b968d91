package integration

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	dsclient "github.com/diverse-select/diverse-select/clients/go"
	"github.com/diverse-select/diverse-select/internal/corpus"
)

// frameworkTests are the tests of pyfw/test_frameworks.py, each of which
// must pass on each target: a renamed, skipped or missing one fails.
var frameworkTests = []string{
	"test_langchain_retriever",
	"test_langchain_from_vector_store",
	"test_langchain_chain_prompt",
	"test_llamaindex_query_engine",
	"test_haystack_pipeline",
	"test_docs_examples",
}

// frameworkClass and frameworkBudget are pyfw's collection and its token
// budget (conftest.py's COLLECTION and BUDGET).
const (
	frameworkClass  = "FrameworkDemo"
	frameworkBudget = 300
)

// TestFrameworks runs the helper's LangChain, LlamaIndex and Haystack
// components (pyfw, pytest from the venv) on the demo corpus against the
// module's server and through the gateway in front of stock Weaviate, then
// checks the selections they returned against the Go helper's on the same
// server with the same settings.
func TestFrameworks(t *testing.T) {
	gs := startGatewayStack(t, "frameworks", gatewayOptions{
		config: map[string]any{frameworkClass: map[string]any{"tokenBudget": frameworkBudget}}})
	targets := []struct{ name, httpPort, grpcAddr string }{
		{"module", fmt.Sprint(srv.HTTPPort), srv.GRPCAddr},
		{"gateway", portOf(gs.HTTPURL), gs.GRPCAddr},
	}
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			got := runFrameworkTests(t, tg.name, tg.httpPort, portOf(tg.grpcAddr))
			conn, err := dsclient.Connect(tg.grpcAddr, false, nil)
			if err != nil {
				t.Fatal(err)
			}
			var queries []string
			for _, q := range corpus.Queries() {
				queries = append(queries, q.Text)
			}
			// The components' settings: langchain coverage, llamaindex dpp, haystack adagres on the query
			// vector (its pool is near_vector's, so compared by size and budget only here).
			for framework, strategy := range map[string]string{"langchain": dsclient.StrategyCoverage,
				"llamaindex": dsclient.StrategyDPP} {
				for _, q := range queries {
					want, err := dsclient.Select(ctx(t), conn, dsclient.Query{Collection: frameworkClass, Limit: 40,
						NearText: q, Property: "text"}, dsclient.Options{Strategy: strategy, TokenBudget: dsclient.Int(frameworkBudget)})
					if err != nil {
						t.Fatalf("%s %q: the Go helper: %v", framework, q, err)
					}
					var ids []string
					for _, o := range want {
						ids = append(ids, o.ID)
					}
					if g := got[framework+"/"+q]; !slices.Equal(g, ids) || len(ids) < 2 {
						t.Errorf("%s %q: the component returned %v, the Go helper selects %v", framework, q, g, ids)
					}
				}
			}
			for _, q := range queries {
				if n := len(got["haystack/"+q]); n < 2 {
					t.Errorf("haystack %q: %d documents", q, n)
				}
			}
		})
	}
}

// runFrameworkTests runs pyfw against one target and returns the selections it wrote.
func runFrameworkTests(t *testing.T, target, httpPort, grpcPort string) map[string][]string {
	t.Helper()
	dir := t.TempDir()
	var queries []string
	for _, q := range corpus.Queries() {
		queries = append(queries, q.Text)
	}
	input := writeJSON(t, filepath.Join(dir, "input.json"), map[string]any{
		"chunks": corpus.Chunks(), "queries": queries, "embedder": srv.EmbedderURL, "target": target})
	runPytest(t, "pyfw", frameworkTests, "WEAVIATE_HTTP_PORT="+httpPort, "WEAVIATE_GRPC_PORT="+grpcPort,
		"DIVERSE_SELECT_FW_INPUT="+input, "DIVERSE_SELECT_FW_OUT="+dir, "HAYSTACK_TELEMETRY_ENABLED=False")
	got := map[string][]string{}
	readJSON(t, filepath.Join(dir, "selections.json"), "the framework tests", &got)
	if want := 3 * len(queries); len(got) != want {
		t.Errorf("the framework tests wrote %d selections, want %d: %s", len(got), want, strings.Join(slices.Sorted(maps.Keys(got)), ", "))
	}
	return got
}
