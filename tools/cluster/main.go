// Command cluster starts a local Weaviate cluster with diverse-select (three
// nodes of the server built by make build on 127.0.0.1, one shared local
// embedder), prints each node's endpoints, and stops it all on Ctrl-C.
//
//	make cluster            # or: go run ./tools/cluster -nodes 3 -log cluster.log
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/diverse-select/diverse-select/integration/stack"
)

func main() {
	nodes := flag.Int("nodes", 3, "number of Weaviate nodes")
	logPath := flag.String("log", "", "write the processes' output to this file (default: discarded)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Stdout, *nodes, *logPath); err != nil {
		fmt.Fprintln(os.Stderr, "cluster:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer, nodes int, logPath string) error {
	var log io.Writer = io.Discard
	if logPath != "" {
		f, err := os.Create(logPath)
		if err != nil {
			return err
		}
		defer f.Close()
		log = f
	}
	start := time.Now()
	c, err := stack.StartCluster(ctx, stack.ClusterOptions{Nodes: nodes, Log: log})
	if err != nil {
		return err
	}
	defer c.Stop()
	fmt.Fprintf(w, "%d-node cluster formed in %s (embedder %s)\n", nodes, time.Since(start).Round(100*time.Millisecond), c.EmbedderURL)
	for i, n := range c.Nodes {
		fmt.Fprintf(w, "  %s  HTTP %s  gRPC %s  data %s\n", stack.NodeName(i), n.HTTPURL, n.GRPCAddr, n.DataDir)
	}
	fmt.Fprintln(w, "Create classes with replicationConfig {factor: 3} to replicate them on every node. Ctrl-C stops.")
	<-ctx.Done()
	return nil
}
