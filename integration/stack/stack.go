// Package stack starts the real processes diverse-select runs with - the local
// embedding server and the Weaviate server built by `make build` - on
// 127.0.0.1, waits until they are ready, and stops them cleanly. The demo
// (make run), the integration tests and the bench command all use it, so
// they exercise the same set-up a user runs.
package stack

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Options configures a stack. Zero ports are chosen free at start.
type Options struct {
	// BinDir holds weaviate-server and embedder (default: <repo>/bin).
	BinDir string
	// Server is the server binary's name in BinDir (default weaviate-server;
	// weaviate-server-faults for the fault-injection build).
	Server string
	// DataDir is the Weaviate persistence folder (created; default: a temp folder).
	DataDir string
	// EmbedderArgs are extra embedder flags, e.g. -mode glove -glove-dir DIR.
	EmbedderArgs []string
	// Env adds or overrides Weaviate environment variables.
	Env map[string]string
	// HTTPPort, GRPCPort and EmbedderPort; 0 = a free port.
	HTTPPort, GRPCPort, EmbedderPort int
	// Host is the address Weaviate's HTTP listener binds (default
	// 127.0.0.1; 0.0.0.0 opens it to the network). gRPC and the cluster's
	// listeners bind 127.0.0.1 whatever it is (GRPC_BIND_ADDR,
	// CLUSTER_BIND_ADDR).
	Host string
	// Log receives both processes' output (default: discarded).
	Log io.Writer
	// ReadyTimeout bounds the wait for readiness (default 2 minutes).
	ReadyTimeout time.Duration
	// EmbedderURL, when set, is a running embedder to use instead of
	// starting one (cluster nodes share one).
	EmbedderURL string
	// Metrics turns on Weaviate's Prometheus endpoint on a free port
	// (Stack.MetricsURL).
	Metrics bool
	// Reranker enables Weaviate's reranker-transformers module, pointed at a
	// RerankServer the stack starts (Stack.Reranker).
	Reranker bool
}

// Stack is a running embedder + Weaviate pair.
type Stack struct {
	HTTPURL     string // http://127.0.0.1:PORT
	GRPCAddr    string // 127.0.0.1:PORT
	EmbedderURL string
	MetricsURL  string // http://127.0.0.1:PORT/metrics when Options.Metrics
	HTTPPort    int
	GRPCPort    int
	// ClusterDataPort is the cluster API's (CLUSTER_DATA_BIND_PORT).
	ClusterDataPort int
	// ProfilingURL serves Weaviate's pprof handlers (GO_PROFILING_PORT).
	ProfilingURL string
	DataDir      string
	// Reranker is the reranker-transformers service (Options.Reranker).
	Reranker    *RerankServer
	embedder    *proc
	weaviate    *proc
	cleanupData bool
	// newServer makes the Weaviate command again (Restart); readyTimeout
	// bounds its start.
	newServer    func() *exec.Cmd
	readyTimeout time.Duration
}

// proc is a started process whose exit is watched by one Wait call.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{}
}

func startProc(c *exec.Cmd) (*proc, error) {
	c.SysProcAttr = procAttr()
	if err := c.Start(); err != nil {
		return nil, err
	}
	p := &proc{cmd: c, done: make(chan struct{})}
	go func() { _ = c.Wait(); close(p.done) }()
	return p, nil
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// RepoRoot finds the repository root (the folder holding go.work: the
// module, integration/ and tools/ each have a go.mod) from the working
// directory upwards.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.work not found above the working directory")
		}
		dir = parent
	}
}

// FreePort returns a TCP port that was free on every interface a moment
// ago. It lies below the kernel's ephemeral range: a port from that range
// can be taken, between this call and the server's bind, as the local port
// of any outgoing connection on the machine (a Weaviate that binds its gRPC
// port seconds after it starts lost it that way), while a port below it is
// only ever taken by a process that asks for it.
func FreePort() (int, error) { return FreePortBlock(1) }

