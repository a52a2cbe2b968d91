package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"

	dsclient "github.com/diverse-select/diverse-select/clients/go"
	"github.com/diverse-select/diverse-select/integration/stack"
)

// The official clients pointed at the gateway unchanged, as at Weaviate:
// their selections are the module's (the equality servers), their other
// calls stock Weaviate's.

// gatewayClientCases are per-query settings as the helpers take them.
var gatewayClientCases = map[string]map[string]any{
	"mmr":      {"strategy": "mmr", "tokenBudget": 60, "lambda": 0.7},
	"coverage": {"strategy": "coverage", "tokenBudget": 120},
	"adagres":  {"strategy": "adagres", "tokenBudget": 90, "maxResults": 4},
}

type tsSelection struct {
	ID      string `json:"id"`
	Explain string `json:"explain"`
	Rank    int    `json:"rank"`
}

type tsGatewayOut struct {
	Selections map[string][]tsSelection `json:"selections"`
	MMR        []string                 `json:"mmr"`
	Plain      []string                 `json:"plain"`
	Count      int                      `json:"count"`
	Fetched    string                   `json:"fetched"`
	Written    int                      `json:"written"`
	Live       bool                     `json:"live"`
}

// runTSGateway runs ts/gateway.test.mjs against the given ports.
func runTSGateway(t *testing.T, httpPort, grpcPort string, cases map[string]map[string]any) tsGatewayOut {
	t.Helper()
	b, _ := json.Marshal(cases)
	outFile := filepath.Join(t.TempDir(), "out.json")
	c, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := nodeCommand(t, c, []string{"GATEWAY_HTTP_PORT=" + httpPort, "GATEWAY_GRPC_PORT=" + grpcPort,
		"DIVERSE_SELECT_CASES=" + string(b), "DIVERSE_SELECT_QUERY=" + healthQuery, "DIVERSE_SELECT_OUT=" + outFile},
		"--test", "--test-reporter=spec", "gateway.test.mjs")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test gateway.test.mjs: %v\n%s", err, out)
	}
	var got tsGatewayOut
	readJSON(t, outFile, "gateway.test.mjs", &got)
	return got
}

func portOf(addr string) string {
	for i := len(addr) - 1; i >= 0; i-- {
		if addr[i] == ':' {
			return addr[i+1:]
		}
	}
	return addr
}

// TestGatewayTypeScriptClient: the TypeScript client through the gateway
// gets the module's selections (ids, order, explanations) for each case,
// and for its own calls what it gets from stock Weaviate directly.
func TestGatewayTypeScriptClient(t *testing.T) {
	gs := startGatewayEq(t)
	got := runTSGateway(t, portOf(gs.HTTPURL), portOf(gs.GRPCAddr), gatewayClientCases)
	direct := runTSGateway(t, fmt.Sprint(gs.up.HTTPPort), fmt.Sprint(gs.up.GRPCPort), map[string]map[string]any{})
	checkClientSelections(t, got.Selections)
	if !slices.Equal(got.MMR, direct.MMR) || len(got.MMR) == 0 {
		t.Errorf("Weaviate's MMR through the gateway %v, directly %v", got.MMR, direct.MMR)
	}
	if !slices.Equal(got.Plain, direct.Plain) || len(got.Plain) != 7 {
		t.Errorf("a plain search through the gateway %v, directly %v", got.Plain, direct.Plain)
	}
	if got.Count != len(gwDocs) || direct.Count != got.Count {
		t.Errorf("aggregate count %d through the gateway, %d directly, %d imported", got.Count, direct.Count, len(gwDocs))
	}
	if got.Fetched != "one" || got.Written != 3 || !got.Live {
		t.Errorf("writes through the gateway: fetched %q, %d written, live %v", got.Fetched, got.Written, got.Live)
	}
}

