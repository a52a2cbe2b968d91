package gateway

import (
	"context"
	"fmt"

	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/diverse-select/diverse-select/engine"
)

// noReranker refuses a plain rerank the gateway does not answer (its
// collection is not in the config file) on a collection that configures no
// reranker stock Weaviate runs: stock Weaviate's answer, "unknown capability:
// rerank", names neither the collection nor the fix. nil lets the search
// pass through (no rerank, another reranker, or the schema unreadable: the
// upstream answers as it would).
func (g *Gateway) noReranker(ctx context.Context, req *pb.SearchRequest) error {
	if req.GetRerank() == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, g.opts.UpstreamTimeout)
	defer cancel()
	class, err := g.classes.get(ctx, req.Collection)
	if err != nil || class == nil {
		return nil
	}
	mc, _ := class.ModuleConfig.(map[string]any)
	for name := range mc {
		// reranker-diverse-select in the schema (a data folder the module's
		// server wrote) runs nowhere upstream: stock Weaviate has no such module
		if g.engine.IsReranker(name) && name != engine.RerankerName {
			return nil
		}
	}
	fix := fmt.Sprintf("name it in the gateway's config file (collections: {%s: {tokenBudget: 1500}}, "+
		"reloaded when it changes), or configure it through the gateway as the README does (moduleConfig "+
		"{\"reranker-diverse-select\": {...}} at create or update, kept in its schema), or send the selection's settings with a client helper "+
		"(Select.mmr(...) and the like), which select on any collection; docs/gateway.md", req.Collection)
	err = engine.NoRerankerError(req.Collection, fix)
	return status.Error(codes.InvalidArgument, "gateway: "+err.Error())
}
