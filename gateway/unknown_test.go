package gateway

import (
	"strings"
	"testing"

	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// TestUnknownField: a request with a field the linked protocol does not
// know, at the top or nested, is refused naming the field's number and
// where it is; a request without one is not.
func TestUnknownField(t *testing.T) {
	withUnknown := func(m proto.Message, num protowire.Number) {
		b := protowire.AppendTag(nil, num, protowire.VarintType)
		b = protowire.AppendVarint(b, 1)
		m.ProtoReflect().SetUnknown(b)
	}
	q := "q"
	base := func() *pb.SearchRequest {
		return &pb.SearchRequest{Collection: "Doc", Limit: 10, Rerank: &pb.Rerank{Property: "body", Query: &q},
			NearText: &pb.NearTextSearch{Query: []string{"q"}}, Filters: &pb.Filters{Filters: []*pb.Filters{{}, {}}}}
	}
	for _, tc := range []struct {
		name  string
		edit  func(*pb.SearchRequest)
		where string // "" : accepted
	}{
		{"none", func(*pb.SearchRequest) {}, ""},
		{"top level", func(r *pb.SearchRequest) { withUnknown(r, 4242) }, "field 4242 of weaviate.v1.SearchRequest,"},
		{"in the rerank", func(r *pb.SearchRequest) { withUnknown(r.Rerank, 9) }, "field 9 of weaviate.v1.SearchRequest.rerank,"},
		{"in a list", func(r *pb.SearchRequest) { withUnknown(r.Filters.Filters[1], 77) }, "field 77 of weaviate.v1.SearchRequest.filters.filters[1],"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := base()
			tc.edit(req)
			// As the gateway reads it: the bytes a newer client sent.
			b, _ := proto.Marshal(req)
			got := &pb.SearchRequest{}
			if err := proto.Unmarshal(b, got); err != nil {
				t.Fatal(err)
			}
			err := unknownField(got.ProtoReflect())
			switch {
			case tc.where == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.where != "" && (status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), tc.where)):
				t.Errorf("error %v, want InvalidArgument naming %q", err, tc.where)
			}
		})
	}
}
