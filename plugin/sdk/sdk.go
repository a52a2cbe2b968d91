// Package sdk is what an external selector plugin imports: implement
// Selector (a description and one Select method over a selectors.Problem)
// and call Serve from main. The diverse-select module starts the program,
// checks the handshake's protocol version, and calls it over gRPC
// (hashicorp/go-plugin) for every query that names the strategy.
//
//	func main() { sdk.Serve(mySelector{}) }
//
// A plugin can reuse the built-in strategies: import a strategy package
// (selectors/mmr, ...) and run it with selectors.New and (*selectors.Selector).Run.
//
// The package does not import Weaviate; the strategy's name is the plugin
// file's name (see plugin/host).
package sdk

import (
	"context"
	"math"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/diverse-select/diverse-select/plugin/proto"
	"github.com/diverse-select/diverse-select/selectors"
)

// ProtocolVersion is the version of plugin/proto/selector.proto this SDK
// speaks; the module refuses a plugin of another version with an error
// naming both.
const ProtocolVersion = 1

// Handshake is the go-plugin handshake between the module and a plugin. The
// magic cookie only tells a user who runs a plugin by hand that it is not a
// program to run directly.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   "DIVERSE_SELECT_PLUGIN",
	MagicCookieValue: "selector-v1",
}

// PluginName is the name under which the Selector service is dispensed.
const PluginName = "selector"

// Description is what the module shows in /v1/meta and validates queries
// against: the same fields as a built-in strategy's selectors.Definition.
type Description struct {
	// Doc is a one-line summary.
	Doc string
	// Params are the strategy's parameters. A parameter of kind
	// selectors.KindProperty names an object property: the module extracts
	// it for every candidate into Candidate.Properties.
	Params []selectors.ParamSpec
	// NeedsVectors: the module sends the candidates' vectors.
	NeedsVectors bool
	// NeedsText: the module sends the candidates' texts.
	NeedsText bool
}

// Selector is an external strategy.
type Selector interface {
	// Describe is called once per start of the plugin.
	Describe() Description
	// Select chooses candidates of p: items in selection order, each with its
	// Index into p.Candidates and its Gain (Relevance and Redundancy
	// optional). The module checks the selection (indices in range, no
	// duplicates, at most p.K() items, within p.Budget) and refuses a wrong
	// one. params are validated against Describe's Params, defaults filled in.
	// The module applies dedupThreshold before and the output order after.
	Select(ctx context.Context, p *selectors.Problem, params selectors.Params) (*selectors.Result, error)
}

// Serve runs the plugin until the module ends it; call it from main.
func Serve(s Selector) {
	plugin.Serve(ServeConfig(s, Handshake))
}

// ServeConfig is Serve's go-plugin configuration with a given handshake
// (tests serve a wrong protocol version with it).
func ServeConfig(s Selector, hs plugin.HandshakeConfig) *plugin.ServeConfig {
	return &plugin.ServeConfig{
		HandshakeConfig: hs,
		Plugins:         PluginSet(s),
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			return grpc.NewServer(append(opts, grpc.MaxRecvMsgSize(MaxMessageBytes),
				grpc.InitialWindowSize(WindowBytes), grpc.InitialConnWindowSize(WindowBytes),
				grpc.ReadBufferSize(IOBufferBytes), grpc.WriteBufferSize(IOBufferBytes))...)
		},
	}
}

// MaxMessageBytes lifts gRPC's 4 MiB default message limit: a pool of 2000
// candidates with 1536-dimensional vectors is 12 MiB.
const MaxMessageBytes = math.MaxInt32

// WindowBytes is the HTTP/2 flow-control window of both sides: with the
// 64 KiB default a request of a few hundred KiB waits for window updates.
const WindowBytes = 16 << 20

// IOBufferBytes is the socket buffer of both sides: a request of a few
// hundred KiB goes out in a few writes instead of one per 32 KiB.
const IOBufferBytes = 1 << 20

// DialOptions are the module's gRPC options matching ServeConfig's.
func DialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxMessageBytes), grpc.MaxCallSendMsgSize(MaxMessageBytes)),
		grpc.WithInitialWindowSize(WindowBytes), grpc.WithInitialConnWindowSize(WindowBytes),
		grpc.WithReadBufferSize(IOBufferBytes), grpc.WithWriteBufferSize(IOBufferBytes),
	}
}

// PluginSet maps PluginName to the gRPC plugin serving s (s is nil on the
// module's side, which only dispenses clients).
func PluginSet(s Selector) plugin.PluginSet {
	return plugin.PluginSet{PluginName: &GRPCPlugin{Impl: s}}
}

// GRPCPlugin is the go-plugin glue of the Selector service.
type GRPCPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	Impl Selector
}

// GRPCServer registers the Selector service on the plugin's side.
func (p *GRPCPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	proto.RegisterSelectorServer(s, newServer(p.Impl))
	return nil
}

// GRPCClient returns the module's client of the Selector service.
func (p *GRPCPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return proto.NewSelectorClient(c), nil
}
