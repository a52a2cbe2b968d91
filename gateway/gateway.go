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
// (generative searches over the selection, in its order), unknown.go (a
// selecting search with fields the linked protocol does not know).
package gateway

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
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
	// SchemaTTL is how long a collection's schema is fresh (0: 10 s); an
	// older one is read again in the background while it is served, for at
	// most SchemaStale (0: 10 min) while the upstream does not answer.
	SchemaTTL, SchemaStale time.Duration
	// SchemaTimeout bounds a schema read (0: 2 s): then the call is
	// Unavailable, naming the upstream's silence.
	SchemaTimeout time.Duration
	// QueryDefaultsLimit is the upstream's QUERY_DEFAULTS_LIMIT, the limit
	// of a search that gives none (0: 10, Weaviate's default).
	QueryDefaultsLimit int
	// MaxMessageBytes bounds a gRPC message either way, the caller's and the
	// upstream's (0: DefaultMaxMessageBytes); set it to the upstream's
	// GRPC_MAX_MESSAGE_SIZE.
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
	// upstream and httpc are the upstream's REST API and its client.
	upstream *url.URL
	httpc    *http.Client
	segment  http.Handler // segment.go
	stop     chan struct{}
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
	if o.SchemaStale == 0 {
		o.SchemaStale = 10 * time.Minute
	}
	if o.SchemaTimeout == 0 {
		o.SchemaTimeout = 2 * time.Second
	}
	if o.ObjectCacheBytes == 0 {
		o.ObjectCacheBytes = 64 << 20
	}
	if o.MaxMessageBytes == 0 {
		o.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if o.MaxMessageBytes < 0 {
		return nil, fmt.Errorf("gateway: --grpc-max-message-size %d: want a positive byte count (default %d, Weaviate's)", o.MaxMessageBytes, DefaultMaxMessageBytes)
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
	httpc := &http.Client{Transport: upstreamTransport()}
	g.upstream, g.httpc = up, httpc
	g.classes = newClasses(up, httpc, o.SchemaTTL, max(o.SchemaStale, o.SchemaTTL), o.SchemaTimeout, o.Logger)
	g.http = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(up)
			r.Out.Host = up.Host
		},
		Transport: httpc.Transport,
	}
	if g.segment, err = g.newSegment(); err != nil {
		g.Close()
		return nil, err
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

// DefaultMaxMessageBytes is Weaviate's default GRPC_MAX_MESSAGE_SIZE
// (104858000): what Weaviate takes directly passes through the gateway.
const DefaultMaxMessageBytes = config.DefaultGRPCMaxMsgSize

// connectParams reconnect soon after the upstream is back (a restart), at
// most 2 s after.
var connectParams = grpc.ConnectParams{
	Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 2 * time.Second},
	MinConnectTimeout: 2 * time.Second,
}

// upstreamTransport is the HTTP transport to the upstream's REST API: the
// default one, with idle connections kept for the selecting searches' reads
// and closed after upstreamIdle.
func upstreamTransport() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 64
	t.IdleConnTimeout = upstreamIdle
	return t
}

// upstreamIdle is how long an idle connection to the upstream is kept: less
// than Weaviate's own idle timeout (its --cleanup-timeout, 10 s by default),
// so that the gateway never sends a request on a connection Weaviate is
// closing. A POST sent into that race fails once its headers are out (write:
// broken pipe) and is not retried: a batch import through the gateway lost
// objects that way under load, with the transport's default of 90 s.
const upstreamIdle = 5 * time.Second

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

// The gateway's own HTTP endpoints; everything else is Weaviate's, passed
// through.
const (
	// StatusPath shows the config in force, the last refusal and the
	// caches' counters, to a caller the upstream authenticates (Weaviate's
	// GET /v1/meta with the caller's credentials answers 2xx): the same
	// authentication as Weaviate's own endpoints.
	StatusPath = "/diverse-select/gateway"
	// LivePath answers 200 while the process serves; ReadyPath 200 when the
	// upstream says it is ready, 503 otherwise. Both reveal nothing: probes
	// use them.
	LivePath  = "/diverse-select/live"
	ReadyPath = "/diverse-select/ready"
)

// HTTPHandler passes REST and GraphQL through to the upstream unchanged,
// but for the gateway's own endpoints.
func (g *Gateway) HTTPHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(StatusPath, g.serveStatus)
	mux.HandleFunc(LivePath, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	mux.HandleFunc(ReadyPath, func(w http.ResponseWriter, r *http.Request) {
		code, err := g.upstreamAnswer(r.Context(), "/v1/.well-known/ready", nil)
		if err != nil || code != http.StatusOK {
			code = http.StatusServiceUnavailable
		}
		w.WriteHeader(code)
	})
	mux.Handle(SegmentPath, g.segment)
	g.schemaRoutes(mux) // schema_create.go
	mux.Handle("/", g.http)
	return mux
}

// serveStatus shows the status to a caller the upstream authenticates;
// any other gets the upstream's refusal code and no detail.
func (g *Gateway) serveStatus(w http.ResponseWriter, r *http.Request) {
	hdr := http.Header{}
	if a := r.Header.Get("Authorization"); a != "" {
		hdr.Set("Authorization", a)
	}
	code, err := g.upstreamAnswer(r.Context(), "/v1/meta", hdr)
	switch {
	case err != nil:
		http.Error(w, "the upstream did not answer the authentication", http.StatusServiceUnavailable)
		return
	case code/100 != 2:
		http.Error(w, http.StatusText(code), code)
		return
	}
	g.statusMu.Lock()
	st := map[string]any{"configLoads": g.configLoads, "configError": g.configErr,
		"collections": g.config.Load(), "featureCache": g.engine.CacheStats(), "objectCache": g.objects.stats()}
	g.statusMu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(st)
}

// upstreamAnswer is the status code of GET path on the upstream's REST API
// with the headers hdr, within the schema read's timeout.
func (g *Gateway) upstreamAnswer(ctx context.Context, path string, hdr http.Header) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, g.opts.SchemaTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, g.upstream.JoinPath(path).String(), nil)
	if err != nil {
		return 0, err
	}
	if hdr != nil {
		req.Header = hdr
	}
	resp, err := g.httpc.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	return resp.StatusCode, nil
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
