package gateway

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/weaviate/weaviate/entities/additional"
	"github.com/weaviate/weaviate/entities/dto"
	"github.com/weaviate/weaviate/entities/filters"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/search"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"github.com/weaviate/weaviate/usecases/byteops"
	"github.com/weaviate/weaviate/usecases/modulecomponents/additional/rank"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/diverse-select/diverse-select/engine"
	_ "github.com/diverse-select/diverse-select/selectors/all"
)

func TestCodec(t *testing.T) {
	req := &pb.SearchRequest{Collection: "Article", Limit: 7}
	b, err := codec{}.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	var f frame
	if err := (codec{}).Unmarshal(b, &f); err != nil || string(f.b) != string(b) {
		t.Fatalf("a frame is not the bytes: %v", err)
	}
	again, err := codec{}.Marshal(&f)
	if err != nil || string(again) != string(b) {
		t.Fatalf("a frame is not sent as its bytes: %v", err)
	}
	var back pb.SearchRequest
	if err := (codec{}).Unmarshal(b, &back); err != nil || !proto.Equal(&back, req) {
		t.Fatalf("proto round trip: %v", err)
	}
	if _, err := (codec{}).Marshal(42); status.Code(err) != codes.Internal {
		t.Errorf("a non-message: %v", err)
	}
}

func TestOutgoingMetadata(t *testing.T) {
	in := metadata.MD{"authorization": {"Bearer k"}, "x-openai-api-key": {"o"}, ":authority": {"h"},
		"content-type": {"application/grpc"}, "user-agent": {"c"}, "grpc-timeout": {"1S"}, "te": {"trailers"}}
	md, _ := metadata.FromOutgoingContext(outgoing(metadata.NewIncomingContext(context.Background(), in)))
	want := metadata.MD{"authorization": {"Bearer k"}, "x-openai-api-key": {"o"}}
	if !reflect.DeepEqual(md, want) {
		t.Errorf("forwarded %v, want %v", md, want)
	}
	h := forwardedHeaders(metadata.NewIncomingContext(context.Background(), in))
	if h.Get("Authorization") != "Bearer k" || h.Get("X-Openai-Api-Key") != "o" || h.Get("User-Agent") != "" {
		t.Errorf("REST headers %v", h)
	}
}

func TestUpstreamStatus(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want codes.Code
	}{
		{status.Error(codes.PermissionDenied, "no"), codes.PermissionDenied},
		{errors.New("dial tcp: connection refused"), codes.Unavailable},
		{context.DeadlineExceeded, codes.DeadlineExceeded},
		{context.Canceled, codes.Canceled},
	} {
		if got := status.Code(upstreamStatus(tc.err)); got != tc.want {
			t.Errorf("%v: %v, want %v", tc.err, got, tc.want)
		}
	}
	if upstreamStatus(nil) != nil {
		t.Error("nil is not an error")
	}
}

func TestHTTPCode(t *testing.T) {
	for s, want := range map[int]codes.Code{401: codes.Unauthenticated, 403: codes.PermissionDenied, 404: codes.NotFound,
		422: codes.InvalidArgument, 429: codes.ResourceExhausted, 503: codes.Unavailable, 500: codes.Unknown} {
		if got := httpCode(s); got != want {
			t.Errorf("%d: %v, want %v", s, got, want)
		}
	}
}

func TestValue(t *testing.T) {
	ints := make([]byte, 16)
	binary.LittleEndian.PutUint64(ints, 3)
	binary.LittleEndian.PutUint64(ints[8:], uint64(math.MaxUint64)) // -1
	nums := make([]byte, 8)
	binary.LittleEndian.PutUint64(nums, math.Float64bits(2.5))
	for _, tc := range []struct {
		in   *pb.Value
		want any
	}{
		{&pb.Value{Kind: &pb.Value_TextValue{TextValue: "a"}}, "a"},
		{&pb.Value{Kind: &pb.Value_IntValue{IntValue: 7}}, 7.0},
		{&pb.Value{Kind: &pb.Value_NumberValue{NumberValue: 1.5}}, 1.5},
		{&pb.Value{Kind: &pb.Value_BoolValue{BoolValue: true}}, true},
		{&pb.Value{Kind: &pb.Value_ListValue{ListValue: &pb.ListValue{Kind: &pb.ListValue_TextValues{TextValues: &pb.TextValues{Values: []string{"x", "y"}}}}}}, []string{"x", "y"}},
		{&pb.Value{Kind: &pb.Value_ListValue{ListValue: &pb.ListValue{Kind: &pb.ListValue_IntValues{IntValues: &pb.IntValues{Values: ints}}}}}, []float64{3, -1}},
		{&pb.Value{Kind: &pb.Value_ListValue{ListValue: &pb.ListValue{Kind: &pb.ListValue_NumberValues{NumberValues: &pb.NumberValues{Values: nums}}}}}, []float64{2.5}},
		{&pb.Value{Kind: &pb.Value_NullValue{}}, nil},
	} {
		if got := value(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v: %#v, want %#v", tc.in, got, tc.want)
		}
	}
}

