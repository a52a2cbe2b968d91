package integration

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestGatewayConfigReload: the gateway's file of per-collection defaults
// reloads without a restart; a bad file is refused whole, the key named in
// the gateway's status, and the running config stays; a collection taken
// out of the file no longer selects on a plain rerank.
func TestGatewayConfigReload(t *testing.T) {
	eq := startGatewayEq(t)
	gs := &gatewayStack{up: eq.up}
	gs.launch(t, "gateway-reload", map[string]any{gwClass: map[string]any{"strategy": "mmr", "tokenBudget": 60}}, nil, t.Cleanup)

	// A rerank without settings: the collection's defaults in the file decide.
	strategyOf := func() (string, int) {
		t.Helper()
		reply, err := gs.search(ctx(t), eqRequest(30, nil, nil))
		if err != nil {
			t.Fatal(err)
		}
		if len(reply.Results) == 0 {
			return "", 0
		}
		ex := explainJSON(reply.Results[0].GetMetadata().GetExplainScore())
		s, _ := ex["strategy"].(string)
		b, _ := ex["budget"].(float64)
		return s, int(b)
	}
	waitLoads := func(n int) gatewayStatus {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			st, err := gs.status()
			if err == nil && (st.ConfigLoads >= n || st.ConfigError != "") {
				return st
			}
			if time.Now().After(deadline) {
				t.Fatalf("the gateway did not reload its file (status %+v, %v)", st, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	if s, b := strategyOf(); s != "mmr" || b != 60 {
		t.Fatalf("first file: strategy %q budget %d, want mmr 60", s, b)
	}
	gs.writeConfig(t, map[string]any{gwClass: map[string]any{"strategy": "adagres", "tokenBudget": 90}})
	waitLoads(2)
	if s, b := strategyOf(); s != "adagres" || b != 90 {
		t.Fatalf("after the change: strategy %q budget %d, want adagres 90", s, b)
	}
	for _, bad := range []struct {
		name, file, key string
	}{
		{"bad value", "collections:\n  GatewayEq: {strategy: adagres, tokenBudget: -5}\n", "tokenBudget"},
		{"unknown key", "collections:\n  GatewayEq: {strategy: adagres, tokenBugdet: 5}\n", "tokenBugdet"},
		{"unknown strategy", "collections:\n  GatewayEq: {strategy: nope}\n", "strategy"},
		{"not the file's shape", "colections:\n  GatewayEq: {}\n", "colections"},
		{"one good, one bad", "collections:\n  Other: {strategy: mmr}\n  GatewayEq: {maxResults: -1}\n", "maxResults"},
	} {
		gs.writeConfigBytes(t, []byte(bad.file))
		st := waitLoads(99)
		if !strings.Contains(st.ConfigError, bad.key) {
			t.Errorf("%s: the refusal %q does not name %q", bad.name, st.ConfigError, bad.key)
		}
		if s, b := strategyOf(); s != "adagres" || b != 90 {
			t.Errorf("%s: after the refused file strategy %q budget %d, want the running adagres 90", bad.name, s, b)
		}
		gs.writeConfig(t, map[string]any{gwClass: map[string]any{"strategy": "adagres", "tokenBudget": 90}})
		deadline := time.Now().Add(10 * time.Second)
		for st, _ := gs.status(); st.ConfigError != ""; st, _ = gs.status() {
			if time.Now().After(deadline) {
				t.Fatalf("a good file after a bad one was not loaded: %+v", st)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	// Out of the file: a plain rerank on a collection that configures no
	// reranker upstream is refused with the collection and the config line to
	// add, where stock Weaviate answers "unknown capability: rerank".
	gs.writeConfig(t, map[string]any{})
	_, derr := eq.upSearch(t, eqRequest(30, nil, nil))
	if !strings.Contains(fmt.Sprint(derr), "unknown capability: rerank") {
		t.Fatalf("stock Weaviate's own answer: %v, want unknown capability: rerank", derr)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := gs.search(ctx(t), eqRequest(30, nil, nil))
		if status.Code(err) == codes.InvalidArgument && strings.Contains(err.Error(), "has no reranker") &&
			strings.Contains(err.Error(), "the gateway's config file") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a collection out of the file: %v, want the refusal naming the collection and the fix", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Settings in the rerank property select on any collection.
	reply, err := gs.search(ctx(t), eqRequest(30, map[string]any{"strategy": "dpp", "tokenBudget": 70}, nil))
	if err != nil || len(reply.Results) == 0 || explainJSON(reply.Results[0].GetMetadata().GetExplainScore())["strategy"] != "dpp" {
		t.Errorf("settings on a collection out of the file: %v %v", reply, err)
	}
}
