package cluster

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/connection"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"

	"github.com/diverse-select/diverse-select/integration/stack"
	"github.com/diverse-select/diverse-select/internal/corpus"
)

// maxPages bounds the pages compared per query.
const maxPages = 4

// testSamePages: every node returns the same pages as the single node, in
// both GraphQL forms (the query's offset) and over gRPC (the search's
// offset with reranker-diverse-select): the pages are selected again from
// the same pool on whichever node coordinates the query.
func testSamePages(ctx context.Context, t *testing.T) {
	paged := 0
	for _, q := range queries() {
		want := pagesOf(t, func(offset int) []string {
			return page(ctx, t, single.HTTPURL, q.query(fmt.Sprintf("offset: %d", offset)))
		})
		if len(want) > 1 {
			paged++
		}
		for i, n := range cl.Nodes {
			got := pagesOf(t, func(offset int) []string {
				return page(ctx, t, n.HTTPURL, q.query(fmt.Sprintf("offset: %d", offset)))
			})
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s on %s pages %v, the single node %v", q.name, stack.NodeName(i), got, want)
			}
		}
	}
	if paged == 0 {
		t.Error("no query has a second page: the pages were not exercised")
	}
	for _, q := range corpus.Queries()[:2] {
		want := pagesOf(t, func(offset int) []string { return grpcPage(ctx, t, single.GRPCAddr, q.Text, offset) })
		if len(want) < 2 {
			t.Errorf("%s over gRPC: %d page(s), want several", q.ID, len(want))
		}
		for i, n := range cl.Nodes {
			got := pagesOf(t, func(offset int) []string { return grpcPage(ctx, t, n.GRPCAddr, q.Text, offset) })
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s over gRPC on %s pages %v, the single node %v", q.ID, stack.NodeName(i), got, want)
			}
		}
	}
	t.Logf("%d of %d GraphQL queries have more than one page", paged, len(queries()))
}

// pagesOf walks up to maxPages pages, the offset being the results shown so
// far, and checks that no object is on two pages.
func pagesOf(t *testing.T, at func(offset int) []string) [][]string {
	t.Helper()
	var out [][]string
	seen := map[string]bool{}
	offset := 0
	for range maxPages {
		p := at(offset)
		if len(p) == 0 {
			break
		}
		for _, id := range p {
			if seen[id] {
				t.Errorf("%s on two pages", id)
			}
			seen[id] = true
		}
		out = append(out, p)
		offset += len(p)
	}
	return out
}

// page runs a paged query (an empty page is an answer, not an error).
func page(ctx context.Context, t *testing.T, url, q string) []string {
	t.Helper()
	var hits []struct {
		ChunkID string `json:"chunkId"`
	}
	if err := stack.QueryGet(ctx, url, Class, q, &hits); err != nil {
		t.Fatalf("%s: %v\nquery: %s", url, err, q)
	}
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ChunkID
	}
	return out
}

// grpcPage is grpcSelection's search at a gRPC offset, under a small
// budget so that the pool holds several pages.
func grpcPage(ctx context.Context, t *testing.T, addr, text string, offset int) []string {
	t.Helper()
	conn, err := connection.NewGrpcClient(addr, false, nil, nil, time.Minute, 30*time.Second)
	if err != nil {
		t.Fatalf("gRPC %s: %v", addr, err)
	}
	// The collection's settings (tokenBudget 500) with fill, in the rerank
	// property's settings form: pages go on past where the default's price
	// of a token would stop them. (The query is plain text: the collection
	// does not opt in to settings in the query.)
	reply, err := conn.Search(ctx, &pb.SearchRequest{
		Collection:  Class,
		Limit:       40,
		Offset:      uint32(offset),
		NearText:    &pb.NearTextSearch{Query: []string{text}},
		Rerank:      &pb.Rerank{Property: `body|diverseSelect.v1|{"fill":true}`, Query: &text},
		Properties:  &pb.PropertiesRequest{NonRefProperties: []string{"chunkId"}},
		Uses_123Api: true, Uses_125Api: true, Uses_127Api: true,
	})
	if err != nil {
		t.Fatalf("gRPC search on %s at offset %d: %v", addr, offset, err)
	}
	out := make([]string, len(reply.Results))
	for i, r := range reply.Results {
		out[i] = r.GetProperties().GetNonRefProps().GetFields()["chunkId"].GetTextValue()
	}
	return out
}
