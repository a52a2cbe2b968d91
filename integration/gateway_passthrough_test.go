package integration

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// TestGatewayPassThrough: what the gateway does not select passes through
// unchanged - a search without settings, an aggregation, a gRPC batch, the
// health check, REST and GraphQL - and a rerank without settings on a
// collection the gateway's config does not name gets the upstream's own
// answer.
func TestGatewayPassThrough(t *testing.T) {
	gs := startGatewayEq(t)
	direct, err := grpc.NewClient(gs.up.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	viaGW, viaUp := pb.NewWeaviateClient(gs.conn), pb.NewWeaviateClient(direct)

	t.Run("search", func(t *testing.T) {
		req := plainRequest(12)
		req.Metadata.Distance, req.Metadata.Vector = true, true
		req.Properties = &pb.PropertiesRequest{NonRefProperties: []string{"body", "grp"}}
		a, err := viaGW.Search(ctx(t), req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := viaUp.Search(ctx(t), req)
		if err != nil {
			t.Fatal(err)
		}
		a.Took, b.Took = 0, 0
		if !proto.Equal(a, b) || len(a.Results) != 12 {
			t.Errorf("a plain search through the gateway differs from Weaviate's own reply (%d results)", len(a.Results))
		}
	})
	t.Run("aggregate", func(t *testing.T) {
		req := &pb.AggregateRequest{Collection: gwClass, ObjectsCount: true}
		a, err := viaGW.Aggregate(ctx(t), req)
		if err != nil {
			t.Fatal(err)
		}
		if n := a.GetSingleResult().GetObjectsCount(); n != int64(len(gwDocs)) {
			t.Errorf("aggregate through the gateway: %d objects, want %d", n, len(gwDocs))
		}
	})
	t.Run("health", func(t *testing.T) {
		res, err := healthpb.NewHealthClient(gs.conn).Check(ctx(t), &healthpb.HealthCheckRequest{})
		if err != nil || res.Status != healthpb.HealthCheckResponse_SERVING {
			t.Errorf("health through the gateway: %v %v", res, err)
		}
	})
	t.Run("rerank-without-settings", func(t *testing.T) {
		// A collection out of the config file with no reranker upstream: not
		// passed through but refused with the fix (Weaviate's own answer is no
		// result on an empty collection and "unknown capability: rerank" once
		// it holds objects).
		q := healthQuery
		req := plainRequest(10)
		req.Collection = "GatewayPass"
		req.Rerank = &pb.Rerank{Property: "body", Query: &q}
		restJSON(t, http.MethodPost, gs.HTTPURL+"/v1/schema", map[string]any{"class": "GatewayPass",
			"vectorizer": "text2vec-transformers", "properties": []any{map[string]any{"name": "body", "dataType": []string{"text"}}}}, nil)
		defer restJSON(t, http.MethodDelete, gs.HTTPURL+"/v1/schema/GatewayPass", nil, nil)
		_, gerr := viaGW.Search(ctx(t), req)
		if status.Code(gerr) != codes.InvalidArgument || !strings.Contains(gerr.Error(), "collection GatewayPass has no reranker") ||
			!strings.Contains(gerr.Error(), "collections: {GatewayPass:") {
			t.Errorf("through the gateway %v, want InvalidArgument naming the collection and the config line", gerr)
		}
		if _, uerr := viaUp.Search(ctx(t), req); uerr != nil {
			t.Errorf("Weaviate's own answer on the empty collection: %v, want none", uerr)
		}
	})
	t.Run("batch-rest-graphql", func(t *testing.T) {
		restJSON(t, http.MethodPost, gs.HTTPURL+"/v1/schema", map[string]any{"class": "GatewayBatch",
			"vectorizer": "text2vec-transformers", "properties": []any{map[string]any{"name": "body", "dataType": []string{"text"}}}}, nil)
		defer restJSON(t, http.MethodDelete, gs.HTTPURL+"/v1/schema/GatewayBatch", nil, nil)
		id := uuidOf("GatewayBatch", "one")
		props := &pb.BatchObject_Properties{NonRefProperties: mustStruct(t, map[string]any{"body": "batched through the gateway"})}
		reply, err := viaGW.BatchObjects(ctx(t), &pb.BatchObjectsRequest{Objects: []*pb.BatchObject{
			{Uuid: id, Collection: "GatewayBatch", Properties: props}}})
		if err != nil || len(reply.GetErrors()) > 0 {
			t.Fatalf("gRPC batch through the gateway: %v %v", reply, err)
		}
		var obj map[string]any
		restJSON(t, http.MethodGet, gs.HTTPURL+"/v1/objects/GatewayBatch/"+id, nil, &obj)
		if p, _ := obj["properties"].(map[string]any); p["body"] != "batched through the gateway" {
			t.Errorf("REST read through the gateway: %v", obj)
		}
		var gql, gqlDirect map[string]any
		q := map[string]any{"query": `{ Get { GatewayBatch { body _additional { id } } } }`}
		restJSON(t, http.MethodPost, gs.HTTPURL+"/v1/graphql", q, &gql)
		restJSON(t, http.MethodPost, gs.up.HTTPURL+"/v1/graphql", q, &gqlDirect)
		a, _ := json.Marshal(gql)
		b, _ := json.Marshal(gqlDirect)
		if !bytes.Equal(a, b) || !strings.Contains(string(a), id) {
			t.Errorf("GraphQL through the gateway %s, directly %s", a, b)
		}
		var meta, metaDirect map[string]any
		restJSON(t, http.MethodGet, gs.HTTPURL+"/v1/meta", nil, &meta)
		restJSON(t, http.MethodGet, gs.up.HTTPURL+"/v1/meta", nil, &metaDirect)
		if meta["version"] == nil || meta["version"] != metaDirect["version"] {
			t.Errorf("/v1/meta through the gateway %v, directly %v", meta["version"], metaDirect["version"])
		}
	})
}

// restJSON sends a REST request that must succeed and decodes its reply
// into out (nil: ignored).
func restJSON(t testing.TB, method, url string, body, out any) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx(t), method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: time.Minute}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %s: %s", method, url, resp.Status, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, url, err, raw)
		}
	}
}

// mustStruct is a protobuf Struct of m.
func mustStruct(t testing.TB, m map[string]any) *structpb.Struct {
	t.Helper()
	s, err := structpb.NewStruct(m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
