// Command bench measures what diverse selection adds to a query, end to end,
// against a Weaviate server built by this project (make bench-server).
//
// It starts bin/embedder (hash mode, -dims wide: 768 by default) and bin/weaviate-server
// on free loopback ports, loads its own corpus (chunks made from the demo
// corpus's sentences, embedded by the server), and then times, in one run and
// interleaved round-robin so that machine noise falls on every variant alike:
//
//   - the plain nearText query, limit = the pool (100, 500, 1000, 2000), over
//     GraphQL and over gRPC;
//   - the same query with diverseSelect {candidates = the pool, tokenBudget
//     1500, maxResults 10} with the default strategy, and with every other
//     strategy the server offers (GraphQL; at pools above 500 adagres and
//     mmr only, to bound the run);
//   - the same query with Weaviate's built-in MMR over gRPC (window = the
//     pool, MMR limit 10, balance 0.5);
//   - when the server has reranker-diverse-select (the gRPC route), the
//     default strategy and adagres through the gRPC rerank field;
//   - the same rerank through the gateway (bin/gateway, cmd/gateway) in
//     front of the same server, which answers the gateway's plain searches
//     as a stock Weaviate of its version does;
//   - the plain query with limit 10 (top-k with the output size of the
//     selections) on both protocols.
//
// It reports the median and p95 latency of each, as milliseconds and as
// ratios to the plain query of the same protocol; a summary of the default
// against Weaviate's MMR per pool (with the protocol gap); a PNG plot of
// the medians against the pool size (-plot); and where the server's CPU
// time goes while it answers the default at one pool (-profile-pool, from
// Weaviate's pprof endpoint). With -doc it splices the tables into that
// markdown file and the summary into -readme. Counts and time are bounded
// (-n, -warmup, -timeout, -short); every address is loopback.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/diverse-select/diverse-select/integration/stack"
	"github.com/diverse-select/diverse-select/tools/internal/docblock"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type options struct {
	pools []int
	// gateway: time the gateway in front of the server too.
	gateway bool
	// dims is the hash embedder's vector width.
	dims    int
	n       int
	warmup  int
	docs    int
	timeout time.Duration
	out     string
	doc     string
	logPath string
	only    []string
	// httpURL and grpcAddr select a running server instead of starting one.
	httpURL, grpcAddr string
	// profilingURL is the server's pprof endpoint (empty: no profile).
	profilingURL string
	// loadStart is the machine's load average when the run started.
	loadStart string
	// gatewayProfilingURL is the gateway's pprof endpoint (-gateway).
	gatewayProfilingURL string
	plot                string
	readme              string
	profilePool         int
	profileTime         time.Duration
	// profileProtocol is the default variant profiled: GraphQL or gRPC.
	profileProtocol string
	profileOut      string
}

