package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"

	"github.com/diverse-select/diverse-select/integration/stack"
)

// TestGatewayCreate: the README's collection create works through the
// gateway in front of stock Weaviate (the official Python client,
// Configure.Reranker.custom("reranker-diverse-select", {"tokenBudget": ...})):
// the create is accepted and read back as sent, stock Weaviate keeps the
// defaults in the class's description (no moduleConfig it would refuse), a
// helper query with no per-query settings selects with the created budget,
// a second gateway with no config file on the same upstream selects the
// same, a config file naming the collection wins, and a bad setting at
// create is refused with the key named.
func TestGatewayCreate(t *testing.T) {
	const class, budget = "GatewayCreated", 60
	gs := startGatewayStack(t, "gateway-create", gatewayOptions{})
	python := venvPython(t)
	root, err := stack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	chunks := make([]string, len(healthDocs))
	for i, d := range healthDocs {
		chunks[i] = d.Body
	}
	cb, _ := json.Marshal(chunks)
	outFile := filepath.Join(t.TempDir(), "out.json")
	c, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(c, python, filepath.Join(root, "integration", "py", "gateway_create.py"))
	cmd.Env = append(os.Environ(), "GATEWAY_HTTP_PORT="+portOf(gs.HTTPURL), "GATEWAY_GRPC_PORT="+portOf(gs.GRPCAddr),
		"DIVERSE_SELECT_CLASS="+class, "DIVERSE_SELECT_BUDGET=60", "DIVERSE_SELECT_CHUNKS="+string(cb),
		"DIVERSE_SELECT_QUERY="+healthQuery, "DIVERSE_SELECT_OUT="+outFile)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("python gateway_create.py: %v\n%s\ngateway log:\n%s", err, out, gs.logTail())
	}
	var got struct {
		Reranker       string         `json:"reranker"`
		RerankerConfig map[string]any `json:"rerankerConfig"`
		Description    string         `json:"description"`
		Picks          []struct {
			Body, Explain string
			Rank          int
		} `json:"picks"`
		BadError  string `json:"badError"`
		BadExists bool   `json:"badExists"`
	}
	readJSON(t, outFile, "gateway_create.py", &got)
	t.Logf("read back: reranker %s %v, description %q; the helper's query: %d picks; a bad tokenBudget: %s",
		got.Reranker, got.RerankerConfig, got.Description, len(got.Picks), got.BadError)

	// read back through the gateway as created
	if !strings.Contains(got.Reranker, "reranker-diverse-select") || got.RerankerConfig["tokenBudget"] != float64(budget) ||
		got.Description != "the README's collection" {
		t.Errorf("read back through the gateway: reranker %q config %v description %q", got.Reranker, got.RerankerConfig, got.Description)
	}
	// the helper's query with no settings: the created budget
	if len(got.Picks) == 0 || len(got.Picks) >= len(healthDocs) {
		t.Fatalf("the helper's query selected %d of %d chunks", len(got.Picks), len(healthDocs))
	}
	for _, p := range got.Picks {
		if b, _ := explainJSON(p.Explain)["budget"].(float64); int(b) != budget {
			t.Errorf("a pick's explanation %q: budget %v, want the created %d", p.Explain, b, budget)
		}
	}
	// a bad setting: refused, the key named, nothing created
	if !strings.Contains(got.BadError, "tokenBudget") || !strings.Contains(got.BadError, "must be an integer in [0, ") ||
		!strings.Contains(got.BadError, "422") || got.BadExists {
		t.Errorf("a bad tokenBudget at create: %q (created: %v)", got.BadError, got.BadExists)
	}

	// stock Weaviate itself keeps no moduleConfig it does not know
	resp, err := http.Get(gs.up.HTTPURL + "/v1/schema/" + class)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.Contains(string(raw), `"reranker-diverse-select":{`) || !strings.Contains(string(raw), `\"tokenBudget\":60`) {
		t.Errorf("stock Weaviate's schema of %s: %s", class, raw)
	}

	// a plain rerank, no settings, through gateways that know nothing but the upstream
	plain := func(g *gatewayStack) (budgetSeen, n int) {
		t.Helper()
		q := healthQuery
		reply, err := g.search(ctx(t), &pb.SearchRequest{Collection: class, Limit: 40,
			Rerank:     &pb.Rerank{Property: "body", Query: &q},
			NearText:   &pb.NearTextSearch{Query: []string{healthQuery}},
			Properties: &pb.PropertiesRequest{NonRefProperties: []string{"body"}},
			Metadata:   &pb.MetadataRequest{Uuid: true, ExplainScore: true}, Uses_123Api: true, Uses_125Api: true, Uses_127Api: true})
		if err != nil {
			t.Fatalf("a plain rerank: %v\n%s", err, g.logTail())
		}
		if len(reply.Results) == 0 {
			t.Fatal("a plain rerank selected nothing")
		}
		b, _ := explainJSON(reply.Results[0].GetMetadata().GetExplainScore())["budget"].(float64)
		return int(b), len(reply.Results)
	}
	if b, n := plain(gs); b != budget || n != len(got.Picks) {
		t.Errorf("the creating gateway: budget %d, %d picks; want %d, %d", b, n, budget, len(got.Picks))
	}
	second := &gatewayStack{up: gs.up}
	second.launch(t, "gateway-create-2", nil, nil, t.Cleanup)
	var upClass struct{ Description string }
	_ = json.Unmarshal(raw, &upClass)
	t.Logf("stock Weaviate's description: %q", upClass.Description)
	if b, n := plain(second); b != budget || n != len(got.Picks) {
		t.Errorf("a second gateway on the same upstream: budget %d, %d picks; want %d, %d", b, n, budget, len(got.Picks))
	}
	// the config file wins over the kept defaults
	third := &gatewayStack{up: gs.up}
	third.launch(t, "gateway-create-3", map[string]any{class: map[string]any{"tokenBudget": 30}}, nil, t.Cleanup)
	if b, _ := plain(third); b != 30 {
		t.Errorf("a gateway whose file names %s: budget %d, want the file's 30", class, b)
	}
}

