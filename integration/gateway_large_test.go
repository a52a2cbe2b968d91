package integration

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/http"
	"testing"

	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"
)

// largeMessage is the size of the batch and of the reply the pass-through
// test sends through the gateway: over the 10 MiB the gateway once capped
// messages at, under Weaviate's default GRPC_MAX_MESSAGE_SIZE (104858000).
const largeMessage = 50 << 20

// TestGatewayLargeMessages: a 50 MB gRPC batch goes through the gateway,
// and a 50 MB search reply comes back through it with the same bytes as
// Weaviate's own reply (its took time aside), with the gateway's default
// message limit.
func TestGatewayLargeMessages(t *testing.T) {
	gs := startGatewayEq(t)
	big := grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(2*largeMessage), grpc.MaxCallSendMsgSize(2*largeMessage))
	dial := func(addr string) pb.WeaviateClient {
		c, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()), big)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return pb.NewWeaviateClient(c)
	}
	viaGW, viaUp := dial(gs.GRPCAddr), dial(gs.up.GRPCAddr)

	const class = "GatewayLarge"
	restJSON(t, http.MethodPost, gs.HTTPURL+"/v1/schema", map[string]any{"class": class, "vectorizer": "none",
		"properties": []any{map[string]any{"name": "body", "dataType": []string{"text"},
			"indexFilterable": false, "indexSearchable": false}}}, nil)
	defer restJSON(t, http.MethodDelete, gs.HTTPURL+"/v1/schema/"+class, nil, nil)

	const n = 50
	rng := rand.New(rand.NewPCG(44, 1))
	letters := []byte("abcdefghijklmnopqrstuvwxyz ")
	objects := make([]*pb.BatchObject, n)
	for i := range objects {
		body := make([]byte, largeMessage/n)
		for j := range body {
			body[j] = letters[rng.IntN(len(letters))]
		}
		objects[i] = &pb.BatchObject{Uuid: uuidOf(class, fmt.Sprint(i)), Collection: class,
			Properties: &pb.BatchObject_Properties{NonRefProperties: mustStruct(t, map[string]any{"body": string(body)})}}
	}
	batch := &pb.BatchObjectsRequest{Objects: objects}
	if size := proto.Size(batch); size < largeMessage {
		t.Fatalf("the batch is %d bytes, want at least %d", size, largeMessage)
	}
	reply, err := viaGW.BatchObjects(ctx(t), batch)
	if err != nil || len(reply.GetErrors()) > 0 {
		t.Fatalf("a %d-byte batch through the gateway: %v %v", proto.Size(batch), err, reply.GetErrors())
	}

	req := &pb.SearchRequest{Collection: class, Limit: n, Uses_123Api: true, Uses_125Api: true, Uses_127Api: true,
		Properties: &pb.PropertiesRequest{NonRefProperties: []string{"body"}},
		Metadata:   &pb.MetadataRequest{Uuid: true}}
	a, err := viaGW.Search(ctx(t), req)
	if err != nil {
		t.Fatalf("a 50 MB search reply through the gateway: %v", err)
	}
	b, err := viaUp.Search(ctx(t), req)
	if err != nil {
		t.Fatalf("the same search directly: %v", err)
	}
	a.Took, b.Took = 0, 0
	opts := proto.MarshalOptions{Deterministic: true}
	ab, _ := opts.Marshal(a)
	bb, _ := opts.Marshal(b)
	if len(a.Results) != n || len(ab) < largeMessage || !bytes.Equal(ab, bb) {
		t.Errorf("through the gateway %d results, %d bytes; directly %d results, %d bytes; want %d results of at least %d bytes, the same bytes",
			len(a.Results), len(ab), len(b.Results), len(bb), n, largeMessage)
	}
}
