package diverseselect

import (
	"context"
	"slices"
	"sync/atomic"

	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/modelsext"
	"github.com/weaviate/weaviate/entities/search"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
)

// Vectors with the search. On the gRPC rerank route the selection runs as a
// result hook, after the search has loaded the candidates; Weaviate loads
// the legacy vector for near searches with a module additional property,
// but not named vectors nor any vector of hybrid results, which the hook
// then had to read again by id (a second pass over the pool). The patched
// gRPC search handler (patch "grpc-search") calls PrepareGRPCSearch before
// Weaviate parses the request: it asks the search itself for the one vector
// the selection compares, and the hook removes what was asked for this way
// from the results it returns, so the reply carries only what the request
// asked for. The vectors are those of the objects the search returned,
// read under the request's own authorization and tenant.

// serverReranker is the reranker of the running server, set by
// EnabledModules (one server per process).
var serverReranker atomic.Pointer[Reranker]

// askedKey carries, in a gRPC search's context, what PrepareGRPCSearch
// added to the request's metadata.
type askedKey struct{}

// askedVectors is what the request asked for itself: what the hook leaves
// in the results.
type askedVectors struct {
	vector  bool     // the request asked for the legacy vector (and, on classes with named vectors, all of them)
	vectors []string // named vectors the request asked for
}

// PrepareGRPCSearch prepares a gRPC search that reranks class (which
// Weaviate has already authorized for the request: the glue calls it with
// the class its authorizing getter returned, so nothing of the request is
// read for a caller who may not read the collection). The settings a rerank
// property carries leave it (rerank_settings.go), whichever reranker the
// collection has; for a class that configures reranker-diverse-select it
// also moves the search's offset to the selection (rerank_pages.go) and adds
// the vector the selection compares to the request's metadata (see above).
// A request the module cannot resolve here is left as it is: the hook
// reports its error, or loads what is missing. A panic leaves ctx and the
// request as they were, and is logged.
func PrepareGRPCSearch(ctx context.Context, req *pb.SearchRequest, class *models.Class) (out context.Context) {
	rr := serverReranker.Load()
	if rr == nil || req.GetRerank() == nil || class == nil {
		return ctx
	}
	// What prepareGRPCSearch may change, to put back after a panic.
	offset, property, md := req.Offset, req.Rerank.Property, req.Metadata
	vector, vectors := md.GetVector(), slices.Clone(md.GetVectors())
	err := guard(rr.m.logger, "gRPC search preparation", func() error {
		out = rr.prepareGRPCSearch(ctx, req, class)
		return nil
	})
	if err != nil {
		req.Offset, req.Rerank.Property, req.Metadata = offset, property, md
		if md != nil {
			md.Vector, md.Vectors = vector, vectors
		}
		return ctx
	}
	return out
}

func (rr *Reranker) prepareGRPCSearch(ctx context.Context, req *pb.SearchRequest, class *models.Class) context.Context {
	ctx = carryRerankSettings(ctx, req) // the settings leave the property Weaviate reads
	if classConfig(class, RerankerName) == nil {
		return ctx // another reranker takes the call (route_grpc_combine.go)
	}
	if req.Offset > 0 {
		ctx, req.Offset = context.WithValue(ctx, rerankOffsetKey{}, int(req.Offset)), 0
	}
	legacy, named, ok := rr.searchVector(ctx, req, class)
	if !ok {
		return ctx
	}
	md := req.GetMetadata()
	if md == nil {
		md = &pb.MetadataRequest{}
		req.Metadata = md
	}
	asked := askedVectors{vector: md.GetVector(), vectors: slices.Clone(md.GetVectors())}
	switch {
	case md.GetVector():
		return ctx // every vector is loaded already
	case legacy:
		md.Vector = true
	case named != "" && !slices.Contains(md.GetVectors(), named):
		md.Vectors = append(md.Vectors, named)
	default:
		return ctx
	}
	return context.WithValue(ctx, askedKey{}, asked)
}

// searchVector resolves, as the hook's plan will, which vector the
// selection of req compares: the legacy one, a named one, or none (ok false).
func (rr *Reranker) searchVector(ctx context.Context, req *pb.SearchRequest, class *models.Class) (legacy bool, named string, ok bool) {
	query, st, err := rr.rerankSettings(class, carriedProperty(ctx, req.GetRerank().GetProperty()), req.GetRerank().GetQuery())
	if err != nil || !st.needsVectors() {
		return false, "", false
	}
	target, _, err := resolveTarget(class, query, st, searchTargets(req))
	if err != nil {
		return false, "", false
	}
	if target == "" {
		return modelsext.ClassHasLegacyVectorIndex(class), "", modelsext.ClassHasLegacyVectorIndex(class)
	}
	return false, target, true
}

// searchTargets are the target vectors a gRPC search names.
func searchTargets(req *pb.SearchRequest) []string {
	for _, t := range []*pb.Targets{req.GetNearText().GetTargets(), req.GetNearVector().GetTargets(),
		req.GetNearObject().GetTargets(), req.GetHybridSearch().GetTargets(), req.GetNearImage().GetTargets()} {
		if names := t.GetTargetVectors(); len(names) > 0 {
			return names
		}
	}
	return nil
}

// dropUnasked removes from the selected results the vectors
// PrepareGRPCSearch asked for on the request's behalf.
func dropUnasked(ctx context.Context, out []search.Result) {
	asked, ok := ctx.Value(askedKey{}).(askedVectors)
	if !ok || asked.vector {
		return
	}
	for i := range out {
		out[i].Vector = nil
		if len(out[i].Vectors) == 0 {
			continue
		}
		vecs := out[i].Vectors
		out[i].Vectors = nil
		for _, name := range asked.vectors {
			if v, ok := vecs[name]; ok {
				if out[i].Vectors == nil {
					out[i].Vectors = make(models.Vectors, len(asked.vectors))
				}
				out[i].Vectors[name] = v
			}
		}
	}
}