// TestGatewayReadmePrograms: the README's Python, TypeScript and Go
// programs, as written, against the gateway in front of stock Weaviate
// (HTTP_PORT and GRPC_PORT the gateway's): each creates the README's
// collection through it (moduleConfig["reranker-diverse-select"]
// included), imports, and prints a selection within its budget, twice;
// then all print the same picks on one collection. (The TypeScript program
// needs integration/ts's node_modules, make ts-deps; without them it is
// skipped, said in the log.)
func TestGatewayReadmePrograms(t *testing.T) {
	root, text := readmeText(t)
	gs := startGatewayStack(t, "gateway-readme", gatewayOptions{})
	env := append(os.Environ(), "HTTP_PORT="+portOf(gs.HTTPURL), "GRPC_PORT="+portOf(gs.GRPCAddr))
	run := func(t *testing.T, s Snippet) string {
		t.Helper()
		c, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		cmd := programCommand(t, c, root, s)
		cmd.Env = env
		out, err := cmd.Output()
		if err != nil {
			var stderr []byte
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = ee.Stderr
			}
			t.Fatalf("%s through the gateway: %v\n%s%s\ngateway log:\n%s", s, err, out, stderr, gs.logTail())
		}
		return string(out)
	}
	var programs []Snippet
	for _, s := range ParseSnippets("README.md", string(text)) {
		if s.Fragment != "" || !programLangs[s.Lang] {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, "integration", "ts", "node_modules")); s.Lang == "js" && err != nil {
			t.Logf("%s: skipped, no integration/ts/node_modules (make ts-deps)", s)
			continue
		}
		programs = append(programs, s)
	}
	if len(programs) < 2 {
		t.Fatalf("the README holds %d client programs, want Python and Go at least", len(programs))
	}
	var picked []Snippet
	for _, s := range programs {
		t.Run(fmt.Sprintf("README.md:%d", s.Line), func(t *testing.T) {
			_ = gs.upClient.Schema().ClassDeleter().WithClassName("Article").Do(ctx(t))
			first := run(t, s) // creates the collection through the gateway
			if again := run(t, s); again != first {
				t.Errorf("%s prints other picks on its second run:\n%s\nfirst:\n%s", s, again, first)
			}
			t.Logf("%s through the gateway printed:\n%s", s, first)
			if checkPicks(t, s, first) {
				picked = append(picked, s)
			}
			resp, err := http.Get(gs.HTTPURL + "/v1/schema/Article")
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.Contains(string(raw), `"reranker-diverse-select":{"tokenBudget":600}`) {
				t.Errorf("the collection %s created, read through the gateway: %s", s, raw)
			}
		})
	}
	var first string
	for _, s := range picked {
		if out := run(t, s); first == "" {
			first = out
		} else if out != first {
			t.Errorf("%s printed other picks than %s on the same collection:\n%s\nwant\n%s", s, picked[0], out, first)
		}
	}
	_ = gs.upClient.Schema().ClassDeleter().WithClassName("Article").Do(ctx(t))
}