func parseFlags() (options, error) {
	var o options
	pools := flag.String("pools", "100,500,1000,2000", "candidate pools (query limit = candidates), comma-separated")
	flag.IntVar(&o.n, "n", 150, "timed queries per variant and pool")
	flag.IntVar(&o.warmup, "warmup", 20, "untimed queries per variant and pool first (warms caches and connections)")
	flag.IntVar(&o.docs, "docs", 2000, "objects in the bench corpus")
	flag.IntVar(&o.dims, "dims", defaultDims, "the embedder's vector width (hash mode): 768, or 384 as all-MiniLM-L6-v2's")
	flag.DurationVar(&o.timeout, "timeout", 20*time.Minute, "give up after this long")
	flag.StringVar(&o.out, "out", "", "write the markdown tables to this file (default stdout)")
	flag.StringVar(&o.doc, "doc", "", "splice the tables into this markdown file, between <!-- BEGIN server --> and <!-- END server -->")
	flag.StringVar(&o.logPath, "log", "", "write the servers' output to this file (default discarded)")
	only := flag.String("strategies", "", "strategies to time, comma-separated (default: every strategy the server offers)")
	flag.StringVar(&o.httpURL, "http", "", "use the running server at this loopback URL (with -grpc) instead of starting bin/weaviate-server")
	flag.StringVar(&o.grpcAddr, "grpc", "", "its loopback gRPC address, host:port")
	flag.StringVar(&o.profilingURL, "pprof", "", "with -http: the running server's pprof base URL (GO_PROFILING_PORT)")
	flag.StringVar(&o.plot, "plot", "", "write the plot of median latency against pool size to this PNG file")
	flag.StringVar(&o.readme, "readme", "", "with -doc: splice the summary into this file too, between <!-- BEGIN speed-server --> and <!-- END speed-server -->")
	flag.IntVar(&o.profilePool, "profile-pool", 1000, "profile the server while it answers the default strategy at this pool (0 = no profile)")
	flag.DurationVar(&o.profileTime, "profile-time", 15*time.Second, "how long to profile")
	flag.StringVar(&o.profileOut, "profile-out", "", "also write the raw CPU profile to this file (for go tool pprof)")
	flag.StringVar(&o.profileProtocol, "profile-protocol", "GraphQL", "the variant to profile: the default strategy over GraphQL or gRPC (the rerank route), MMR (Weaviate's, for comparison), or gateway (the gRPC rerank through the gateway; the gateway's own profile is written beside -profile-out)")
	flag.BoolVar(&o.gateway, "gateway", true, "also time bin/gateway in front of the same server (the gRPC rerank through the gateway)")
	short := flag.Bool("short", false, "a quick run: pools 100 and 1000, 30 timed and 5 warm-up queries, no other strategies, a 5 s profile")
	flag.Parse()
	if *short {
		*pools, o.n, o.warmup, o.profileTime = "100,1000", 30, 5, 5*time.Second
		if *only == "" {
			*only = "none"
		}
	}
	for _, p := range strings.Split(*pools, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 {
			return o, fmt.Errorf("-pools: %q is not a positive integer", p)
		}
		o.pools = append(o.pools, n)
	}
	if *only != "" {
		o.only = strings.Split(*only, ",")
	}
	if o.profilePool > 0 && !slices.Contains(o.pools, o.profilePool) {
		o.profilePool = o.pools[len(o.pools)-1]
	}
	if (o.httpURL == "") != (o.grpcAddr == "") {
		return o, fmt.Errorf("-http and -grpc go together")
	}
	if o.n < 1 || o.n > 100000 || o.warmup < 0 || o.docs < 1 || o.docs > 200000 {
		return o, fmt.Errorf("-n must be in [1, 100000], -warmup >= 0, -docs in [1, 200000]")
	}
	for _, p := range o.pools {
		if p > o.docs {
			return o, fmt.Errorf("pool %d is larger than the corpus (-docs %d)", p, o.docs)
		}
	}
	return o, nil
}

// defaultDims is the width whose tables are the docs' main ones (the
// plot, the README's line); another width's go into blocks named with it.
const defaultDims = 768

// widthBlocks name the blocks of the other widths the docs report, by the
// default's block: 384 is all-MiniLM-L6-v2's (Weaviate's transformers image).
var widthBlocks = map[int]map[string]string{
	384: {"server": "server-384", "server-summary": "server-summary-384", "gateway-summary": "gateway-summary-384",
		"server-profile": "server-profile-384"},
}