// FreePortBlock returns the first of n consecutive ports that were all free
// a moment ago, on every interface (Weaviate binds some of them to the
// host's address, not to 127.0.0.1), below the kernel's ephemeral range
// (FreePort says why). The block is chosen at random, so that processes
// started at the same time (a cluster and a single node, two test packages)
// seldom pick the same one, and never holds a port this process handed out
// before: a port handed out stays free until its server binds it, and a
// second draw could land on it.
func FreePortBlock(n int) (int, error) {
	handedOut.Lock()
	defer handedOut.Unlock()
	lo, hi := lowestPort, ephemeralLow()
	for try := 0; try < 200; try++ {
		first := lo + rand.IntN(hi-lo-n)
		ok := true
		for p := first; p < first+n && ok; p++ {
			if handedOut.ports[p] {
				ok = false
				continue
			}
			l, err := net.Listen("tcp", fmt.Sprintf(":%d", p))
			if err != nil {
				ok = false
				continue
			}
			l.Close()
		}
		if ok {
			for p := first; p < first+n; p++ {
				handedOut.ports[p] = true
			}
			return first, nil
		}
	}
	return 0, errors.New("no block of free ports found")
}

// lowestPort is the first port FreePortBlock draws: below it lie the
// well-known and registered services' ports.
const lowestPort = 10000

// handedOut holds the ports FreePortBlock returned in this process.
var handedOut = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// ephemeralLow is the first port of the kernel's ephemeral range (Linux;
// 32768 elsewhere or when unreadable).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 32768
	}
	low, err := strconv.Atoi(f[0])
	if err != nil || low < 12000 {
		return 32768
	}
	return low
}