func TestVectors(t *testing.T) {
	b := make([]byte, 2+4*4)
	binary.LittleEndian.PutUint16(b, 2)
	for i, x := range []float32{1, 2, 3, 4} {
		binary.LittleEndian.PutUint32(b[2+4*i:], math.Float32bits(x))
	}
	if got := multiFloats(b); !reflect.DeepEqual(got, [][]float32{{1, 2}, {3, 4}}) {
		t.Errorf("multi-vector %v", got)
	}
	if got := byteops.Fp32SliceFromBytes(b[2:]); !reflect.DeepEqual(got, []float32{1, 2, 3, 4}) {
		t.Errorf("vector %v", got)
	}
	if multiFloats([]byte{0}) != nil || multiFloats([]byte{0, 0}) != nil {
		t.Error("a short or zero-dimension multi-vector")
	}
}

func TestPoolRequest(t *testing.T) {
	q := "statins"
	req := &pb.SearchRequest{Collection: "A", Limit: 10, Offset: 3, Rerank: &pb.Rerank{Property: "body|diverseSelect.v1|{}", Query: &q},
		Generative: &pb.GenerativeSearch{}, Properties: &pb.PropertiesRequest{NonRefProperties: []string{"title"}},
		Metadata: &pb.MetadataRequest{Uuid: true}}
	deferred := dto.GetParams{Pagination: &filters.Pagination{Limit: 40}}
	deferred.AdditionalProperties.NoProps = true
	r, _ := poolRequest(req, deferred, nil)
	if r.Limit != 40 || r.Offset != 0 || r.Rerank != nil || r.Generative != nil || len(r.Properties.NonRefProperties) != 0 ||
		!r.Metadata.LastUpdateTimeUnix || !r.Metadata.Distance || r.Metadata.Vector {
		t.Errorf("deferred pool request: %v", r)
	}
	full := dto.GetParams{Pagination: &filters.Pagination{Limit: 40}}
	full.AdditionalProperties.Vector = true
	full.AdditionalProperties.ModuleParams = map[string]any{"rerank": &rank.Params{Property: ptr("body"), Query: &q}}
	full.Properties = append(full.Properties, propertyOf("body"))
	r, _ = poolRequest(req, full, nil)
	if r.Rerank.GetProperty() != "body" || !r.Metadata.Vector || !reflect.DeepEqual(r.Properties.NonRefProperties, []string{"title", "body"}) {
		t.Errorf("pool request with a reranker on the pool: %v", r)
	}
	if req.Limit != 10 || len(req.Properties.NonRefProperties) != 1 || req.Metadata.Vector {
		t.Errorf("the caller's request changed: %v", req)
	}
}

// TestPoolRequestTrims: the pool's search loads only what the selection
// reads (and a reranker of the pool) when the caller's other properties
// can be read by id for the selected objects.
func TestPoolRequestTrims(t *testing.T) {
	full := dto.GetParams{Pagination: &filters.Pagination{Limit: 40}, Properties: []search.SelectProperty{propertyOf("title"), propertyOf("body")}}
	reranked := full
	reranked.AdditionalProperties.ModuleParams = map[string]any{"rerank": &rank.Params{Property: ptr("summary")}}
	deferred := dto.GetParams{Pagination: &filters.Pagination{Limit: 40}}
	deferred.AdditionalProperties.NoProps = true
	nested := &pb.PropertiesRequest{ObjectProperties: []*pb.ObjectPropertiesRequest{{PropName: "meta"}}}
	for _, c := range []struct {
		name    string
		want    *pb.PropertiesRequest
		pool    dto.GetParams
		reads   []string
		props   []string // nil: the caller's own
		trimmed bool
	}{
		{name: "named", want: &pb.PropertiesRequest{NonRefProperties: []string{"title"}}, pool: full, reads: []string{"body"},
			props: []string{"body"}, trimmed: true},
		{name: "all", pool: full, reads: []string{"body"}, props: []string{"body"}, trimmed: true},
		{name: "a reranker reads one more", pool: reranked, reads: []string{"body"}, props: []string{"body", "summary"}, trimmed: true},
		{name: "reads not known", want: &pb.PropertiesRequest{NonRefProperties: []string{"title"}}, pool: full,
			props: []string{"title", "body"}},
		{name: "a nested object cut to fields", want: nested, pool: full, reads: []string{"body"}, props: []string{"body"}},
		{name: "deferred", pool: deferred, reads: []string{"body"}, props: []string{}},
	} {
		req := &pb.SearchRequest{Collection: "A", Limit: 40, Properties: c.want}
		r, trimmed := poolRequest(req, c.pool, c.reads)
		got := r.GetProperties().GetNonRefProperties()
		if c.name == "a nested object cut to fields" {
			got = nil
			for _, o := range r.GetProperties().GetObjectProperties() {
				got = append(got, o.GetPropName())
			}
			c.props = []string{"meta"}
		}
		if trimmed != c.trimmed || !slices.Equal(got, c.props) {
			t.Errorf("%s: properties %v (trimmed %v), want %v (trimmed %v)", c.name, got, trimmed, c.props, c.trimmed)
		}
	}
}

