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
// Two forwarders run over error channels, as grpc-proxy's handler runs
// them: the caller's messages go up until the caller is done (then the
// upstream stream is half-closed) or fails (then the upstream call is
// cancelled); the upstream's come back until it ends the call, whose
// status and trailer are the caller's. grpc-proxy's handler itself is not
// used: it reads a call from its start, and a search reaches pass with its
// first message already read (to decide whether the gateway selects).
func (g *Gateway) pass(srv grpc.ServerStream, method string, first *frame) error {
	ctx, cancel := context.WithCancel(outgoing(srv.Context()))
	defer cancel()
	up, err := g.conn.NewStream(ctx, streamBoth, method)
	if err != nil {
		return upstreamStatus(err)
	}
	toUp := forwardToUpstream(srv, up, first)
	toCaller := forwardToCaller(up, srv)
	for range 2 {
		select {
		case err := <-toUp:
			if !errors.Is(err, io.EOF) { // the caller's stream failed: stop the upstream call
				cancel()
				<-toCaller // the cancelled call returns at once; the caller's stream is not touched after we return
				return status.Errorf(codes.Canceled, "gateway: the caller's stream: %v", err)
			}
			_ = up.CloseSend() // the caller is done; the upstream's replies still come back
		case err := <-toCaller:
			srv.SetTrailer(up.Trailer())
			if errors.Is(err, io.EOF) {
				return nil
			}
			return upstreamStatus(err)
		}
	}
	return status.Error(codes.Internal, "gateway: the pass-through ended without the upstream's status")
}

// forwardToUpstream sends the caller's messages up (first first) and
// reports how it ended: io.EOF when the caller is done.
func forwardToUpstream(srv grpc.ServerStream, up grpc.ClientStream, first *frame) <-chan error {
	done := make(chan error, 1)
	go func() {
		if first != nil {
			if err := up.SendMsg(first); err != nil {
				done <- err
				return
			}
		}
		for {
			f := &frame{}
			if err := srv.RecvMsg(f); err != nil {
				done <- err // io.EOF: the caller has sent everything
				return
			}
			if err := up.SendMsg(f); err != nil {
				// The upstream ended the call: its status comes from
				// RecvMsg (forwardToCaller); stop reading the caller.
				done <- io.EOF
				return
			}
		}
	}()
	return done
}

// forwardToCaller sends the upstream's header (also on a reply that is
// only an error) and messages back, and reports how the call ended:
// io.EOF for a call that succeeded.
func forwardToCaller(up grpc.ClientStream, srv grpc.ServerStream) <-chan error {
	done := make(chan error, 1)
	go func() {
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
				done <- err
				return
			}
			if err := srv.SendMsg(f); err != nil {
				done <- status.Errorf(codes.Canceled, "gateway: the caller's stream: %v", err)
				return
			}
		}
	}()
	return done
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
