package integration

import (
	"strings"
	"testing"

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
	for _, tc := range []struct {
		name    string
		gateway bool
		req     *pb.SearchRequest
		want    []string
	}{
		{"the helpers' selection on a collection with no reranker", false, withSettings, moduleFix},
		{"a plain rerank on a collection with no reranker", false, plainRerank, moduleFix},
		{"through the gateway, a plain rerank on a collection its config does not name", true, plainRerank, gatewayFix},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.gateway {
				_, err = gs.search(ctx(t), tc.req)
			} else {
				_, err = moduleSearch(ctx(t), t, tc.req)
			}
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

	// A collection's bad setting is refused at create, naming the key and its range.
	bad := &models.Class{Class: "NewcomerBad", Vectorizer: "text2vec-transformers", Properties: bodyProps(),
		ModuleConfig: map[string]any{"reranker-diverse-select": map[string]any{"tokenBudget": -5}}}
	err = client.Schema().ClassCreator().WithClass(bad).Do(ctx(t))
	if err == nil || !strings.Contains(err.Error(), `tokenBudget\" must be an integer in [0, `) { // JSON in the Go client's error
		t.Errorf("a negative tokenBudget at create: %v, want the key and its range", err)
	}
	_ = client.Schema().ClassDeleter().WithClassName(class).Do(ctx(t))
}
