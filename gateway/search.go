package gateway

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	grpcv1 "github.com/weaviate/weaviate/adapters/handlers/grpc/v1"
	"github.com/weaviate/weaviate/entities/models"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/diverse-select/diverse-select/engine"
)

// handle is the listener's handler of every gRPC call: a Search that
// selects is answered here, every other call passes through.
func (g *Gateway) handle(_ any, stream grpc.ServerStream) (err error) {
	method, _ := grpc.MethodFromServerStream(stream)
	defer func() {
		if p := recover(); p != nil {
			g.logger.WithField("panic", fmt.Sprint(p)).WithField("stack", string(debug.Stack())).Error("gateway: panic recovered")
			err = status.Errorf(codes.Internal, "gateway: internal error in %s (logged with its stack): %v", method, p)
		}
	}()
	if method != searchMethod {
		return g.pass(stream, method, nil)
	}
	f := &frame{}
	if err := stream.RecvMsg(f); err != nil {
		return err
	}
	req := &pb.SearchRequest{}
	if proto.Unmarshal(f.b, req) != nil {
		return g.pass(stream, method, f) // Weaviate answers, as without the gateway
	}
	if !g.selects(stream.Context(), req) {
		if err := g.noReranker(stream.Context(), req); err != nil {
			return err
		}
		return g.pass(stream, method, f)
	}
	if err := unknownField(req.ProtoReflect()); err != nil {
		return err
	}
	reply, selected, err := g.search(stream.Context(), req)
	if err != nil {
		return err
	}
	if !selected {
		return g.pass(stream, method, f)
	}
	return stream.SendMsg(reply)
}

// selects tells a search the gateway answers: a rerank whose property
// carries settings, or any rerank on a collection with defaults (the config
// file names it, or its schema keeps them: schema_create.go).
// A generative search with settings too (generate.go).
func (g *Gateway) selects(ctx context.Context, req *pb.SearchRequest) bool {
	rr := req.GetRerank()
	return rr != nil && (hasSettings(rr) || g.collectionDefaults(ctx, req.Collection) != nil)
}

// hasSettings: the rerank property carries selection settings
// (property|diverseSelect.v1|{...}).
func hasSettings(rr *pb.Rerank) bool {
	return strings.Contains(rr.GetProperty(), engine.RerankSettingsSeparator)
}

// search answers a selecting search: the module's limits on the request
// before any upstream call (but the schema read that finds the defaults
// kept in the schema of a collection the config file does not name:
// schema_create.go), the collection's schema as its caller reads
// it, Weaviate's own parse of the request, the selection stage over
// upstream searches, and the reply in Weaviate's shape. selected is false
// when the stage does not take the query after all (pass it through).
func (g *Gateway) search(ctx context.Context, req *pb.SearchRequest) (_ *pb.SearchReply, selected bool, err error) {
	start := time.Now()
	rr := req.GetRerank()
	defaults := g.collectionDefaults(ctx, req.Collection)
	if err := g.engine.Precheck(req.Collection, defaults, rr.GetProperty(), rr.GetQuery(), int(req.Limit)); err != nil {
		return nil, true, err
	}
	schemaCtx, cancel := context.WithTimeout(ctx, g.opts.UpstreamTimeout)
	class, err := g.classes.get(schemaCtx, req.Collection)
	cancel()
	if err != nil {
		return nil, true, err
	}
	class = withDefaults(class, defaults, hasSettings(rr), g.engine.IsReranker)
	if defaults != nil {
		if err := g.engine.ValidateClass(class); err != nil {
			return nil, true, status.Errorf(codes.FailedPrecondition, "gateway: the config of collection %s: %v", class.Class, err)
		}
	}
	getClass := func(string) (*models.Class, error) { return class, nil }
	params, err := grpcv1.NewParser(req.Uses_127Api, getClass, nil, false).Search(req, g.queryDefaults)
	if err != nil {
		return nil, true, status.Error(codes.InvalidArgument, err.Error())
	}
	u := g.newUpstreamQuery(req, class)
	out, selected, err := g.engine.Select(ctx, class, params, u.searchPool, u.read)
	if err != nil || !selected {
		return nil, selected, withCode(err)
	}
	reply, err := u.reply(ctx, out)
	if err != nil {
		return nil, true, err
	}
	if req.Generative != nil {
		if err := u.generate(ctx, reply); err != nil {
			return nil, true, err
		}
	}
	reply.Took = float32(time.Since(start).Seconds())
	return reply, true, nil
}

// withCode is err with a gRPC status: the engine's errors and the
// upstream's carry theirs; anything else is Unknown.
func withCode(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	return status.Error(engine.Code(err), err.Error())
}