// TestGatewayGoClient: the Go helper (clients/go, on the Go client's gRPC
// connection) through the gateway selects as through the module's server.
func TestGatewayGoClient(t *testing.T) {
	gs := startGatewayEq(t)
	viaGateway, err := dsclient.Connect(gs.GRPCAddr, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	viaModule, err := dsclient.Connect(gwEq.module.GRPCAddr, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	q := dsclient.Query{Collection: gwClass, Limit: 60, NearText: healthQuery, Property: "body"}
	for name, o := range map[string]dsclient.Options{
		"collection": {},
		"mmr":        {Strategy: dsclient.StrategyMMR, TokenBudget: dsclient.Int(60), Lambda: dsclient.Float(0.7)},
		"dpp":        {Strategy: dsclient.StrategyDPP, TokenBudget: dsclient.Int(100)},
	} {
		want, err := dsclient.Select(ctx(t), viaModule, q, o)
		if err != nil || len(want) == 0 {
			t.Fatalf("%s: module: %v (%d objects)", name, err, len(want))
		}
		got, err := dsclient.Select(ctx(t), viaGateway, q, o)
		if err != nil {
			t.Fatalf("%s: gateway: %v", name, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d objects through the gateway, %d from the module", name, len(got), len(want))
		}
		for i := range want {
			if got[i].ID != want[i].ID || got[i].Properties["body"] != want[i].Properties["body"] ||
				*got[i].Explanation != *want[i].Explanation {
				t.Errorf("%s, object %d: %+v, the module's %+v", name, i, got[i], want[i])
			}
		}
	}
}

// TestGatewayPythonClient: the Python client (weaviate-client v4 from the
// project's .venv, make venv) through the gateway gets the module's
// selections with the Python helper, and its own calls pass through.
func TestGatewayPythonClient(t *testing.T) {
	gs := startGatewayEq(t)
	python := venvPython(t)
	root, err := stack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(gatewayClientCases)
	outFile := filepath.Join(t.TempDir(), "out.json")
	c, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(c, python, filepath.Join(root, "integration", "py", "gateway_client.py"))
	cmd.Env = append(os.Environ(), "GATEWAY_HTTP_PORT="+portOf(gs.HTTPURL), "GATEWAY_GRPC_PORT="+portOf(gs.GRPCAddr),
		"DIVERSE_SELECT_CASES="+string(b), "DIVERSE_SELECT_QUERY="+healthQuery, "DIVERSE_SELECT_OUT="+outFile)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("python gateway_client.py: %v\n%s", err, out)
	}
	var got tsGatewayOut
	readJSON(t, outFile, "gateway_client.py", &got)
	checkClientSelections(t, got.Selections)
	direct, err := eqModuleSearch(t, plainRequest(7))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Plain, replyIDs(direct)) {
		t.Errorf("a plain search through the gateway %v, the same database directly %v", got.Plain, replyIDs(direct))
	}
	if got.Count != len(gwDocs) || !got.Live {
		t.Errorf("aggregate count %d (want %d), live %v", got.Count, len(gwDocs), got.Live)
	}
}

// checkClientSelections compares a client's selections per case with the
// module's for the same settings.
func checkClientSelections(t *testing.T, got map[string][]tsSelection) {
	t.Helper()
	for name, settings := range gatewayClientCases {
		req := eqRequest(60, settings, nil)
		req.Properties.NonRefProperties = []string{"body"}
		want, err := eqModuleSearch(t, req)
		if err != nil {
			t.Fatalf("%s: module: %v", name, err)
		}
		sel := got[name]
		if len(sel) != len(want.Results) || len(sel) == 0 {
			t.Errorf("%s: the client got %d objects, the module selects %d", name, len(sel), len(want.Results))
			continue
		}
		for i, r := range want.Results {
			if sel[i].ID != r.Metadata.Id || sel[i].Explain != r.Metadata.ExplainScore || sel[i].Rank != i+1 {
				t.Errorf("%s, object %d: %+v, the module's %s %q", name, i, sel[i], r.Metadata.Id, r.Metadata.ExplainScore)
			}
		}
	}
}

// plainRequest is a nearText search of limit without selection.
func plainRequest(limit int) *pb.SearchRequest {
	return &pb.SearchRequest{Collection: gwClass, Limit: uint32(limit), NearText: &pb.NearTextSearch{Query: []string{healthQuery}},
		Metadata: &pb.MetadataRequest{Uuid: true}, Uses_123Api: true, Uses_125Api: true, Uses_127Api: true}
}
