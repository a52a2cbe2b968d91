package stack

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"gopkg.in/yaml.v3"
)

// GatewayOptions configure a gateway (bin/gateway, cmd/gateway) in front of
// a running Weaviate.
type GatewayOptions struct {
	// BinDir holds gateway (default: <repo>/bin).
	BinDir string
	// UpstreamGRPC and UpstreamHTTP are the Weaviate it fronts.
	UpstreamGRPC, UpstreamHTTP string
	// Collections are the config file's per-collection defaults.
	Collections map[string]any
	// Args are more flags (e.g. --query-defaults-limit 25).
	Args []string
	// Env adds environment variables (DIVERSE_SELECT_*).
	Env map[string]string
	// Log receives its output (default: discarded).
	Log io.Writer
	// HTTPPort and GRPCPort are its listeners' ports on 127.0.0.1 (0: free ones).
	HTTPPort, GRPCPort int
}

// Gateway is a running bin/gateway.
type Gateway struct {
	GRPCAddr   string // 127.0.0.1:PORT
	HTTPURL    string // http://127.0.0.1:PORT (Weaviate's REST and GraphQL, passed through)
	ConfigPath string // its config file (rewrite it: the gateway reloads it)
	cmd        *exec.Cmd
	done       chan struct{}
	dir        string
}

// StartGateway starts bin/gateway on loopback ports (free ones unless given) with a config
// file of o.Collections and waits until it serves.
func StartGateway(ctx context.Context, o GatewayOptions) (*Gateway, error) {
	if o.BinDir == "" {
		root, err := RepoRoot()
		if err != nil {
			return nil, err
		}
		o.BinDir = filepath.Join(root, "bin")
	}
	bin := filepath.Join(o.BinDir, "gateway")
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("%s not found: run `make build` first (make test does)", bin)
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	dir, err := os.MkdirTemp("", "diverse-select-gateway-")
	if err != nil {
		return nil, err
	}
	g := &Gateway{dir: dir, ConfigPath: filepath.Join(dir, "gateway.yaml"), done: make(chan struct{})}
	if err := g.WriteConfig(o.Collections); err != nil {
		g.Stop()
		return nil, err
	}
	grpcPort, httpPort := o.GRPCPort, o.HTTPPort
	for _, p := range []*int{&grpcPort, &httpPort} {
		if *p == 0 {
			if *p, err = FreePort(); err != nil {
				g.Stop()
				return nil, err
			}
		}
	}
	g.GRPCAddr = "127.0.0.1:" + strconv.Itoa(grpcPort)
	g.HTTPURL = "http://127.0.0.1:" + strconv.Itoa(httpPort)
	args := append([]string{"--grpc", g.GRPCAddr, "--http", "127.0.0.1:" + strconv.Itoa(httpPort),
		"--upstream-grpc", o.UpstreamGRPC, "--upstream-http", o.UpstreamHTTP, "--config", g.ConfigPath}, o.Args...)
	g.cmd = exec.Command(bin, args...)
	g.cmd.Env = os.Environ()
	for k, v := range o.Env {
		g.cmd.Env = append(g.cmd.Env, k+"="+v)
	}
	g.cmd.Stdout, g.cmd.Stderr = prefixed(o.Log, "gateway | "), prefixed(o.Log, "gateway | ")
	if err := g.cmd.Start(); err != nil {
		g.Stop()
		return nil, err
	}
	go func() { _ = g.cmd.Wait(); close(g.done) }()
	for deadline := time.Now().Add(30 * time.Second); ; {
		if resp, err := http.Get(g.HTTPURL + "/diverse-select/live"); err == nil { // the config is loaded before it serves
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return g, nil
			}
		}
		select {
		case <-g.done:
			g.Stop()
			return nil, fmt.Errorf("the gateway exited at start")
		case <-ctx.Done():
			g.Stop()
			return nil, ctx.Err()
		default:
		}
		if time.Now().After(deadline) {
			g.Stop()
			return nil, fmt.Errorf("the gateway did not serve within 30s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// WriteConfig replaces the config file (atomically: the gateway never
// reads half a file).
func (g *Gateway) WriteConfig(collections map[string]any) error {
	b, err := yaml.Marshal(map[string]any{"collections": collections})
	if err != nil {
		return err
	}
	return g.WriteConfigBytes(b)
}

// WriteConfigBytes replaces the config file with b.
func (g *Gateway) WriteConfigBytes(b []byte) error {
	tmp := g.ConfigPath + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, g.ConfigPath)
}

// GatewayStatus is the gateway's own HTTP endpoint (gateway.StatusPath).
type GatewayStatus struct {
	ConfigLoads  int            `json:"configLoads"`
	ConfigError  string         `json:"configError"`
	Collections  map[string]any `json:"collections"`
	FeatureCache map[string]any `json:"featureCache"`
}

// Status reads the gateway's status endpoint.
func (g *Gateway) Status() (GatewayStatus, error) {
	var st GatewayStatus
	resp, err := http.Get(g.HTTPURL + "/diverse-select/gateway")
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return st, fmt.Errorf("status %s", resp.Status)
	}
	return st, json.NewDecoder(resp.Body).Decode(&st)
}

// PID is the gateway's process id.
func (g *Gateway) PID() int { return g.cmd.Process.Pid }

// Alive reports whether the process still runs.
func (g *Gateway) Alive() bool {
	select {
	case <-g.done:
		return false
	default:
		return true
	}
}

// Stop kills the gateway and removes its config folder.
func (g *Gateway) Stop() {
	if g.cmd != nil && g.cmd.Process != nil && g.Alive() {
		_ = g.cmd.Process.Kill()
		<-g.done
	}
	os.RemoveAll(g.dir)
}
