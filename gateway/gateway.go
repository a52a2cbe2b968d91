// Package gateway runs diverse-select in front of a stock Weaviate: a
// process that the official clients connect to as to Weaviate (gRPC and
// HTTP), that answers a gRPC search carrying selection settings with the
// module's own selection stage (engine.Standalone) over searches and
// reads it sends upstream with the caller's credentials, and that passes
// every other call through as bytes (ExampleNew; cmd/gateway is the
// command).
//
// Files by job: proxy.go (the pass-through), search.go (a selecting search),
// upstream.go (the upstream searches and their results), objects.go (the
// objects read by id, kept by version), reply.go (the reply in Weaviate's
// shape), classes.go (the collections' schemas, the upstream's readiness),
// config.go (the file of per-collection defaults), generate.go and order.go
// (generative searches over the selection, in its order).
package gateway

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	_ "google.golang.org/grpc/encoding/gzip" // clients that compress
	"google.golang.org/grpc/keepalive"

	"github.com/weaviate/weaviate/usecases/config"

	"github.com/diverse-select/diverse-select/engine"
)

// Options configure a gateway.
type Options struct {
	// UpstreamGRPC is Weaviate's gRPC address (host:port).
	UpstreamGRPC string
	// UpstreamHTTP is Weaviate's REST base URL (http://host:port): the
	// pass-through and the collections' schemas.
	UpstreamHTTP string
	// UpstreamTLS: gRPC over TLS (Weaviate Cloud); UpstreamCA a PEM file
	// of the CAs to trust ("": the system's).
	UpstreamTLS bool
	UpstreamCA  string
	// TLSCert and TLSKey are PEM files: the gateway's own listeners serve
	// TLS with them ("": plain).
	TLSCert, TLSKey string
	// ConfigPath is the file of per-collection defaults ("": none).
	ConfigPath string
	// ReloadEvery is how often the file is checked for changes (0: 1 s).
	ReloadEvery time.Duration
	// ObjectCacheBytes bounds the cache of objects read by id (objects.go;
	// 0: 64 MiB, negative: off).
	ObjectCacheBytes int64
	// UpstreamTimeout bounds each upstream call of a selecting search, for a
	// caller that sets no deadline of its own (0: 60 s).
	UpstreamTimeout time.Duration
	// SchemaTTL is how long a collection's schema is kept (0: 10 s).
	SchemaTTL time.Duration
	// QueryDefaultsLimit is the upstream's QUERY_DEFAULTS_LIMIT, the limit
	// of a search that gives none (0: 10, Weaviate's default).
	QueryDefaultsLimit int
	// MaxMessageBytes bounds a gRPC message either way (0: 10 MiB, Weaviate's default).
	MaxMessageBytes int
	// Getenv reads the DIVERSE_SELECT_* defaults (nil: the environment).
	Getenv func(string) string
	Logger logrus.FieldLogger
}

// Gateway is one running gateway.
type Gateway struct {
	opts    Options
	logger  logrus.FieldLogger
	conn    *grpc.ClientConn
	engine  *engine.Standalone
	config  atomic.Pointer[Config]
	classes *classes
	objects *objects
	http    *httputil.ReverseProxy
	stop    chan struct{}
	// queryDefaults is what Weaviate's parser reads of its config.
	queryDefaults *config.Config

	statusMu    sync.Mutex
	configErr   string
	configLoads int
}

