package sdk

import (
	"context"
	"fmt"
	"runtime/debug"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/diverse-select/diverse-select/plugin/proto"
	"github.com/diverse-select/diverse-select/selectors"
)

// server serves one Selector over gRPC.
type server struct {
	proto.UnimplementedSelectorServer
	impl Selector
	desc Description
}

func newServer(s Selector) *server { return &server{impl: s, desc: s.Describe()} }

func (s *server) Describe(context.Context, *proto.DescribeRequest) (*proto.Description, error) {
	d, err := DescriptionToProto(s.desc)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return d, nil
}

// Select decodes the problem, validates the parameters against the
// description, and runs the author's Select; a panic becomes an error.
func (s *server) Select(ctx context.Context, req *proto.SelectRequest) (resp *proto.SelectResponse, err error) {
	p, raw, err := DecodeProblem(req)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	params, err := selectors.ValidateParams("plugin", s.desc.Params, raw)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	defer func() {
		if r := recover(); r != nil {
			resp, err = nil, status.Error(codes.Internal, fmt.Sprintf("plugin panicked: %v\n%s", r, debug.Stack()))
		}
	}()
	res, err := s.impl.Select(ctx, p, params)
	if err != nil {
		return nil, status.Error(codes.Unknown, err.Error())
	}
	if res == nil {
		return nil, status.Error(codes.Internal, "plugin returned no result")
	}
	return EncodeResult(res), nil
}
