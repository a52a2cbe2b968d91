package diverseselect

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/connection"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
)

// Searcher runs a gRPC search: the Go client's *connection.GrpcClient (see
// Connect) is one.
type Searcher interface {
	Search(ctx context.Context, req *pb.SearchRequest) (*pb.SearchReply, error)
}

// Connect opens the Go client's gRPC connection to host ("localhost:50051"),
// with headers (e.g. authorization) on every call.
func Connect(host string, secured bool, headers map[string]string) (*connection.GrpcClient, error) {
	return connection.NewGrpcClient(host, secured, headers, nil, time.Minute, 30*time.Second)
}

// Query is one diverse selection: a search of Limit candidates (the pool)
// in Collection, reranked by the collection's reranker-diverse-select.
type Query struct {
	Collection string
	Tenant     string
	// Limit is the candidate pool; the settings' tokenBudget and maxResults
	// cap the output.
	Limit int
	// Offset pages the selection (the objects earlier pages showed).
	Offset int
	// One search: NearText concepts, a BM25 query or a Hybrid query.
	NearText string
	BM25     string
	Hybrid   string
	// TargetVector names the vector a near or hybrid search uses (named vectors).
	TargetVector string
	// Property is the text the selection counts and reads.
	Property string
	// Text is the query text the strategies read (plain text, never parsed
	// for settings: an end user's question is safe here); "" = the search's query.
	Text string
	// Return are the properties returned ("" = Property).
	Return []string
}

// Object is one selected object.
type Object struct {
	ID          string
	Properties  map[string]any // text, numbers and booleans of the returned properties
	RerankScore float64        // 1 for the first down to 1/n for the last
	Explanation *Explanation
}

// Request builds the gRPC request of q with the options as this query's
// settings, for callers that add what Query does not hold (filters, other
// searches); Select sends it.
func Request(q Query, o Options) (*pb.SearchRequest, error) {
	prop, err := RerankProperty(q.Property, o)
	if err != nil {
		return nil, err
	}
	if q.Limit <= 0 {
		return nil, &Error{Key: "limit", Msg: fmt.Sprintf("is %d; allowed: the candidate pool, an integer >= 1", q.Limit)}
	}
	text := q.Text
	req := &pb.SearchRequest{
		Collection: q.Collection, Tenant: q.Tenant, Limit: uint32(q.Limit), Offset: uint32(q.Offset),
		Metadata: &pb.MetadataRequest{Uuid: true, ExplainScore: true},
		// The reply forms of current servers (property values, vectors).
		Uses_123Api: true, Uses_125Api: true, Uses_127Api: true,
	}
	var targets *pb.Targets
	if q.TargetVector != "" {
		targets = &pb.Targets{TargetVectors: []string{q.TargetVector}}
	}
	searches := 0
	if q.NearText != "" {
		req.NearText, searches = &pb.NearTextSearch{Query: []string{q.NearText}, Targets: targets}, searches+1
		text = firstOf(text, q.NearText)
	}
	if q.BM25 != "" {
		req.Bm25Search, searches = &pb.BM25{Query: q.BM25}, searches+1
		text = firstOf(text, q.BM25)
	}
	if q.Hybrid != "" {
		req.HybridSearch, searches = &pb.Hybrid{Query: q.Hybrid, Targets: targets}, searches+1
		text = firstOf(text, q.Hybrid)
	}
	if searches > 1 {
		return nil, errors.New("diverse-select: give one of NearText, BM25 and Hybrid")
	}
	req.Rerank = &pb.Rerank{Property: prop, Query: &text}
	ret := q.Return
	if len(ret) == 0 {
		ret = []string{q.Property}
	}
	req.Properties = &pb.PropertiesRequest{NonRefProperties: ret}
	return req, nil
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Select runs q with the options as this query's settings and returns the
// selected objects in selection order, each with its explanation.
func Select(ctx context.Context, s Searcher, q Query, o Options) ([]Object, error) {
	req, err := Request(q, o)
	if err != nil {
		return nil, err
	}
	reply, err := s.Search(ctx, req)
	if err != nil {
		return nil, err
	}
	return Objects(reply), nil
}

// Objects reads a reply's results.
func Objects(reply *pb.SearchReply) []Object {
	out := make([]Object, 0, len(reply.GetResults()))
	for _, r := range reply.GetResults() {
		md := r.GetMetadata()
		o := Object{ID: md.GetId(), RerankScore: md.GetRerankScore(), Explanation: Explain(md.GetExplainScore()),
			Properties: map[string]any{}}
		for name, v := range r.GetProperties().GetNonRefProps().GetFields() {
			o.Properties[name] = value(v)
		}
		out = append(out, o)
	}
	return out
}

// value is a property value as Go: text, numbers, booleans and their lists
// (nil for the kinds a selection's text properties do not use).
func value(v *pb.Value) any {
	switch k := v.GetKind().(type) {
	case *pb.Value_TextValue:
		return k.TextValue
	case *pb.Value_IntValue:
		return k.IntValue
	case *pb.Value_NumberValue:
		return k.NumberValue
	case *pb.Value_BoolValue:
		return k.BoolValue
	case *pb.Value_ListValue:
		if t := k.ListValue.GetTextValues(); t != nil {
			return t.GetValues()
		}
	}
	return nil
}