// TestPoolMetadata: the pool's search asks for what the selection reads
// and what depends on the search; the object's own metadata the caller
// asked for (vectors, creation time) is left to the read of the selected.
func TestPoolMetadata(t *testing.T) {
	base := &pb.MetadataRequest{Uuid: true, LastUpdateTimeUnix: true, Distance: true, Score: true}
	with := func(edit func(*pb.MetadataRequest)) *pb.MetadataRequest {
		m := proto.CloneOf(base)
		edit(m)
		return m
	}
	for _, c := range []struct {
		name   string
		want   *pb.MetadataRequest
		addl   additional.Properties
		pool   *pb.MetadataRequest
		object bool // objectMetadata
	}{
		{name: "none asked", pool: base},
		{name: "ids and distances", want: &pb.MetadataRequest{Uuid: true, Distance: true}, pool: base},
		{name: "the search's own", want: &pb.MetadataRequest{Certainty: true, ExplainScore: true, IsConsistent: true},
			pool: with(func(m *pb.MetadataRequest) { m.Certainty, m.ExplainScore, m.IsConsistent = true, true, true })},
		{name: "vectors and creation time", want: &pb.MetadataRequest{Vector: true, Vectors: []string{"a"}, CreationTimeUnix: true},
			pool: base, object: true},
		{name: "the vector the stage compares", want: &pb.MetadataRequest{Vectors: []string{"b"}},
			addl: additional.Properties{Vector: true, Vectors: []string{"a"}},
			pool: with(func(m *pb.MetadataRequest) { m.Vector, m.Vectors = true, []string{"a"} }), object: true},
	} {
		if got := poolMetadata(c.want, c.addl); !proto.Equal(got, c.pool) {
			t.Errorf("%s: pool metadata %v, want %v", c.name, got, c.pool)
		}
		if got := objectMetadata(c.want); got != c.object {
			t.Errorf("%s: object metadata %v, want %v", c.name, got, c.object)
		}
	}
}

func TestWithDefaults(t *testing.T) {
	isReranker := func(n string) bool { return strings.HasPrefix(n, "reranker-") }
	cross := &models.Class{Class: "A", ModuleConfig: map[string]any{"reranker-transformers": map[string]any{}}}
	plain := &models.Class{Class: "A"}
	if got := withDefaults(plain, nil, false, isReranker); got != plain {
		t.Error("no defaults, no settings: the class as it is")
	}
	if got := withDefaults(cross, nil, true, isReranker); got != cross {
		t.Error("settings on a class with another reranker: that reranker scores the pool")
	}
	got := withDefaults(plain, map[string]any{"strategy": "mmr"}, false, isReranker)
	if mc := got.ModuleConfig.(map[string]any)[engine.RerankerName]; !reflect.DeepEqual(mc, map[string]any{"strategy": "mmr"}) {
		t.Errorf("defaults: %v", got.ModuleConfig)
	}
	if plain.ModuleConfig != nil {
		t.Error("the cached class changed")
	}
}

func TestLoadConfig(t *testing.T) {
	e, err := engine.NewStandalone(func(string) string { return "" }, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name, file, err string
	}{
		{"good", "collections:\n  A: {strategy: mmr, tokenBudget: 100}\n  B: {}\n", ""},
		{"json", `{"collections": {"A": {"strategy": "adagres"}}}`, ""},
		{"empty", "", ""},
		{"bad value", "collections:\n  A: {tokenBudget: -1}\n", `collections.A: "tokenBudget"`},
		{"unknown key", "collections:\n  A: {tokenBugdet: 1}\n", `collections.A: "tokenBugdet"`},
		{"unknown top key", "collection:\n  A: {}\n", "collection"},
		{"the second is bad", "collections:\n  A: {}\n  B: {strategy: nope}\n", "collections.B"},
		{"not a map", "collections: [1, 2]\n", "collections"},
	} {
		path := filepath.Join(dir, tc.name+".yaml")
		if err := os.WriteFile(path, []byte(tc.file), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := loadConfig(path, e.ValidateConfig)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: %v, want an error naming %s", tc.name, err, tc.err)
		case tc.err == "" && tc.name == "good" && c.defaults("A")["tokenBudget"] != 100.0:
			t.Errorf("%s: numbers as JSON reads them: %#v", tc.name, c.defaults("A"))
		}
	}
}

func ptr(s string) *string { return &s }

func propertyOf(name string) search.SelectProperty {
	return search.SelectProperty{Name: name, IsPrimitive: true}
}
