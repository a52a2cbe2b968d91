package integration

import (
	"fmt"
	"testing"

	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
)

// TestGRPCRerankOneFetch: the gRPC rerank route gets the vectors its
// strategy compares with the search itself - no second read by id (the
// module's diverse_select_degraded_total{reason="refetch"} stays put) - on
// the default strategy (coverage), for the legacy vector and named vectors,
// near and hybrid searches, requests that did not ask for vectors; the
// selection equals the GraphQL _additional form's on the same pool, and the
// reply carries no vector the request did not ask for.
func TestGRPCRerankOneFetch(t *testing.T) {
	legacy := "RerankOneFetch"
	ensure(t, legacy, func(t testing.TB) { createHealthReranked(t, legacy, map[string]any{"textProperty": "body"}) })
	named := namedRerankClass(t, "RerankOneFetchNamed", map[string]any{"textProperty": "body", "targetVector": "title"})
	const pool = 15
	alpha := float32(0.5)
	for _, tc := range []struct {
		name, class, gql string
		set              func(*pb.SearchRequest)
		fieldArgs        string
	}{
		{"legacy nearText", legacy, healthNear(pool), func(r *pb.SearchRequest) {
			r.NearText = &pb.NearTextSearch{Query: []string{healthQuery}}
		}, ``},
		{"legacy hybrid", legacy, fmt.Sprintf(`hybrid: {query: %q, alpha: 0.5}, limit: %d`, healthQuery, pool), func(r *pb.SearchRequest) {
			r.HybridSearch = &pb.Hybrid{Query: healthQuery, AlphaParam: &alpha, UseAlphaParam: true}
		}, ``},
		{"named nearText", named, fmt.Sprintf(`nearText: {concepts: [%q], targetVectors: ["title"]}, limit: %d`, healthQuery, pool),
			func(r *pb.SearchRequest) {
				r.NearText = &pb.NearTextSearch{Query: []string{healthQuery}, Targets: &pb.Targets{TargetVectors: []string{"title"}}}
			}, `targetVector: "title"`},
		{"named hybrid", named, fmt.Sprintf(`hybrid: {query: %q, targetVectors: ["title"], alpha: 0.5}, limit: %d`, healthQuery, pool),
			func(r *pb.SearchRequest) {
				r.HybridSearch = &pb.Hybrid{Query: healthQuery, Targets: &pb.Targets{TargetVectors: []string{"title"}},
					AlphaParam: &alpha, UseAlphaParam: true}
			}, `targetVector: "title"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := rerankRequest(tc.class, pool)
			tc.set(req)
			before := scrape(t)
			reply, err := grpcc(t).Search(ctx(t), req)
			if err != nil {
				t.Fatalf("gRPC search: %v", err)
			}
			after := scrape(t)
			if d := sample(after, "diverse_select_degraded_total", "reason", "refetch") -
				sample(before, "diverse_select_degraded_total", "reason", "refetch"); d != 0 {
				t.Errorf("the route read the candidates a second time (refetch moved by %v)", d)
			}
			var got []string
			for _, r := range reply.Results {
				got = append(got, r.GetMetadata().GetId())
				if md := r.GetMetadata(); len(md.GetVectorBytes()) > 0 || len(md.GetVector()) > 0 || len(r.GetMetadata().GetVectors()) > 0 {
					t.Errorf("hit %s carries a vector the request did not ask for", md.GetId())
				}
			}
			if len(got) == 0 || len(got) >= pool {
				t.Fatalf("%d of %d candidates selected", len(got), pool)
			}
			args := `textProperty: "body", query: ` + fmt.Sprintf("%q", healthQuery)
			if tc.fieldArgs != "" {
				args += ", " + tc.fieldArgs
			}
			want := get(t, tc.class, field(tc.class, tc.gql, args, "body"), nil)
			if fmt.Sprint(got) != fmt.Sprint(ids(want)) {
				t.Errorf("gRPC selection %v differs from GraphQL's %v", got, ids(want))
			}
		})
	}
}
