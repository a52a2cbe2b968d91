package integration

import (
	"strings"
	"testing"

	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// TestUndefinedCombinations: Weaviate's own MMR with a selection is refused
// the same way by the module and the gateway, saying which to use; a
// selecting search with a field the gateway's protocol does not know is
// refused by the gateway naming the field, and the same search without
// selection settings passes through to Weaviate.
func TestUndefinedCombinations(t *testing.T) {
	gs := startGatewayEq(t)
	t.Run("mmr-and-selection", func(t *testing.T) {
		req := eqRequest(10, map[string]any{"strategy": "topk"}, func(r *pb.SearchRequest) {
			r.NearText = &pb.NearTextSearch{Query: []string{healthQuery},
				Selection: &pb.Selection{Selection: &pb.Selection_Mmr{Mmr: &pb.Selection_MMR{Limit: proto.Uint32(5), Balance: proto.Float32(0.5)}}}}
		})
		const want = `choose one - for diverse selection drop the search's MMR and give strategy "mmr"`
		_, merr := eqModuleSearch(t, req)
		_, gerr := gs.search(ctx(t), req)
		for who, err := range map[string]error{"module": merr, "gateway": gerr} {
			if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v, want InvalidArgument saying %q", who, err, want)
			}
		}
	})
	t.Run("unknown-field", func(t *testing.T) {
		unknown := protowire.AppendVarint(protowire.AppendTag(nil, 4242, protowire.VarintType), 1)
		send := func(req *pb.SearchRequest) error {
			req.ProtoReflect().SetUnknown(unknown)
			b, _ := proto.Marshal(req)
			resent := &pb.SearchRequest{}
			if err := proto.Unmarshal(b, resent); err != nil {
				t.Fatal(err)
			}
			_, err := gs.search(ctx(t), resent)
			return err
		}
		err := send(eqRequest(10, map[string]any{"strategy": "topk"}, nil))
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "field 4242 of weaviate.v1.SearchRequest") {
			t.Errorf("a selecting search with field 4242: %v, want InvalidArgument naming the field", err)
		}
		if err := send(plainRequest(5)); err != nil {
			t.Errorf("a plain search with field 4242 (Weaviate's to read): %v", err)
		}
	})
}
