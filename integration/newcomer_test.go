package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate/entities/models"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	dsclient "github.com/diverse-select/diverse-select/clients/go"
)

// TestNewcomerRefusals lists the refusals a newcomer meets on the way in,
// through the module's server and through the gateway in front of stock
// Weaviate: each names what is wrong, the collection or key, and the fix.
func TestNewcomerRefusals(t *testing.T) {
	const class = "NewcomerPlain" // a collection that configures no reranker
	plain := &models.Class{Class: class, Vectorizer: "text2vec-transformers", ModuleConfig: transformers(), Properties: bodyProps()}
	createClass(t, plain)
	importDocs(t, class, healthDocs[:6])
	gs := startGatewayStack(t, "newcomer", gatewayOptions{})
	if err := gs.upClient.Schema().ClassCreator().WithClass(plain).Do(ctx(t)); err != nil {
		t.Fatal(err)
	}
	// The README's collection on both, the demo corpus's chunks (62 tokens
	// and more), created through the gateway as the README creates it.
	gwClient, err := weaviate.NewClient(weaviate.Config{Host: strings.TrimPrefix(gs.HTTPURL, "http://"), Scheme: "http"})
	if err != nil {
		t.Fatal(err)
	}
	readmeCollection(t, client, chunkClass)
	readmeCollection(t, gwClient, chunkClass)
	t.Cleanup(func() { deleteClass(t, chunkClass) })

	question := "statins cholesterol heart"
	withSettings, err := dsclient.Request(dsclient.Query{Collection: class, Limit: 10, NearText: question, Property: "body"},
		dsclient.Options{Strategy: dsclient.StrategyMMR, TokenBudget: dsclient.Int(400)})
	if err != nil {
		t.Fatal(err)
	}
	plainRerank := &pb.SearchRequest{Collection: class, Limit: 10, NearText: &pb.NearTextSearch{Query: []string{question}},
		Rerank: &pb.Rerank{Property: "body", Query: &question}, Uses_123Api: true, Uses_125Api: true, Uses_127Api: true}
	moduleFix := []string{"collection NewcomerPlain has no reranker", `moduleConfig {"reranker-diverse-select": {}}`, "docs/clients.md"}
	gatewayFix := []string{"collection NewcomerPlain has no reranker", "the gateway's config file", "collections: {NewcomerPlain:", "docs/gateway.md"}

	// A tokenBudget below every chunk of the pool (the README once asked
	// for 60), through the Go client's gRPC connection as the README's Go
	// program connects: the smallest candidate comes from the same pool
	// selected with no budget, so the fix's number is checked, not only present.
	goClient := map[bool]dsclient.Searcher{false: goConnect(t, srv.GRPCAddr), true: goConnect(t, gs.GRPCAddr)}
	const pool = 40
	chunks := dsclient.Query{Collection: chunkClass, Limit: pool, NearText: "How do I keep sourdough starter alive?", Property: "body"}
	smallest := smallestOfPool(t, goClient[false], chunks)
	t.Logf("the smallest chunk of the pool: %d tokens", smallest)
	budgetFix := []string{`"tokenBudget" is 60, below every candidate`,
		fmt.Sprintf("the smallest of the %d candidates holds %d tokens", pool, smallest),
		fmt.Sprintf("raise tokenBudget to at least %d", smallest), "segment the texts into smaller chunks"}
	tooSmall := func(ctx context.Context, gateway bool) error {
		_, err := dsclient.Select(ctx, goClient[gateway], chunks, dsclient.Options{Strategy: dsclient.StrategyMMR, TokenBudget: dsclient.Int(60)})
		return err
	}
	raw := func(req *pb.SearchRequest) func(context.Context, bool) error {
		return func(ctx context.Context, gateway bool) error {
			var err error
			if gateway {
				_, err = gs.search(ctx, req)
			} else {
				_, err = moduleSearch(ctx, t, req)
			}
			return err
		}
	}
	for _, tc := range []struct {
		name    string
		gateway bool
		send    func(context.Context, bool) error
		want    []string
	}{
		{"the helpers' selection on a collection with no reranker", false, raw(withSettings), moduleFix},
		{"a plain rerank on a collection with no reranker", false, raw(plainRerank), moduleFix},
		{"through the gateway, a plain rerank on a collection its config does not name", true, raw(plainRerank), gatewayFix},
		{"the Go helper's selection with a tokenBudget below every chunk", false, tooSmall, budgetFix},
		{"through the gateway, the Go helper's selection with a tokenBudget below every chunk", true, tooSmall, budgetFix},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.send(ctx(t), tc.gateway)
			if status.Code(err) != codes.InvalidArgument {
				t.Fatalf("code %v (%v), want InvalidArgument", status.Code(err), err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the refusal does not say %q:\n%v", w, err)
				}
			}
			t.Logf("%s: %v", tc.name, err)
		})
	}

	// The fix as the refusal gives it: that many tokens select, on both.
	for gateway, c := range goClient {
		picks, err := dsclient.Select(ctx(t), c, chunks, dsclient.Options{Strategy: dsclient.StrategyMMR, TokenBudget: dsclient.Int(smallest)})
		if err != nil || len(picks) != 1 {
			t.Errorf("gateway %v: tokenBudget %d, as the refusal says: %d picks, %v; want the one smallest chunk", gateway, smallest, len(picks), err)
		}
	}

	// A collection's bad setting is refused at create, naming the key and its range.
	bad := &models.Class{Class: "NewcomerBad", Vectorizer: "text2vec-transformers", Properties: bodyProps(),
		ModuleConfig: map[string]any{"reranker-diverse-select": map[string]any{"tokenBudget": -5}}}
	err = client.Schema().ClassCreator().WithClass(bad).Do(ctx(t))
	if err == nil || !strings.Contains(err.Error(), `tokenBudget\" must be an integer in [0, `) { // JSON in the Go client's error
		t.Errorf("a negative tokenBudget at create: %v, want the key and its range", err)
	}
	_ = client.Schema().ClassDeleter().WithClassName(class).Do(ctx(t))
}

// chunkClass is the README's collection under a name of this test.
const chunkClass = "NewcomerChunk"

// smallestOfPool is the fewest tokens of a chunk in q's pool: top-k with no
// budget returns the whole pool, each pick with its tokens.
func smallestOfPool(t *testing.T, conn dsclient.Searcher, q dsclient.Query) int {
	t.Helper()
	all, err := dsclient.Select(ctx(t), conn, q, dsclient.Options{Strategy: dsclient.StrategyTopK, TokenBudget: dsclient.Int(0)})
	if err != nil || len(all) != q.Limit {
		t.Fatalf("the whole pool: %d of %d, %v", len(all), q.Limit, err)
	}
	smallest := all[0].Explanation.Tokens
	for _, o := range all {
		smallest = min(smallest, o.Explanation.Tokens)
	}
	return smallest
}

// goConnect is the Go client's gRPC connection to addr, as the README's Go
// program opens it.
func goConnect(t *testing.T, addr string) dsclient.Searcher {
	t.Helper()
	c, err := dsclient.Connect(addr, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