// Start launches the embedder and Weaviate and waits until both are ready.
func Start(ctx context.Context, o Options) (*Stack, error) {
	if o.BinDir == "" {
		root, err := RepoRoot()
		if err != nil {
			return nil, err
		}
		o.BinDir = filepath.Join(root, "bin")
	}
	if o.Server == "" {
		o.Server = "weaviate-server"
	}
	for _, b := range []string{o.Server, "embedder"} {
		if _, err := os.Stat(filepath.Join(o.BinDir, b)); err != nil {
			return nil, fmt.Errorf("%s not found in %s: run `make build` first (make test and make run do)", b, o.BinDir)
		}
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.ReadyTimeout == 0 {
		o.ReadyTimeout = 2 * time.Minute
	}
	s := &Stack{DataDir: o.DataDir}
	if s.DataDir == "" {
		dir, err := os.MkdirTemp("", "diverse-select-weaviate-")
		if err != nil {
			return nil, err
		}
		s.DataDir, s.cleanupData = dir, true
	}
	ports := []*int{&o.HTTPPort, &o.GRPCPort, &o.EmbedderPort}
	for _, p := range ports {
		if *p == 0 {
			free, err := FreePort()
			if err != nil {
				return nil, err
			}
			*p = free
		}
	}
	// Gossip, data, raft, raft RPC and profiling ports: a block of five
	// consecutive free ports, because Weaviate derives a peer's data and raft
	// ports from its own port layout.
	base, err := FreePortBlock(5)
	if err != nil {
		return nil, err
	}
	internal := [5]int{base, base + 1, base + 2, base + 3, base + 4}
	s.HTTPPort, s.GRPCPort, s.ClusterDataPort = o.HTTPPort, o.GRPCPort, internal[1]
	s.HTTPURL = fmt.Sprintf("http://127.0.0.1:%d", o.HTTPPort)
	s.GRPCAddr = fmt.Sprintf("127.0.0.1:%d", o.GRPCPort)
	s.EmbedderURL = fmt.Sprintf("http://127.0.0.1:%d", o.EmbedderPort)

	if o.EmbedderURL != "" {
		s.EmbedderURL = o.EmbedderURL
	} else if err := s.startEmbedder(ctx, o); err != nil {
		return nil, err
	}

	env := map[string]string{
		"PERSISTENCE_DATA_PATH":                   s.DataDir,
		"AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED": "true",
		"DEFAULT_VECTORIZER_MODULE":               "none",
		"ENABLE_MODULES":                          "text2vec-transformers,diverse-select,reranker-diverse-select,generative-dummy,generative-openai",
		"TRANSFORMERS_INFERENCE_API":              s.EmbedderURL,
		"CLUSTER_HOSTNAME":                        "node1",
		"CLUSTER_IN_LOCALHOST":                    "true",
		// gossip, raft, raft RPC and the cluster API on loopback: Weaviate
		// binds 0.0.0.0 unless told; gRPC too (our build's grpc-bind patch;
		// stock Weaviate ignores it)
		"CLUSTER_BIND_ADDR":        "127.0.0.1",
		"GRPC_BIND_ADDR":           "127.0.0.1",
		"CLUSTER_GOSSIP_BIND_PORT": strconv.Itoa(internal[0]),
		"CLUSTER_DATA_BIND_PORT":   strconv.Itoa(internal[1]),
		"RAFT_PORT":                strconv.Itoa(internal[2]),
		"RAFT_INTERNAL_RPC_PORT":   strconv.Itoa(internal[3]),
		"RAFT_BOOTSTRAP_EXPECT":    "1",
		"GRPC_PORT":                strconv.Itoa(o.GRPCPort),
		"GO_PROFILING_PORT":        strconv.Itoa(internal[4]),
		"DISABLE_TELEMETRY":        "true",
		"LOG_LEVEL":                "info",
		"QUERY_DEFAULTS_LIMIT":     "25",
		// generative-openai needs a key even when a class points it at a local
		// server (OpenAIRecorder); this one is only ever sent there.
		"OPENAI_APIKEY": "local-recorder-key",
	}
	if o.Metrics {
		port, err := FreePort()
		if err != nil {
			s.Stop()
			return nil, err
		}
		env["PROMETHEUS_MONITORING_ENABLED"] = "true"
		env["PROMETHEUS_MONITORING_PORT"] = strconv.Itoa(port)
		s.MetricsURL = fmt.Sprintf("http://127.0.0.1:%d/metrics", port)
	}
	if o.Reranker {
		if s.Reranker, err = StartRerankServer(); err != nil {
			s.Stop()
			return nil, fmt.Errorf("rerank server: %w", err)
		}
		env["ENABLE_MODULES"] += ",reranker-transformers"
		env["RERANKER_INFERENCE_API"] = s.Reranker.URL
	}
	for k, v := range o.Env {
		env[k] = v
	}
	// From the variables in force: o.Env may move it (cluster nodes do).
	s.ProfilingURL = "http://127.0.0.1:" + env["GO_PROFILING_PORT"]
	s.newServer = func() *exec.Cmd {
		wv := exec.Command(filepath.Join(o.BinDir, o.Server),
			"--host", cmp.Or(o.Host, "127.0.0.1"), "--port", strconv.Itoa(o.HTTPPort), "--scheme", "http")
		wv.Env = os.Environ()
		for k, v := range env {
			wv.Env = append(wv.Env, k+"="+v)
		}
		wv.Stdout, wv.Stderr = prefixed(o.Log, "weaviate | "), prefixed(o.Log, "weaviate | ")
		return wv
	}
	s.readyTimeout = o.ReadyTimeout
	if err := s.startServer(ctx); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// startServer starts Weaviate and waits until it is ready.
func (s *Stack) startServer(ctx context.Context) error {
	var err error
	if s.weaviate, err = startProc(s.newServer()); err != nil {
		return fmt.Errorf("start weaviate: %w", err)
	}
	if err := waitReady(ctx, s.HTTPURL+"/v1/.well-known/ready", s.readyTimeout, s.weaviate); err != nil {
		return fmt.Errorf("weaviate: %w", err)
	}
	return nil
}

func (s *Stack) startEmbedder(ctx context.Context, o Options) error {
	args := append([]string{"-addr", fmt.Sprintf("127.0.0.1:%d", o.EmbedderPort)}, o.EmbedderArgs...)
	emb := exec.Command(filepath.Join(o.BinDir, "embedder"), args...)
	emb.Stdout, emb.Stderr = prefixed(o.Log, "embedder | "), prefixed(o.Log, "embedder | ")
	var err error
	if s.embedder, err = startProc(emb); err != nil {
		return fmt.Errorf("start embedder: %w", err)
	}
	if err := waitReady(ctx, s.EmbedderURL+"/.well-known/ready", o.ReadyTimeout, s.embedder); err != nil {
		s.Stop()
		return fmt.Errorf("embedder: %w", err)
	}
	return nil
}

// StartEmbedder starts only an embedder (o.BinDir's embedder with
// o.EmbedderArgs, on a free port; o.Log and o.ReadyTimeout as in Start,
// 3 minutes by default), for cluster nodes that share one or a collection
// whose inferenceUrl points at a second mode; Stop ends it.
func StartEmbedder(ctx context.Context, o Options) (*Stack, error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.ReadyTimeout == 0 {
		o.ReadyTimeout = 3 * time.Minute
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	o.EmbedderPort = port
	s := &Stack{EmbedderURL: fmt.Sprintf("http://127.0.0.1:%d", port)}
	if err := s.startEmbedder(ctx, o); err != nil {
		return nil, err
	}
	return s, nil
}

// EmbedderPID is the embedder process's id (0 when none runs), for
// measuring its memory.
func (s *Stack) EmbedderPID() int {
	if s.embedder == nil || s.embedder.exited() {
		return 0
	}
	return s.embedder.cmd.Process.Pid
}

// ServerPID is the Weaviate process's id (0 when it is not running), for
// measuring its memory.
func (s *Stack) ServerPID() int {
	if !s.Alive() {
		return 0
	}
	return s.weaviate.cmd.Process.Pid
}

// Listeners returns what Weaviate and the embedder listen on, by process
// ("weaviate", "embedder").
func (s *Stack) Listeners() (map[string][]Listener, error) {
	out := map[string][]Listener{}
	for name, pid := range map[string]int{"weaviate": s.ServerPID(), "embedder": s.EmbedderPID()} {
		if pid == 0 {
			continue
		}
		ls, err := Listeners(pid)
		if err != nil {
			return nil, err
		}
		out[name] = ls
	}
	return out, nil
}

// Alive reports whether the Weaviate process is still running.
func (s *Stack) Alive() bool { return s.weaviate != nil && !s.weaviate.exited() }

// Stop ends both processes (SIGTERM, then SIGKILL after 20 s) and removes a
// temporary data folder.
func (s *Stack) Stop() {
	for _, p := range []*proc{s.weaviate, s.embedder} {
		p.stop()
	}
	s.Reranker.Close()
	if s.cleanupData {
		os.RemoveAll(s.DataDir)
	}
}

// Kill ends Weaviate with SIGKILL - no shutdown code runs, as in a crash -
// then stops the embedder.
func (s *Stack) Kill() {
	s.StopServer(true)
	s.Stop()
}

// StopServer ends Weaviate alone and keeps its data folder, so that Restart
// can start it again: with SIGTERM (a clean shutdown), or with SIGKILL when
// kill is set (no shutdown code runs, as in a crash or an OOM kill).
func (s *Stack) StopServer(kill bool) {
	if s.weaviate == nil || s.weaviate.exited() {
		return
	}
	if kill {
		_ = s.weaviate.cmd.Process.Kill()
		<-s.weaviate.done
		return
	}
	s.weaviate.stop()
}

// Restart starts Weaviate again after StopServer, with the same ports,
// variables and data folder, and waits until it is ready.
func (s *Stack) Restart(ctx context.Context) error {
	if s.Alive() {
		return errors.New("restart: weaviate still runs")
	}
	return s.startServer(ctx)
}

func (p *proc) stop() {
	if p == nil || p.exited() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

func waitReady(ctx context.Context, url string, timeout time.Duration, p *proc) error {
	deadline := time.Now().Add(timeout)
	client := &http.Client{Timeout: 2 * time.Second}
	for time.Now().Before(deadline) {
		if p.exited() {
			return errors.New("process exited before it was ready (see its log)")
		}
		resp, err := client.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode >= 200 && resp.StatusCode < 300 {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(150 * time.Millisecond):
		}
	}
	return fmt.Errorf("not ready at %s after %s", url, timeout)
}

// prefixed writes each line to w with a prefix.
func prefixed(w io.Writer, prefix string) io.Writer {
	if w == io.Discard {
		return w
	}
	pr, pw := io.Pipe()
	go func() {
		buf := make([]byte, 0, 4096)
		chunk := make([]byte, 4096)
		for {
			n, err := pr.Read(chunk)
			buf = append(buf, chunk[:n]...)
			for {
				i := strings.IndexByte(string(buf), '\n')
				if i < 0 {
					break
				}
				fmt.Fprintf(w, "%s%s\n", prefix, buf[:i])
				buf = buf[i+1:]
			}
			if err != nil {
				return
			}
		}
	}()
	return pw
}
