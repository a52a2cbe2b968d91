package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"time"

	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

const (
	className = "BenchChunk"
	// rerankerModule is the module of the gRPC route, when the server has it.
	rerankerModule = "reranker-diverse-select"
)

// clients talks to one server over HTTP (schema, batch, GraphQL, meta) and
// gRPC (search), both kept alive across queries.
type clients struct {
	base string
	http *http.Client
	conn *grpc.ClientConn
	grpc pb.WeaviateClient
	// gw is the gateway in front of the same server (nil: not timed).
	gw pb.WeaviateClient
}

func newClients(httpURL, grpcAddr string) (*clients, error) {
	u, err := url.Parse(httpURL)
	if err != nil {
		return nil, err
	}
	for _, hostport := range []string{u.Host, grpcAddr} {
		host, _, err := net.SplitHostPort(hostport)
		if err != nil {
			return nil, err
		}
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			return nil, fmt.Errorf("%s is not a loopback address: the bench runs on loopback only", hostport)
		}
	}
	conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20)))
	if err != nil {
		return nil, err
	}
	tr := &http.Transport{MaxIdleConnsPerHost: 4, IdleConnTimeout: time.Minute}
	return &clients{base: httpURL, http: &http.Client{Transport: tr, Timeout: 2 * time.Minute},
		conn: conn, grpc: pb.NewWeaviateClient(conn)}, nil
}

func (c *clients) close() { c.conn.Close() }

// do sends a JSON request and decodes a JSON answer into out (nil = discard).
func (c *clients) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, bytes.TrimSpace(data))
	}
	if out != nil {
		return json.Unmarshal(data, out)
	}
	return nil
}

// load (re)creates the bench class and imports docs in batches; the server
// embeds them through the embedder.
func (c *clients) load(ctx context.Context, docs []benchDoc, rerank bool) error {
	_ = c.do(ctx, http.MethodDelete, "/v1/schema/"+className, nil, nil)
	moduleConfig := map[string]any{
		"text2vec-transformers": map[string]any{"vectorizeClassName": false},
		"diverse-select":        map[string]any{"textProperty": "body", "sourceProperty": "source"},
	}
	if rerank {
		// The default strategy. No sourceProperty: a property the search did
		// not return makes the route fetch the candidates again.
		moduleConfig[rerankerModule] = map[string]any{"textProperty": "body", "tokenBudget": budget, "maxResults": k}
	}
	class := map[string]any{
		"class":             className,
		"vectorizer":        "text2vec-transformers",
		"vectorIndexConfig": map[string]any{"distance": "cosine"},
		"moduleConfig":      moduleConfig,
		"properties": []map[string]any{
			{"name": "title", "dataType": []string{"text"}},
			{"name": "body", "dataType": []string{"text"}},
			{"name": "source", "dataType": []string{"text"},
				"moduleConfig": map[string]any{"text2vec-transformers": map[string]any{"skip": true}}},
		},
	}
	if err := c.do(ctx, http.MethodPost, "/v1/schema", class, nil); err != nil {
		return fmt.Errorf("create class: %w", err)
	}
	const batch = 200
	for start := 0; start < len(docs); start += batch {
		objs := make([]map[string]any, 0, batch)
		for i, d := range docs[start:min(len(docs), start+batch)] {
			objs = append(objs, map[string]any{"class": className, "id": fmt.Sprintf("00000000-0000-4000-8000-%012d", start+i),
				"properties": map[string]any{"title": d.Title, "body": d.Body, "source": d.Source}})
		}
		var res []struct {
			Result struct {
				Errors *struct {
					Error []struct{ Message string } `json:"error"`
				} `json:"errors"`
			} `json:"result"`
		}
		if err := c.do(ctx, http.MethodPost, "/v1/batch/objects", map[string]any{"objects": objs}, &res); err != nil {
			return fmt.Errorf("batch import: %w", err)
		}
		for _, r := range res {
			if r.Result.Errors != nil && len(r.Result.Errors.Error) > 0 {
				return fmt.Errorf("batch import: %s", r.Result.Errors.Error[0].Message)
			}
		}
	}
	return nil
}

// serverMeta is what the bench reports about the server.
type serverMeta struct {
	version    string
	strategies []string
	kernel     string
	cache      map[string]any
	reranker   bool // the server has the gRPC route
}

func (c *clients) meta(ctx context.Context) (serverMeta, error) {
	var m struct {
		Version string                    `json:"version"`
		Modules map[string]map[string]any `json:"modules"`
	}
	if err := c.do(ctx, http.MethodGet, "/v1/meta", nil, &m); err != nil {
		return serverMeta{}, err
	}
	out := serverMeta{version: m.Version}
	ds := m.Modules["diverse-select"]
	if ds == nil {
		return out, fmt.Errorf("the server has no diverse-select module (was bin/weaviate-server built with make build?)")
	}
	if list, ok := ds["strategies"].([]any); ok {
		for _, s := range list {
			if sm, ok := s.(map[string]any); ok {
				if name, ok := sm["name"].(string); ok {
					out.strategies = append(out.strategies, name)
				}
			}
		}
	}
	sort.Strings(out.strategies)
	out.kernel, _ = ds["similarityKernel"].(string)
	_, out.reranker = m.Modules[rerankerModule]
	out.cache, _ = ds["featureCache"].(map[string]any)
	return out, nil
}

// graphql posts a query and returns an error for a GraphQL error answer.
// The clock covers sending the request and reading the whole answer;
// checking it for errors happens after.
func (c *clients) graphql(ctx context.Context, query string) (time.Duration, error) {
	body, _ := json.Marshal(map[string]any{"query": query})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/v1/graphql", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	if err != nil {
		return 0, err
	}
	var out struct {
		Errors []struct{ Message string } `json:"errors"`
		Data   struct {
			Get map[string][]json.RawMessage `json:"Get"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return 0, fmt.Errorf("graphql answer: %w", err)
	}
	if len(out.Errors) > 0 {
		return 0, fmt.Errorf("graphql: %s", out.Errors[0].Message)
	}
	if len(out.Data.Get[className]) == 0 {
		return 0, fmt.Errorf("graphql: no results")
	}
	return took, nil
}

// grpcSearch runs a gRPC search and checks that it returned results.
func (c *clients) grpcSearch(ctx context.Context, req *pb.SearchRequest) (time.Duration, error) {
	start := time.Now()
	reply, err := c.grpc.Search(ctx, req)
	took := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("grpc: %w", err)
	}
	if len(reply.Results) == 0 {
		return 0, fmt.Errorf("grpc: no results")
	}
	return took, nil
}
