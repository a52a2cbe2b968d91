package main

import (
	"context"
	"io"
	"strconv"

	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/diverse-select/diverse-select/integration/stack"
)

// gateway is bin/gateway in front of the bench's server, with the class's
// selection config in its file: the gateway's variant asks it for the
// rerank the module's route answers, and the gateway runs the selection
// over the server's plain searches (the searches a stock Weaviate of the
// same version answers alike).
type gateway struct {
	g    *stack.Gateway
	conn *grpc.ClientConn
	// pprofURL is the gateway's pprof base URL (-profile-protocol gateway).
	pprofURL string
}

func startGateway(ctx context.Context, httpURL, grpcAddr string, logw io.Writer) (*gateway, error) {
	port, err := stack.FreePort()
	if err != nil {
		return nil, err
	}
	pprofAddr := "127.0.0.1:" + strconv.Itoa(port)
	g, err := stack.StartGateway(ctx, stack.GatewayOptions{UpstreamGRPC: grpcAddr, UpstreamHTTP: httpURL, Log: logw,
		Args:        []string{"--pprof", pprofAddr},
		Collections: map[string]any{className: map[string]any{"textProperty": "body", "tokenBudget": budget, "maxResults": k}}})
	if err != nil {
		return nil, err
	}
	conn, err := grpc.NewClient(g.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20)))
	if err != nil {
		g.Stop()
		return nil, err
	}
	return &gateway{g: g, conn: conn, pprofURL: "http://" + pprofAddr}, nil
}

func (g *gateway) client() pb.WeaviateClient { return pb.NewWeaviateClient(g.conn) }

func (g *gateway) stop() {
	g.conn.Close()
	g.g.Stop()
}
