// Command load is diverse-select's load and soak check against the real
// server (make load): it starts bin/embedder and bin/weaviate-server on
// loopback, imports a corpus, and sends a fixed number of diverseSelect
// queries from many concurrent clients while other clients import new
// objects and re-put the queried ones. It asserts:
//
//   - zero errors;
//   - zero wrong selections: every answer equals the selection the selectors
//     library computes offline on the same candidates (fetched before the
//     run with a plain query: ids, distances, vectors and texts);
//   - no goroutine growth: the server's goroutine count (pprof on
//     GO_PROFILING_PORT) after the run and a settle period is within a
//     tolerance of the count before it;
//   - memory back near its baseline: heap in use after a forced GC
//     (/debug/pprof/heap?gc=1) within a tolerance of the baseline.
//
// How the answers stay exact while writes happen: new objects go into
// another class (LoadWrites), which no query reads; the queried objects are
// re-put with identical properties and vectors. Weaviate then keeps their
// doc ids and leaves the vector index alone, but their update time
// advances, so the module's feature cache sees new keys and counts their
// tokens again - the write path and the cache invalidation are exercised,
// the candidates and their features are not changed. LoadWrites is deleted
// before the memory is measured (its data is the user's, not the module's).
//
// With -gateway the same load goes through the gateway (cmd/gateway) in
// front of stock Weaviate: the queries as gRPC searches whose rerank
// property carries the settings (the helpers' form, the rerank route's pool
// = the query limit), the writes through its REST pass-through; the
// answers are checked against the library's as before.
//
// Bounded in count (-requests) and time (-timeout); loopback only.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/diverse-select/diverse-select/integration/stack"
)

func main() {
	o := options{}
	flag.IntVar(&o.requests, "requests", 20000, "diverseSelect queries sent in total")
	flag.IntVar(&o.concurrency, "concurrency", 64, "concurrent query clients")
	flag.IntVar(&o.docs, "docs", 400, "objects in the queried class (at least the shape's pool)")
	flag.StringVar(&o.shape, "shape", "mixed", "what is queried: mixed (8 strategy/form shapes, 64-d, pool 40) or large "+
		"(the default strategy over 2000 candidates of 768 dimensions: the memory case)")
	flag.StringVar(&o.server, "server", "weaviate-server", "server binary in bin/ (e.g. a copy built from another commit, to compare)")
	flag.IntVar(&o.writers, "writers", 2, "concurrent importers (new objects) and as many re-putters (queried objects)")
	flag.DurationVar(&o.timeout, "timeout", 15*time.Minute, "bound on the whole run")
	flag.DurationVar(&o.settle, "settle", 10*time.Second, "wait after the run before goroutines and heap are measured")
	flag.BoolVar(&o.gateway, "gateway", false, "query through the gateway (bin/gateway) in front of stock Weaviate "+
		"(bin/weaviate-server-stock): gRPC searches with the settings in the rerank property, writes through its REST pass-through")
	flag.BoolVar(&o.cold, "cold", false, "no quiet pass before the load: its first queries meet a cold feature cache, right after the import")
	flag.IntVar(&o.goroutineSlack, "goroutine-slack", 30, "goroutines allowed above the baseline after the run")
	flag.Float64Var(&o.heapSlackMiB, "heap-slack-mib", 64, "heap in use (MiB) allowed above the baseline after the run")
	flag.StringVar(&o.logPath, "log", ".bench/load-server.log", "server log file")
	flag.StringVar(&o.out, "out", ".bench/load.txt", "summary file (also printed)")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

type options struct {
	requests, concurrency, docs, writers int
	timeout, settle                      time.Duration
	cold, gateway                        bool
	goroutineSlack                       int
	heapSlackMiB                         float64
	logPath, out, shape, server          string
}

func run(o options) error {
	if o.concurrency < 1 || o.requests < o.concurrency {
		return fmt.Errorf("-requests %d must be at least -concurrency %d (>= 1)", o.requests, o.concurrency)
	}
	sh, ok := shapes[o.shape]
	if !ok {
		return fmt.Errorf("-shape %q: allowed mixed, large", o.shape)
	}
	o.docs = max(o.docs, sh.pool)
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	if err := os.MkdirAll(filepath.Dir(o.logPath), 0o755); err != nil {
		return err
	}
	logFile, err := os.Create(o.logPath)
	if err != nil {
		return err
	}
	defer logFile.Close()
	// DEBUG_ENDPOINTS_ENABLED opens the pprof handlers on GO_PROFILING_PORT.
	env := map[string]string{"DEBUG_ENDPOINTS_ENABLED": "true"}
	if o.gateway {
		if o.server == "weaviate-server" {
			o.server = "weaviate-server-stock"
		}
		env["ENABLE_MODULES"] = "text2vec-transformers"
	}
	s, err := stack.Start(ctx, stack.Options{Log: logFile, Server: o.server, Env: env})
	if err != nil {
		return fmt.Errorf("start the stack: %w (log: %s)", err, o.logPath)
	}
	defer s.Stop()
	var gw *stack.Gateway
	if o.gateway {
		if gw, err = stack.StartGateway(ctx, stack.GatewayOptions{UpstreamGRPC: s.GRPCAddr, UpstreamHTTP: s.HTTPURL, Log: logFile}); err != nil {
			return fmt.Errorf("start the gateway: %w (log: %s)", err, o.logPath)
		}
		defer gw.Stop()
	}
	l, err := newLoad(s, gw, o)
	if err != nil {
		return err
	}
	sum, err := l.run(ctx)
	if err != nil {
		return err
	}
	if !s.Alive() {
		return fmt.Errorf("the server exited (log: %s)", o.logPath)
	}
	if gw != nil && !gw.Alive() {
		return fmt.Errorf("the gateway exited (log: %s)", o.logPath)
	}
	text := sum.String()
	fmt.Print(text)
	if o.out != "" {
		_ = os.WriteFile(o.out, []byte(text), 0o644)
	}
	err = sum.verdict(o)
	if err != nil && len(l.dumps) == 2 {
		for i, name := range []string{"before", "after"} {
			path := filepath.Join(filepath.Dir(o.out), "load-goroutines-"+name+".txt")
			if os.WriteFile(path, []byte(l.dumps[i]), 0o644) == nil {
				fmt.Fprintln(os.Stderr, "load: goroutine profile", name, "the run:", path)
			}
		}
	}
	return err
}
