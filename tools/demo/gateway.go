package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"

	dsclient "github.com/diverse-select/diverse-select/clients/go"
	"github.com/diverse-select/diverse-select/integration/stack"
)

// stockModules are the modules stock Weaviate enables under the gateway:
// the module's server's, but ours, which stock Weaviate does not have.
const stockModules = "text2vec-transformers,generative-dummy"

// servers are what the demo runs: Weaviate with the module, or stock
// Weaviate with the gateway in front (-gateway, make run-gateway).
type servers struct {
	up      *stack.Stack   // Weaviate (with the module, or stock)
	gw      *stack.Gateway // the gateway, or nil
	httpURL string         // where clients send REST and GraphQL
	grpc    string         // where clients send gRPC
	sel     selector
	conn    *grpc.ClientConn
}

// listeners returns what each process listens on: weaviate, embedder and
// gateway.
func (s *servers) listeners() (map[string][]stack.Listener, error) {
	out, err := s.up.Listeners()
	if err != nil || s.gw == nil {
		return out, err
	}
	out["gateway"], err = stack.Listeners(s.gw.PID())
	return out, err
}

func (s *servers) stop() {
	if s.conn != nil {
		s.conn.Close()
	}
	if s.gw != nil {
		s.gw.Stop()
	}
	s.up.Stop()
}

// startGateway starts stock Weaviate (bin/weaviate-server-stock) on free
// loopback ports and the gateway in front of it on the demo's ports, with
// an empty config file: the demo collection's selection defaults come with
// its create through the gateway (importCorpus), as the README's do.
func startGateway(ctx context.Context, o stack.Options, gwHTTP, gwGRPC int, log io.Writer) (*servers, error) {
	o.Server = "weaviate-server-stock"
	o.Env["ENABLE_MODULES"] = stockModules
	up, err := stack.Start(ctx, o)
	if err != nil {
		return nil, fmt.Errorf("stock Weaviate (make weaviate-stock builds it): %w", err)
	}
	gw, err := stack.StartGateway(ctx, stack.GatewayOptions{UpstreamGRPC: up.GRPCAddr, UpstreamHTTP: up.HTTPURL,
		HTTPPort: gwHTTP, GRPCPort: gwGRPC, Log: log,
		Args: []string{"--query-defaults-limit", "25"}})
	if err != nil {
		up.Stop()
		return nil, err
	}
	conn, err := grpc.NewClient(gw.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		gw.Stop()
		up.Stop()
		return nil, err
	}
	return &servers{up: up, gw: gw, httpURL: gw.HTTPURL, grpc: gw.GRPCAddr, conn: conn, sel: grpcSelector(pb.NewWeaviateClient(conn))}, nil
}

// grpcSelector selects through the gRPC rerank route with the helper's
// per-query settings (clients/go), as the official clients do, and asks the
// search's generative part for the grouped task over the selection.
func grpcSelector(c pb.WeaviateClient) selector {
	return func(ctx context.Context, text string, s settings) ([]hit, error) {
		opts := dsclient.Options{TokenBudget: dsclient.Int(s.budget)}
		if s.strategy != "" {
			opts.Strategy = s.strategy
		}
		req, err := dsclient.Request(dsclient.Query{Collection: Class, Limit: s.candidates, NearText: text, Property: "body",
			Return: []string{"title", "facet", "dupGroup", "chunkId"}}, opts)
		if err != nil {
			return nil, err
		}
		req.Generative = &pb.GenerativeSearch{Grouped: &pb.GenerativeSearch_Grouped{
			Task: llmTask, Properties: &pb.TextArray{Values: []string{"title", "body"}}}}
		reply, err := c.Search(ctx, req)
		if err != nil {
			return nil, err
		}
		var grouped *string
		if g := reply.GetGenerativeGroupedResults().GetValues(); len(g) > 0 {
			r := g[0].GetResult()
			grouped = &r
		}
		var hits []hit
		for i, o := range dsclient.Objects(reply) {
			var h hit
			b, _ := json.Marshal(o.Properties)
			if err := json.Unmarshal(b, &h); err != nil {
				return nil, err
			}
			if o.Explanation == nil {
				return nil, fmt.Errorf("object %s came without its explanation", o.ID)
			}
			h.Add.DS.Rank, h.Add.DS.Tokens, h.Add.DS.Strategy = o.Explanation.Rank, o.Explanation.Tokens, o.Explanation.Strategy
			if i == 0 {
				h.Add.Generate = &struct {
					GroupedResult *string `json:"groupedResult"`
					Error         *string `json:"error"`
				}{GroupedResult: grouped}
			}
			hits = append(hits, h)
		}
		return hits, nil
	}
}
