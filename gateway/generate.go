package gateway

import (
	"context"

	"github.com/weaviate/weaviate/entities/additional"
	"github.com/weaviate/weaviate/entities/multi"
	"github.com/weaviate/weaviate/usecases/byteops"

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
	if q := u.orderingVector(ctx, ids); q != nil {
		// Ranked by a vector that puts them in the selection's order.
		req.NearVector = &pb.NearVector{VectorBytes: byteops.Fp32SliceToBytes(q)}
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

// orderingVector is a query vector that ranks the objects of ids in their
// order (order.go), from their vectors (read by id, mostly from the object
// cache); nil when the collection's vectors or metric do not allow one.
func (u *upstreamQuery) orderingVector(ctx context.Context, ids []string) []float32 {
	if u.metric == "" {
		return nil
	}
	who := make([]multi.Identifier, len(ids))
	for i, id := range ids {
		who[i] = multi.Identifier{ID: id, ClassName: u.class}
	}
	got, err := u.read(ctx, who, additional.Properties{}, u.req.Tenant)
	if err != nil {
		return nil
	}
	vecs := make([][]float32, len(got))
	for i, r := range got {
		if len(r.Vector) == 0 {
			return nil // no vector to order by: the selection's own order stands
		}
		vecs[i] = r.Vector
	}
	return orderingVector(vecs, u.metric)
}

// resultID is the id of the reply's i-th object (its metadata may leave
// the id out when the caller did not ask for it).
func (u *upstreamQuery) resultID(i int, r *pb.SearchResult) string {
	if id := r.GetMetadata().GetId(); id != "" {
		return id
	}
	return u.order[i]
}