func run() error {
	o, err := parseFlags()
	if err != nil {
		return err
	}
	o.loadStart = loadAverage()
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	logw := io.Discard
	if o.logPath != "" {
		f, err := os.Create(o.logPath)
		if err != nil {
			return err
		}
		defer f.Close()
		logw = f
	}
	httpURL, grpcAddr := o.httpURL, o.grpcAddr
	if httpURL == "" {
		fmt.Fprintf(os.Stderr, "bench: starting the embedder (hash, %d dims) and Weaviate with the module\n", o.dims)
		s, err := stack.Start(ctx, stack.Options{EmbedderArgs: []string{"-mode", "hash", "-dims", strconv.Itoa(o.dims)}, Log: logw,
			Env: map[string]string{"QUERY_MAXIMUM_RESULTS": "10000", "LOG_LEVEL": "warning",
				"DEBUG_ENDPOINTS_ENABLED":     "true",   // serves pprof, for -profile-pool
				"DIVERSE_SELECT_META_DETAILS": "true"}}) // the feature cache's figures
		if err != nil {
			return err
		}
		defer s.Stop()
		httpURL, grpcAddr = s.HTTPURL, s.GRPCAddr
		o.profilingURL = s.ProfilingURL
	}
	c, err := newClients(httpURL, grpcAddr)
	if err != nil {
		return err
	}
	defer c.close()
	if o.gateway {
		gw, err := startGateway(ctx, httpURL, grpcAddr, logw)
		if err != nil {
			return err
		}
		defer gw.stop()
		c.gw = gw.client()
		o.gatewayProfilingURL = gw.pprofURL
	}
	meta, err := c.meta(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "bench: loading %d objects\n", o.docs)
	if err := c.load(ctx, benchCorpus(o.docs), meta.reranker); err != nil {
		return err
	}
	var tables []table
	for _, pool := range o.pools {
		strategies := meta.strategies
		switch {
		case o.only != nil:
			strategies = slices.DeleteFunc(slices.Clone(o.only), func(s string) bool { return s == "none" })
		case pool > 500:
			strategies = []string{"adagres", "mmr"} // bounds the run: the large pools time the series
		}
		t, err := c.measure(ctx, pool, strategies, meta.reranker, o)
		if err != nil {
			return err
		}
		tables = append(tables, t)
	}
	var prof string
	if o.profilePool > 0 && o.profilingURL != "" {
		if prof, err = c.profileDefault(ctx, o); err != nil {
			return err
		}
	}
	after, err := c.meta(ctx)
	if err != nil {
		return err
	}
	md := report(o, meta, after, tables)
	sum := summary(tables)
	if o.dims != defaultDims {
		sum = strings.Replace(sum, "\n"+plotLink+"\n", "", 1) // the plot is the default width's
	}
	if o.plot != "" && o.dims == defaultDims {
		if err := plotLatency(o.plot, tables); err != nil {
			return err
		}
	}
	switch {
	case o.doc != "":
		// Another width than the default has blocks of its own (server-384,
		// ...), beside the default's; the plot and the README show the default.
		name := func(b string) string { return b }
		if o.dims != defaultDims {
			names, ok := widthBlocks[o.dims]
			if !ok {
				return fmt.Errorf("-doc: the docs have no blocks for -dims %d (only %d and %v): use -out", o.dims, defaultDims, slices.Collect(maps.Keys(widthBlocks)))
			}
			name = func(b string) string { return names[b] }
		}
		blocks := [][2]string{{"server", md}, {"server-summary", sum}}
		if o.gateway {
			blocks = append(blocks, [2]string{"gateway-summary", gatewaySummary(tables)})
		}
		if prof != "" {
			blocks = append(blocks, [2]string{"server-profile", prof})
		}
		for _, b := range blocks {
			if err := docblock.Splice(o.doc, name(b[0]), b[1]); err != nil {
				return err
			}
		}
		if o.readme != "" && o.dims == defaultDims {
			return docblock.Splice(o.readme, "speed-server", readmeSummary(tables))
		}
		return nil
	case o.out != "":
		return os.WriteFile(o.out, []byte(sum+"\n"+gatewaySummary(tables)+"\n"+md+"\n"+prof), 0o644)
	}
	fmt.Print(sum + "\n" + gatewaySummary(tables) + "\n" + md + "\n" + prof)
	return nil
}
