// Command demo is `make run`: it starts the local embedder and Weaviate with
// diverse-select on 127.0.0.1, imports the demo corpus (hand-written chunks
// with planted near-duplicates and paraphrases), and prints, for each demo
// query, plain top-k next to diverse selection under the same token budget,
// and what an LLM would receive from each through Weaviate's generate
// (generative-dummy echoes the prompt).
// It then keeps both servers running for your own queries until Ctrl-C.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate/entities/models"

	"github.com/diverse-select/diverse-select/integration/stack"
	"github.com/diverse-select/diverse-select/internal/corpus"
)

// Class is the demo collection.
const Class = "DemoChunk"

func main() {
	var (
		embedder   = flag.String("embedder", "auto", "the embedder's mode: neural (all-MiniLM-L6-v2 from -python), glove (-glove-dir), hash, or auto: neural when -python exists, else glove when -glove-dir holds GloVe, else hash")
		python     = flag.String("python", ".venv/bin/python", "the Python of the neural mode (made by `make venv`)")
		gloveDir   = flag.String("glove-dir", "", "GloVe folder (words.txt + vectors.f16) for the embedder's glove mode")
		dataDir    = flag.String("data", ".data/run", "Weaviate data folder (the embedder and Weaviate logs go to logs.txt beside it)")
		host       = flag.String("host", "127.0.0.1", "the address Weaviate's HTTP port binds (0.0.0.0: every interface); the other listeners stay on 127.0.0.1")
		httpPort   = flag.Int("http-port", 8080, "Weaviate HTTP port on 127.0.0.1")
		grpcPort   = flag.Int("grpc-port", 50051, "Weaviate gRPC port on 127.0.0.1")
		embedPort  = flag.Int("embedder-port", 8090, "embedder port on 127.0.0.1")
		budget     = flag.Int("budget", 600, "token budget of both selections")
		candidates = flag.Int("candidates", 40, "candidate pool of diverse selection")
		strategy   = flag.String("strategy", "", "diverse-select strategy (default: the module's default)")
		exit       = flag.Bool("exit", false, "stop after printing instead of waiting for Ctrl-C")
		gateway    = flag.Bool("gateway", false, "run stock Weaviate (make weaviate-stock) with the gateway in front of it on the HTTP and gRPC ports, and select through the gateway over gRPC (make run-gateway)")
		segment    = flag.String("segment", "", "import the corpus through the module's segment endpoint with this method (sage, percentile, packed, fixed): each demo chunk is cut again, each piece one object; sage and percentile need the glove or neural embedder (the encoder of a trained scorer)")
		segTokens  = flag.Int("segment-max-tokens", 64, "with -segment: the longest chunk")
		readme     = flag.String("readme", "", "write the comparison whose top-k holds the most near-copies into this file's demo block (make demo-readme)")
		frameworks = flag.String("frameworks", "", "instead of the comparison, run each demo query through LangChain, LlamaIndex and Haystack (frameworks.py, with -python) and write the side-by-side into this file's frameworks block (make frameworks)")
	)
	flag.Parse()
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	opts := options{embedder: *embedder, python: *python, gloveDir: *gloveDir, dataDir: *dataDir, host: *host, httpPort: *httpPort, grpcPort: *grpcPort, embedPort: *embedPort,
		budget: *budget, candidates: *candidates, strategy: *strategy, exit: *exit, readme: *readme, frameworks: *frameworks, gateway: *gateway,
		segment: *segment, segmentMaxTokens: *segTokens}
	if err := run(ctx, os.Stdout, opts); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

// embedderMode picks the embedder's flags and describes them: -embedder,
// where auto takes the best the machine has.
func embedderMode(o options) ([]string, string, error) {
	hasGloVe := o.gloveDir != ""
	if hasGloVe {
		_, err := os.Stat(filepath.Join(o.gloveDir, "words.txt"))
		hasGloVe = err == nil
	}
	python, err := filepath.Abs(o.python)
	if err != nil {
		return nil, "", err
	}
	st, err := os.Stat(python)
	hasPython := o.python != "" && err == nil && !st.IsDir()
	mode := o.embedder
	if mode == "auto" || mode == "" {
		switch {
		case hasPython:
			mode = "neural"
		case hasGloVe:
			mode = "glove"
		default:
			mode = "hash"
		}
	}
	switch mode {
	case "neural":
		if !hasPython {
			return nil, "", fmt.Errorf("-embedder neural: no Python at %s (run `make venv`)", python)
		}
		return []string{"-mode", "neural", "-python", python}, "neural (all-MiniLM-L6-v2 sentence vectors)", nil
	case "glove":
		if !hasGloVe {
			return nil, "", fmt.Errorf("-embedder glove: no GloVe files in -glove-dir %q", o.gloveDir)
		}
		return []string{"-mode", "glove", "-glove-dir", o.gloveDir}, "glove (SIF-weighted GloVe 100d from " + o.gloveDir + ")", nil
	case "hash":
		return []string{"-mode", "hash"}, "hash (feature hashing: near-copies, not meaning)", nil
	}
	return nil, "", fmt.Errorf("-embedder %q: unknown mode (allowed: auto, neural, glove, hash)", o.embedder)
}

// options are the demo's flags.
type options struct {
	embedder, python              string
	gloveDir, dataDir, strategy   string
	host                          string // Weaviate's HTTP listener ("" = 127.0.0.1)
	readme                        string // file whose demo block gets the first query's comparison
	frameworks                    string // file whose frameworks block gets the side-by-side ("" = none)
	segment                       string // import through the segment endpoint with this method ("" = as written)
	segmentMaxTokens              int
	httpPort, grpcPort, embedPort int
	budget, candidates            int
	exit                          bool
	// ready, when set, is called with the running stack after the queries
	// (TestDemo reads its listeners there).
	ready func(*servers) error
	// gateway runs stock Weaviate with the gateway in front (make run-gateway)
	gateway bool
}

func run(ctx context.Context, w io.Writer, o options) error {
	dataDir, budget, candidates, strategy := o.dataDir, o.budget, o.candidates, o.strategy
	embedArgs, mode, err := embedderMode(o)
	if err != nil {
		return err
	}
	// The embedder is the segment endpoint's encoder, under the name of the
	// scorer trained for its model.
	// Go's profiling listener binds every interface (Weaviate has no address
	// for it): off, so that the demo listens on loopback only.
	env := map[string]string{"GO_PROFILING_DISABLE": "true"}
	if enc := segmentEncoders[embedArgs[1]]; enc != "" {
		env["DIVERSE_SELECT_SEGMENT_ENCODERS"] = fmt.Sprintf("%s=http://127.0.0.1:%d", enc, o.embedPort)
	}
	absData, err := filepath.Abs(dataDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(absData, 0o755); err != nil {
		return err
	}
	logPath := filepath.Join(filepath.Dir(absData), "logs.txt")
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logFile.Close()
	sopts := stack.Options{DataDir: absData, EmbedderArgs: embedArgs, Log: logFile, Host: o.host, EmbedderPort: o.embedPort, Env: env}
	var srv *servers
	if o.gateway {
		fmt.Fprintf(w, "starting the embedder (%s), stock Weaviate and the gateway in front of it; logs in %s\n", mode, logPath)
		srv, err = startGateway(ctx, sopts, o.httpPort, o.grpcPort, logFile)
	} else {
		fmt.Fprintf(w, "starting the embedder (%s) and Weaviate with diverse-select; logs in %s\n", mode, logPath)
		sopts.HTTPPort, sopts.GRPCPort = o.httpPort, o.grpcPort
		var up *stack.Stack
		if up, err = stack.Start(ctx, sopts); err == nil {
			srv = &servers{up: up, httpURL: up.HTTPURL, grpc: up.GRPCAddr, sel: graphqlSelector(up.HTTPURL)}
		}
	}
	if err != nil {
		return err
	}
	defer func() {
		fmt.Fprintln(w, "stopping the servers")
		srv.stop()
	}()
	if srv.gw != nil {
		fmt.Fprintf(w, "gateway   HTTP %s   gRPC %s   (stock Weaviate behind it: HTTP %s, gRPC %s; embedder %s)\n\n",
			srv.httpURL, srv.grpc, srv.up.HTTPURL, srv.up.GRPCAddr, srv.up.EmbedderURL)
	} else {
		fmt.Fprintf(w, "Weaviate  HTTP %s   gRPC %s   embedder %s\n\n", srv.httpURL, srv.grpc, srv.up.EmbedderURL)
	}

	client, err := weaviate.NewClient(weaviate.Config{Host: strings.TrimPrefix(srv.httpURL, "http://"), Scheme: "http"})
	if err != nil {
		return err
	}
	chunks := corpus.Chunks()
	if o.segment != "" {
		if chunks, err = segmentCorpus(ctx, w, srv.httpURL, chunks, o.segment, o.segmentMaxTokens); err != nil {
			return err
		}
	}
	if err := importCorpus(ctx, w, client, budget, chunks); err != nil {
		return err
	}
	if o.frameworks != "" {
		return sideBySide(ctx, w, srv.up, o, mode)
	}
	var shown []shownQuery
	for _, q := range corpus.Queries() {
		var b strings.Builder
		p, err := compare(ctx, srv.sel, io.MultiWriter(w, &b), q, budget, candidates, strategy)
		if err != nil {
			return err
		}
		shown = append(shown, shownQuery{text: b.String(), pair: p})
	}
	fmt.Fprintf(w, "%s\n%s\n\n", legend, overall(shown))
	if o.readme != "" {
		if err := spliceDemo(o.readme, readmeBlock(shown)); err != nil {
			return err
		}
		fmt.Fprintf(w, "(the query of median facet gain and the summary written into %s)\n\n", o.readme)
	}
	if srv.gw != nil {
		fmt.Fprintf(w, "Try your own queries: the README's programs (HTTP_PORT=%d GRPC_PORT=%d), or the helpers on class %s\n",
			o.httpPort, o.grpcPort, Class)
	} else {
		fmt.Fprintf(w, "Try your own queries: GraphQL at %s/v1/graphql (class %s), for example\n%s\n",
			srv.httpURL, Class, exampleQuery(budget, candidates))
	}
	if o.ready != nil {
		if err := o.ready(srv); err != nil {
			return err
		}
	}
	if o.exit {
		return nil
	}
	fmt.Fprintln(w, "\nPress Ctrl-C to stop.")
	<-ctx.Done()
	return nil
}

// selectionDefaults are the demo collection's selection settings.
func selectionDefaults(budget int) map[string]any {
	return map[string]any{
		"textProperty": "body", "extraTextProperties": []string{"title"},
		"sourceProperty": "source", "tokenBudget": budget,
	}
}

// importCorpus (re)creates the demo class with the module's selection
// defaults and imports every chunk. The create is the same on Weaviate with
// the module and through the gateway, which keeps the module's entries in
// the collection's schema and sends stock Weaviate the rest.
func importCorpus(ctx context.Context, w io.Writer, client *weaviate.Client, budget int, chunks []corpus.Chunk) error {
	_ = client.Schema().ClassDeleter().WithClassName(Class).Do(ctx)
	skip := map[string]any{"text2vec-transformers": map[string]any{"skip": true}}
	moduleConfig := map[string]any{
		"text2vec-transformers": map[string]any{"vectorizeClassName": false},
		// generate's answer shows what an LLM would receive (the prompt, echoed)
		"generative-dummy": map[string]any{},
		"diverse-select":   selectionDefaults(budget),
		// the same defaults for the clients' rerank route, so that the
		// helpers' queries (docs/clients.md) work on the demo's collection
		"reranker-diverse-select": selectionDefaults(budget),
	}
	class := &models.Class{
		Class:        Class,
		Vectorizer:   "text2vec-transformers",
		ModuleConfig: moduleConfig,
		Properties: []*models.Property{
			{Name: "title", DataType: []string{"text"}},
			{Name: "body", DataType: []string{"text"}},
			{Name: "source", DataType: []string{"text"}, ModuleConfig: skip},
			{Name: "facet", DataType: []string{"text"}, ModuleConfig: skip},
			{Name: "dupGroup", DataType: []string{"text"}, ModuleConfig: skip},
			{Name: "chunkId", DataType: []string{"text"}, ModuleConfig: skip},
		},
	}
	if err := client.Schema().ClassCreator().WithClass(class).Do(ctx); err != nil {
		return fmt.Errorf("create class %s: %w", Class, err)
	}
	objs := make([]*models.Object, len(chunks))
	for i, c := range chunks {
		objs[i] = &models.Object{Class: Class, Properties: map[string]any{
			"title": c.Title, "body": c.Body, "source": c.Source, "facet": c.Facet, "dupGroup": c.DupGroup, "chunkId": c.ID,
		}}
	}
	start := time.Now()
	resp, err := client.Batch().ObjectsBatcher().WithObjects(objs...).Do(ctx)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	if err := stack.BatchError(resp); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	fmt.Fprintf(w, "imported %d demo chunks in %s\n\n", len(objs), time.Since(start).Round(time.Millisecond))
	return nil
}

func exampleQuery(budget, candidates int) string {
	return fmt.Sprintf(`{ Get { %s(nearText: {concepts: ["how do I keep solar panels working"]}, limit: 8,
    diverseSelect: {tokenBudget: %d, candidates: %d}) {
    title _additional { diverseSelect { rank gain tokens } } } } }`, Class, budget, candidates)
}
