// Command embedder is a local embedding server that speaks the inference
// protocol of Weaviate's text2vec-transformers module, so an unmodified
// Weaviate started with
//
//	ENABLE_MODULES=text2vec-transformers
//	TRANSFORMERS_INFERENCE_API=http://127.0.0.1:8090
//
// vectorizes objects and nearText queries with it, without a GPU, a Python
// container or a model download. The embeddings come from package embed:
// "hash" (feature hashing, no data files), "glove" (SIF-weighted GloVe
// vectors from -glove-dir) or "neural" (all-MiniLM-L6-v2, run by the Python
// interpreter -python of the project's virtual environment, `make venv`).
//
// Usage:
//
//	embedder [-addr 127.0.0.1:8090] [-mode hash|glove|neural] [-dims 256] [-glove-dir DIR] [-python .venv/bin/python]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/diverse-select/diverse-select/cmd/embedder/embed"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := log.New(os.Stderr, "embedder: ", log.LstdFlags)
	if err := run(ctx, os.Args[1:], logger, nil); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		logger.Fatal(err)
	}
}

// config holds the parsed flags.
type config struct {
	addr, mode, gloveDir string
	python               string
	dims                 int
	dimsSet              bool
}

func parseFlags(args []string, output io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("embedder", flag.ContinueOnError)
	fs.SetOutput(output)
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8090", "host:port to listen on (port 0 picks a free port)")
	fs.StringVar(&c.mode, "mode", embed.ModeHash, "embedding mode: hash, glove or neural")
	fs.IntVar(&c.dims, "dims", embed.DefaultHashDims, "vector length in hash mode (glove mode takes it from the files)")
	fs.StringVar(&c.gloveDir, "glove-dir", "", "directory with words.txt and vectors.f16 (glove mode)")
	fs.StringVar(&c.python, "python", ".venv/bin/python", "the Python interpreter with the model's packages (neural mode; `make venv`)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	fs.Visit(func(f *flag.Flag) { c.dimsSet = c.dimsSet || f.Name == "dims" })
	return c, nil
}

// run serves until ctx is cancelled, then shuts down gracefully. ready,
// if not nil, is called with the bound address once the server accepts
// connections; tests use it with -addr 127.0.0.1:0.
func run(ctx context.Context, args []string, logger *log.Logger, ready func(addr string)) error {
	c, err := parseFlags(args, os.Stderr)
	if err != nil {
		return err
	}
	start := time.Now()
	var e embed.Embedder
	if c.mode == embed.ModeNeural {
		n, err := embed.StartNeural(c.python, os.Stderr)
		if err != nil {
			return err
		}
		defer n.Close()
		e = n
	} else if e, err = embed.New(c.mode, c.dims, c.gloveDir); err != nil {
		return err
	}
	// In glove and neural modes the dimension is fixed by the model; an explicit,
	// different -dims is a mistake worth reporting rather than ignoring.
	if c.dimsSet && e.Dims() != c.dims {
		return fmt.Errorf("-dims %d does not match the %d-dimensional vectors in %s", c.dims, e.Dims(), c.gloveDir)
	}
	logger.Printf("mode=%s dims=%d loaded in %v", e.Mode(), e.Dims(), time.Since(start).Round(time.Millisecond))

	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           embed.NewHandler(e),
		ReadHeaderTimeout: 10 * time.Second,
	}
	logger.Printf("listening on http://%s", ln.Addr())
	if ready != nil {
		ready(ln.Addr().String())
	}

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	logger.Printf("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
