package gateway

import (
	"context"
	"errors"
	"io"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// The pass-through. Every gRPC call the gateway does not answer itself -
// other RPCs, searches without selection settings - goes upstream as the
// bytes the client sent and comes back as the bytes Weaviate sent, with
// the caller's metadata both ways: the gateway parses nothing it does not
// need.

// frame is one gRPC message's bytes, not decoded.
type frame struct{ b []byte }

// codec passes frames through as bytes and encodes the gateway's own
// messages as protobuf: the codec of both the listener and the upstream
// connection.
type codec struct{}

func (codec) Name() string { return "proto" }

func (codec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case *frame:
		return m.b, nil
	case proto.Message:
		return proto.Marshal(m)
	}
	return nil, status.Errorf(codes.Internal, "gateway codec: cannot encode %T", v)
}

func (codec) Unmarshal(data []byte, v any) error {
	switch m := v.(type) {
	case *frame:
		m.b = append(m.b[:0], data...)
		return nil
	case proto.Message:
		return proto.Unmarshal(data, m)
	}
	return status.Errorf(codes.Internal, "gateway codec: cannot decode into %T", v)
}

// outgoing is the upstream call's context: the caller's metadata
// (Authorization, API keys, a module's provider keys) unchanged, but for the
// transport's own headers, and the caller's deadline.
func outgoing(ctx context.Context) context.Context {
	md, _ := metadata.FromIncomingContext(ctx)
	out := metadata.MD{}
	for k, v := range md {
		if strings.HasPrefix(k, ":") || strings.HasPrefix(k, "grpc-") || k == "content-type" || k == "user-agent" || k == "te" {
			continue
		}
		out[k] = v
	}
	return metadata.NewOutgoingContext(ctx, out)
}

var streamBoth = &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}

// pass forwards one call of any kind (unary or streaming) upstream; first
// is the call's first message when the gateway read it already (nil: none).
func (g *Gateway) pass(srv grpc.ServerStream, method string, first *frame) error {
	ctx, cancel := context.WithCancel(outgoing(srv.Context()))
	defer cancel()
	up, err := g.conn.NewStream(ctx, streamBoth, method)
	if err != nil {
		return upstreamStatus(err)
	}
	toUp := make(chan error, 1)
	go func() {
		if first != nil {
			if err := up.SendMsg(first); err != nil {
				toUp <- err
				return
			}
		}
		for {
			f := &frame{}
			if err := srv.RecvMsg(f); err != nil {
				if errors.Is(err, io.EOF) {
					toUp <- up.CloseSend()
					return
				}
				toUp <- err
				return
			}
			if err := up.SendMsg(f); err != nil {
				toUp <- err
				return
			}
		}
	}()
	headerSent := false
	for {
		f := &frame{}
		err := up.RecvMsg(f)
		if !headerSent {
			if md, herr := up.Header(); herr == nil {
				_ = srv.SendHeader(md)
			}
			headerSent = true
		}
		if err != nil {
			srv.SetTrailer(up.Trailer())
			if errors.Is(err, io.EOF) {
				return nil
			}
			return upstreamStatus(err)
		}
		if err := srv.SendMsg(f); err != nil {
			return err
		}
	}
}

// upstreamStatus is the status the caller gets for an upstream call's
// error: Weaviate's own status as it sent it, and for a transport failure
// (upstream down, unreachable) Unavailable naming the upstream.
func upstreamStatus(err error) error {
	if err == nil {
		return nil
	}
	if st, ok := status.FromError(err); ok {
		if st.Code() == codes.Unavailable { // most often the connection: say whose
			return status.Error(codes.Unavailable, "gateway: upstream Weaviate: "+st.Message())
		}
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return status.Error(codes.DeadlineExceeded, "gateway: upstream Weaviate: "+err.Error())
	}
	if errors.Is(err, context.Canceled) {
		return status.Error(codes.Canceled, "gateway: upstream Weaviate: "+err.Error())
	}
	return status.Error(codes.Unavailable, "gateway: upstream Weaviate: "+err.Error())
}
