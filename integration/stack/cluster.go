package stack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ClusterOptions configures a local Weaviate cluster.
type ClusterOptions struct {
	// Nodes is the number of Weaviate nodes (default 3).
	Nodes int
	// BinDir, EmbedderArgs, Log and ReadyTimeout are as in Options.
	BinDir       string
	EmbedderArgs []string
	Log          io.Writer
	ReadyTimeout time.Duration
	// Env adds or overrides every node's Weaviate environment variables.
	Env map[string]string
}

// Cluster is a running Weaviate cluster on 127.0.0.1: Nodes[i] is node
// "node<i+1>", all sharing one embedder.
type Cluster struct {
	Nodes       []*Stack
	EmbedderURL string
	embedder    *Stack
}

// portsPerNode: HTTP, gRPC, gossip, data, raft, raft internal RPC, profiling.
const portsPerNode = 7

// StartCluster starts one embedder and opts.Nodes Weaviate nodes that form
// one cluster (memberlist gossip joined through node1, raft bootstrapped
// when all nodes are up), and waits until every node is ready and sees
// every other node as healthy.
//
// The ports are one block of consecutive free ports, 7 per node: on one
// host Weaviate finds a peer's raft internal RPC port as its raft port + 1
// (cluster/resolver) and a peer's raft port from RAFT_JOIN's node:port list.
func StartCluster(ctx context.Context, o ClusterOptions) (*Cluster, error) {
	if o.Nodes == 0 {
		o.Nodes = 3
	}
	if o.BinDir == "" {
		root, err := RepoRoot()
		if err != nil {
			return nil, err
		}
		o.BinDir = filepath.Join(root, "bin")
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.ReadyTimeout == 0 {
		o.ReadyTimeout = 3 * time.Minute
	}
	c := &Cluster{}
	var err error
	if c.embedder, err = StartEmbedder(ctx, Options{BinDir: o.BinDir, EmbedderArgs: o.EmbedderArgs, Log: o.Log,
		ReadyTimeout: o.ReadyTimeout}); err != nil {
		return nil, err
	}
	c.EmbedderURL = c.embedder.EmbedderURL

	// A port taken between the check and the bind (by another program)
	// stops a node: start again on other ports.
	for attempt := 1; attempt <= 3; attempt++ {
		if err = c.startNodes(ctx, o); err == nil || ctx.Err() != nil {
			break
		}
		fmt.Fprintf(o.Log, "cluster: attempt %d failed: %v\n", attempt, err)
	}
	if err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// startNodes starts every node on a fresh block of ports and waits until
// the cluster formed; on failure it stops the nodes it started.
func (c *Cluster) startNodes(ctx context.Context, o ClusterOptions) error {
	base, err := FreePortBlock(portsPerNode * o.Nodes)
	if err != nil {
		return err
	}
	port := func(node, k int) int { return base + node*portsPerNode + k }
	raftJoin := make([]string, o.Nodes)
	for i := range raftJoin {
		raftJoin[i] = fmt.Sprintf("%s:%d", NodeName(i), port(i, 4))
	}
	// The first node to fail stops the others' wait for readiness.
	nodesCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	c.Nodes = make([]*Stack, o.Nodes)
	errs := make([]error, o.Nodes)
	var wg sync.WaitGroup
	for i := range c.Nodes {
		env := map[string]string{
			"CLUSTER_HOSTNAME":         NodeName(i),
			"CLUSTER_IN_LOCALHOST":     "true",
			"CLUSTER_GOSSIP_BIND_PORT": strconv.Itoa(port(i, 2)),
			"CLUSTER_DATA_BIND_PORT":   strconv.Itoa(port(i, 3)),
			"RAFT_PORT":                strconv.Itoa(port(i, 4)),
			"RAFT_INTERNAL_RPC_PORT":   strconv.Itoa(port(i, 5)),
			"GO_PROFILING_PORT":        strconv.Itoa(port(i, 6)),
			"RAFT_JOIN":                strings.Join(raftJoin, ","),
			"RAFT_BOOTSTRAP_EXPECT":    strconv.Itoa(o.Nodes),
		}
		if i > 0 {
			env["CLUSTER_JOIN"] = fmt.Sprintf("127.0.0.1:%d", port(0, 2))
		}
		for k, v := range o.Env {
			env[k] = v
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Every node is started at once: none is ready before the
			// raft cluster has bootstrapped with all of them.
			c.Nodes[i], errs[i] = Start(nodesCtx, Options{BinDir: o.BinDir, EmbedderURL: c.EmbedderURL, Env: env,
				HTTPPort: port(i, 0), GRPCPort: port(i, 1), ReadyTimeout: o.ReadyTimeout,
				Log: nodeLog(o.Log, NodeName(i))})
			if errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	err = errors.Join(errs...)
	if err == nil {
		err = c.WaitFormed(ctx, o.ReadyTimeout)
	}
	if err != nil {
		c.stopNodes()
		c.Nodes = nil
	}
	return err
}

// NodeName is the CLUSTER_HOSTNAME of node i (from 0): node1, node2, ...
func NodeName(i int) string { return "node" + strconv.Itoa(i+1) }

// nodeLog tells the nodes' log lines apart.
func nodeLog(w io.Writer, name string) io.Writer {
	if w == io.Discard {
		return w
	}
	return prefixed(w, name+" ")
}

// WaitFormed waits until every node lists every node as HEALTHY (after a
// start, or a node's Restart).
func (c *Cluster) WaitFormed(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		last = nil
		for _, n := range c.Nodes {
			nodes, err := Nodes(ctx, n.HTTPURL, "")
			if err == nil && healthy(nodes) != len(c.Nodes) {
				err = fmt.Errorf("%d of %d nodes healthy", healthy(nodes), len(c.Nodes))
			}
			if err != nil {
				last = fmt.Errorf("%s: %w", n.HTTPURL, err)
				break
			}
		}
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return fmt.Errorf("cluster not formed after %s: %v", timeout, last)
}

func healthy(nodes []NodeStatus) int {
	n := 0
	for _, s := range nodes {
		if s.Status == "HEALTHY" {
			n++
		}
	}
	return n
}

// NodeStatus is one entry of Weaviate's /v1/nodes reply.
type NodeStatus struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Shards []struct {
		Name        string `json:"name"`
		Class       string `json:"class"`
		ObjectCount int64  `json:"objectCount"`
		// VectorQueueLength: vectors waiting for the index (ASYNC_INDEXING).
		VectorQueueLength int64 `json:"vectorQueueLength"`
	} `json:"shards"`
}

// Nodes reads baseURL/v1/nodes, verbose (with shards) for class when class
// is not empty.
func Nodes(ctx context.Context, baseURL, class string) ([]NodeStatus, error) {
	url := baseURL + "/v1/nodes"
	if class != "" {
		url += "/" + class + "?output=verbose"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: HTTP %d", url, resp.StatusCode)
	}
	var reply struct {
		Nodes []NodeStatus `json:"nodes"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&reply); err != nil {
		return nil, err
	}
	return reply.Nodes, nil
}

// Stop stops every node, then the embedder; it may be called after
// stopping single nodes.
func (c *Cluster) Stop() {
	c.stopNodes()
	if c.embedder != nil {
		c.embedder.Stop()
	}
}

func (c *Cluster) stopNodes() {
	var wg sync.WaitGroup
	for _, n := range c.Nodes {
		if n != nil {
			wg.Add(1)
			go func() { defer wg.Done(); n.Stop() }()
		}
	}
	wg.Wait()
}
