// Command gateway runs diverse-select in front of a stock Weaviate (any
// version with the gRPC API, Weaviate Cloud included): the official
// clients connect to it as to Weaviate, a gRPC search that asks for a
// selection gets the module's selection, every other call passes through.
//
//	gateway --upstream-grpc weaviate:50051 --upstream-http http://weaviate:8080 \
//	        --config gateway.yaml --grpc :50051 --http :8080
//
// SIGHUP reloads the config file (it is also reloaded when it changes).
// docs/gateway.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	_ "net/http/pprof" // --pprof
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/diverse-select/diverse-select/gateway"
	_ "github.com/diverse-select/diverse-select/selectors/all" // every built-in strategy
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gateway:", err)
		os.Exit(1)
	}
}

func run() error {
	var o gateway.Options
	grpcAddr := flag.String("grpc", ":50051", "gRPC listen address")
	httpAddr := flag.String("http", ":8080", "HTTP listen address (REST and GraphQL, passed through)")
	flag.StringVar(&o.UpstreamGRPC, "upstream-grpc", "", "upstream Weaviate's gRPC address, host:port")
	flag.StringVar(&o.UpstreamHTTP, "upstream-http", "", "upstream Weaviate's REST base URL, http://host:port or https://host")
	flag.BoolVar(&o.UpstreamTLS, "upstream-tls", false, "gRPC to the upstream over TLS (Weaviate Cloud)")
	flag.StringVar(&o.UpstreamCA, "upstream-ca", "", "PEM file of the CAs the upstream's TLS certificate is checked against (default: the system's)")
	flag.StringVar(&o.TLSCert, "tls-cert", "", "PEM certificate: the gateway's own gRPC and HTTP listeners serve TLS (with --tls-key; default plain)")
	flag.StringVar(&o.TLSKey, "tls-key", "", "PEM private key of --tls-cert")
	flag.StringVar(&o.ConfigPath, "config", "", "file of per-collection defaults (YAML or JSON; reloaded when it changes)")
	flag.IntVar(&o.QueryDefaultsLimit, "query-defaults-limit", 10, "the upstream's QUERY_DEFAULTS_LIMIT: the limit of a search that gives none")
	flag.DurationVar(&o.UpstreamTimeout, "upstream-timeout", time.Minute, "bound on each upstream call of a selecting search when the caller sets no shorter deadline")
	flag.IntVar(&o.MaxMessageBytes, "grpc-max-message-size", gateway.DefaultMaxMessageBytes,
		"largest gRPC message either way, in bytes: the upstream's GRPC_MAX_MESSAGE_SIZE (default Weaviate's)")
	flag.DurationVar(&o.SchemaTimeout, "schema-timeout", 2*time.Second,
		"bound on a collection's schema read; a known schema is served meanwhile, an unknown one is Unavailable after it")
	objectMB := flag.Int64("object-cache-mb", 64, "memory for the objects read by id, kept by id and update time (0: off)")
	pprofAddr := flag.String("pprof", "", "serve Go's pprof handlers on this address (e.g. 127.0.0.1:6060; default: off)")
	flag.Parse()
	o.ObjectCacheBytes = *objectMB << 20
	if *objectMB == 0 {
		o.ObjectCacheBytes = -1
	}
	logger := logrus.New()
	logger.SetFormatter(&logrus.JSONFormatter{})
	o.Logger = logger
	g, err := gateway.New(o)
	if err != nil {
		return err
	}
	defer g.Close()
	gl, err := net.Listen("tcp", *grpcAddr)
	if err != nil {
		return err
	}
	hl, err := net.Listen("tcp", *httpAddr)
	if err != nil {
		return err
	}
	if *pprofAddr != "" {
		pl, err := net.Listen("tcp", *pprofAddr)
		if err != nil {
			return err
		}
		go func() { _ = http.Serve(pl, nil) }() // net/http/pprof's handlers on the default mux
	}
	gs, err := g.GRPCServer()
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: g.HTTPHandler(), ReadHeaderTimeout: 30 * time.Second}
	errc := make(chan error, 2)
	go func() { errc <- gs.Serve(gl) }()
	go func() {
		if o.TLSCert != "" {
			errc <- hs.ServeTLS(hl, o.TLSCert, o.TLSKey)
			return
		}
		errc <- hs.Serve(hl)
	}()
	logger.WithFields(logrus.Fields{"grpc": gl.Addr().String(), "http": hl.Addr().String(),
		"upstreamGRPC": o.UpstreamGRPC, "upstreamHTTP": o.UpstreamHTTP}).Info("gateway: ready")
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM)
	for {
		select {
		case err := <-errc:
			return err
		case s := <-sig:
			if s == syscall.SIGHUP {
				_ = g.Reload()
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			gs.GracefulStop()
			if err := hs.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		}
	}
}