// New connects to the upstream (lazily: a Weaviate down now is Unavailable
// per call, and the gateway recovers when it is back) and loads the
// config file; a bad file refuses the start.
func New(o Options) (*Gateway, error) {
	if o.UpstreamGRPC == "" || o.UpstreamHTTP == "" {
		return nil, fmt.Errorf("gateway: both --upstream-grpc and --upstream-http are needed")
	}
	up, err := url.Parse(o.UpstreamHTTP)
	if err != nil || (up.Scheme != "http" && up.Scheme != "https") || up.Host == "" {
		return nil, fmt.Errorf("gateway: --upstream-http %q: want http://host:port or https://host", o.UpstreamHTTP)
	}
	if o.Logger == nil {
		o.Logger = logrus.New()
	}
	if o.ReloadEvery == 0 {
		o.ReloadEvery = time.Second
	}
	if o.UpstreamTimeout == 0 {
		o.UpstreamTimeout = time.Minute
	}
	if o.SchemaTTL == 0 {
		o.SchemaTTL = 10 * time.Second
	}
	if o.ObjectCacheBytes == 0 {
		o.ObjectCacheBytes = 64 << 20
	}
	if o.MaxMessageBytes == 0 {
		o.MaxMessageBytes = 10 << 20
	}
	g := &Gateway{opts: o, logger: o.Logger, stop: make(chan struct{}), queryDefaults: &config.Config{},
		objects: newObjects(o.ObjectCacheBytes)}
	g.queryDefaults.QueryDefaults.Limit = 10
	if o.QueryDefaultsLimit > 0 {
		g.queryDefaults.QueryDefaults.Limit = int64(o.QueryDefaultsLimit)
	}
	creds := insecure.NewCredentials()
	if o.UpstreamTLS {
		tc := &tls.Config{MinVersion: tls.VersionTLS12}
		if o.UpstreamCA != "" {
			pem, err := os.ReadFile(o.UpstreamCA)
			if err != nil {
				return nil, fmt.Errorf("gateway: --upstream-ca: %w", err)
			}
			tc.RootCAs = x509.NewCertPool()
			if !tc.RootCAs.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("gateway: --upstream-ca %s holds no PEM certificate", o.UpstreamCA)
			}
		}
		creds = credentials.NewTLS(tc)
	}
	g.conn, err = grpc.NewClient(o.UpstreamGRPC, grpc.WithTransportCredentials(creds),
		grpc.WithDefaultCallOptions(grpc.ForceCodec(codec{}),
			grpc.MaxCallRecvMsgSize(o.MaxMessageBytes), grpc.MaxCallSendMsgSize(o.MaxMessageBytes)),
		grpc.WithConnectParams(connectParams))
	if err != nil {
		return nil, fmt.Errorf("gateway: --upstream-grpc %q: %w", o.UpstreamGRPC, err)
	}
	g.engine, err = engine.NewStandalone(o.Getenv, o.Logger)
	if err != nil {
		g.conn.Close()
		return nil, err
	}
	httpc := &http.Client{Transport: upstreamTransport(up)}
	g.classes = newClasses(up, httpc, o.SchemaTTL)
	g.http = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(up)
			r.Out.Host = up.Host
		},
		Transport: httpc.Transport,
	}
	if o.ConfigPath != "" {
		if err := g.Reload(); err != nil {
			g.Close()
			return nil, err
		}
		go g.watch(o.ConfigPath, o.ReloadEvery, g.stop)
	}
	return g, nil
}

// connectParams reconnect soon after the upstream is back (a restart), at
// most 2 s after.
var connectParams = grpc.ConnectParams{
	Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 2 * time.Second},
	MinConnectTimeout: 2 * time.Second,
}

// upstreamTransport is the HTTP transport to the upstream's REST API.
func upstreamTransport(up *url.URL) http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 64
	return t
}

// GRPCServer is the gateway's gRPC server: every method is the
// pass-through but Weaviate's Search, which selects when asked to.
func (g *Gateway) GRPCServer() (*grpc.Server, error) {
	opts := []grpc.ServerOption{grpc.ForceServerCodec(codec{}), grpc.UnknownServiceHandler(g.handle),
		grpc.MaxRecvMsgSize(g.opts.MaxMessageBytes), grpc.MaxSendMsgSize(g.opts.MaxMessageBytes),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 10 * time.Second, PermitWithoutStream: true})}
	if g.opts.TLSCert != "" {
		creds, err := credentials.NewServerTLSFromFile(g.opts.TLSCert, g.opts.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("gateway: --tls-cert/--tls-key: %w", err)
		}
		opts = append(opts, grpc.Creds(creds))
	}
	return grpc.NewServer(opts...), nil
}

// ServeGRPC serves gRPC on l until the listener closes.
func (g *Gateway) ServeGRPC(l net.Listener) error {
	s, err := g.GRPCServer()
	if err != nil {
		return err
	}
	return s.Serve(l)
}

// StatusPath is the gateway's own HTTP endpoint: the config in force and
// the last refusal (everything else is Weaviate's, passed through).
const StatusPath = "/diverse-select/gateway"

// HTTPHandler passes REST and GraphQL through to the upstream unchanged,
// but for StatusPath.
func (g *Gateway) HTTPHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(StatusPath, func(w http.ResponseWriter, r *http.Request) {
		g.statusMu.Lock()
		st := map[string]any{"configLoads": g.configLoads, "configError": g.configErr,
			"collections": g.config.Load(), "featureCache": g.engine.CacheStats(), "objectCache": g.objects.stats()}
		g.statusMu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(st)
	})
	g.schemaRoutes(mux) // schema_create.go
	mux.Handle("/", g.http)
	return mux
}

// Close stops the config watcher, the upstream connection and the plugins.
func (g *Gateway) Close() {
	select {
	case <-g.stop:
	default:
		close(g.stop)
	}
	g.conn.Close()
	g.engine.Close()
}
