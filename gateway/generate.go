package gateway

import (
	"context"

	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
)

// generate runs the caller's generative request upstream over exactly the
// selected objects - a second search filtered to their ids - and puts its
// results into the reply: each object's own generation on it, the grouped
// one on the reply. Inside Weaviate the module's stage hands generate the
// selection in the selection's order; a search filtered by id returns the
// objects in the upstream's order, so a grouped prompt may list them in
// another order (docs/gateway.md).
func (u *upstreamQuery) generate(ctx context.Context, reply *pb.SearchReply) error {
	if len(reply.Results) == 0 {
		return nil
	}
	ids := make([]string, len(reply.Results))
	for i, r := range reply.Results {
		ids[i] = u.resultID(i, r)
	}
	req := &pb.SearchRequest{
		Collection: u.class, Tenant: u.req.Tenant, ConsistencyLevel: u.req.ConsistencyLevel,
		Limit:       uint32(len(ids)),
		Filters:     idFilter(ids),
		Generative:  u.req.Generative,
		Properties:  u.req.Properties,
		Metadata:    &pb.MetadataRequest{Uuid: true},
		Uses_123Api: u.req.Uses_123Api, Uses_125Api: u.req.Uses_125Api, Uses_127Api: u.req.Uses_127Api,
	}
	gen, err := u.search(ctx, req)
	if err != nil {
		return err
	}
	byID := map[string]*pb.SearchResult{}
	for _, r := range gen.Results {
		byID[r.GetMetadata().GetId()] = r
	}
	for i, r := range reply.Results {
		g := byID[ids[i]]
		if g == nil {
			continue
		}
		r.Generative = g.Generative
		if m := g.GetMetadata(); m.GetGenerativePresent() {
			r.Metadata.Generative, r.Metadata.GenerativePresent = m.Generative, true
		}
	}
	reply.GenerativeGroupedResult = gen.GenerativeGroupedResult
	reply.GenerativeGroupedResults = gen.GenerativeGroupedResults
	return nil
}

// resultID is the id of the reply's i-th object (its metadata may leave
// the id out when the caller did not ask for it).
func (u *upstreamQuery) resultID(i int, r *pb.SearchResult) string {
	if id := r.GetMetadata().GetId(); id != "" {
		return id
	}
	return u.order[i]
}
