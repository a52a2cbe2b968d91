// Command imagetest starts the image docker/Dockerfile built (make
// image-test builds it with podman) as docker/compose.yaml describes, checks
// it as a user would, and removes everything it started.
//
// From compose.yaml it takes the weaviate service's environment, ports and
// volume, the embedder service's entry point and health check, and the
// order (Weaviate after the embedder is healthy). The two containers share
// one pod whose hosts file names the embedder, so the compose file's
// TRANSFORMERS_INFERENCE_API (http://embedder:8090) is used unchanged, and
// every published port is mapped to a free port on 127.0.0.1. It checks:
//
//   - the embedder's health check (compose) and the image's HEALTHCHECK
//     (Weaviate) pass; the server process runs as a non-root user;
//   - /v1/meta lists diverse-select and reranker-diverse-select;
//   - a class is created and objects imported (vectors from the embedder);
//   - a diverseSelect query over GraphQL and the gRPC rerank route return
//     the selection the selectors library computes on the same candidates;
//   - the module's metrics are on the published metrics port;
//   - the image as operators expect it: API keys on and anonymous access off
//     in the image (a server started without the compose file's environment
//     refuses to start until the keys are given), every port it serves (and each port
//     the compose file publishes) exposed, the plugins folder in place and
//     named by DIVERSE_SELECT_PLUGIN_DIR, GOMEMLIMIT derived from the
//     container's memory limit (LIMIT_RESOURCES).
//
// Needs podman (and root for its default storage and networks).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/diverse-select/diverse-select/integration/stack"
)

func main() {
	var o options
	flag.StringVar(&o.image, "image", "", "the image to run (default: the compose file's weaviate image)")
	flag.StringVar(&o.compose, "compose", "docker/compose.yaml", "the compose file whose services are run")
	flag.DurationVar(&o.timeout, "timeout", 5*time.Minute, "bound on the whole check")
	flag.Parse()
	if _, err := exec.LookPath("podman"); err != nil {
		fmt.Fprintln(os.Stderr, "imagetest: needs podman (make image-test installs it from Debian's packages)")
		os.Exit(1)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "imagetest:", err)
		os.Exit(1)
	}
}

type options struct {
	image, compose string
	timeout        time.Duration
}

// composeFile is the part of compose.yaml this command runs.
type composeFile struct {
	Services map[string]struct {
		Image       string            `yaml:"image"`
		Entrypoint  []string          `yaml:"entrypoint"`
		Ports       []string          `yaml:"ports"`
		Volumes     []string          `yaml:"volumes"`
		Environment map[string]string `yaml:"environment"`
		Restart     string            `yaml:"restart"`
		MemLimit    string            `yaml:"mem_limit"`
		Healthcheck *struct {
			Test     []string `yaml:"test"`
			Interval string   `yaml:"interval"`
			Retries  int      `yaml:"retries"`
		} `yaml:"healthcheck"`
		DependsOn map[string]struct {
			Condition string `yaml:"condition"`
		} `yaml:"depends_on"`
	} `yaml:"services"`
}

func run(o options) error {
	raw, err := os.ReadFile(o.compose)
	if err != nil {
		return err
	}
	var cf composeFile
	if err := yaml.Unmarshal(raw, &cf); err != nil {
		return fmt.Errorf("%s: %w", o.compose, err)
	}
	wv, ok1 := cf.Services["weaviate"]
	emb, ok2 := cf.Services["embedder"]
	if !ok1 || !ok2 {
		return fmt.Errorf("%s: services weaviate and embedder expected", o.compose)
	}
	if emb.Healthcheck == nil || len(emb.Healthcheck.Test) < 2 || emb.Healthcheck.Test[0] != "CMD" {
		return fmt.Errorf("%s: the embedder's healthcheck test is expected as [CMD, ...]", o.compose)
	}
	if wv.DependsOn["embedder"].Condition != "service_healthy" {
		return fmt.Errorf("%s: weaviate is expected to wait for a healthy embedder", o.compose)
	}

	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	name := fmt.Sprintf("ds-imagetest-%d", os.Getpid())
	p := &pod{name: name}
	defer p.remove()

	// The pod: one network namespace, published ports on free local ports.
	published := map[int]int{} // container port -> host port
	podArgs := []string{"pod", "create", "--name", name, "--add-host", "embedder:127.0.0.1"}
	for _, spec := range wv.Ports {
		parts := strings.Split(spec, ":")
		cport, err := strconv.Atoi(parts[len(parts)-1])
		if err != nil {
			return fmt.Errorf("%s: port %q", o.compose, spec)
		}
		hport, err := stack.FreePort()
		if err != nil {
			return err
		}
		published[cport] = hport
		podArgs = append(podArgs, "-p", fmt.Sprintf("127.0.0.1:%d:%d", hport, cport))
	}
	if _, err := podman(ctx, podArgs...); err != nil {
		return err
	}
	p.created = true

	// The embedder, with the compose file's entry point and health check.
	entry, _ := json.Marshal(emb.Entrypoint)
	health, _ := json.Marshal(emb.Healthcheck.Test[1:])
	t0 := time.Now()
	if _, err := podman(ctx, "run", "-d", "--pod", name, "--name", name+"-embedder",
		"--entrypoint", string(entry), "--health-cmd", string(health), "--health-interval", emb.Healthcheck.Interval,
		"--health-retries", strconv.Itoa(emb.Healthcheck.Retries), image(emb.Image, o.image)); err != nil {
		return err
	}
	// depends_on: service_healthy (run here: no systemd timer runs health
	// checks, and podman-compose does not wait for them).
	if err := untilHealthy(ctx, name+"-embedder", time.Minute); err != nil {
		p.logs()
		return fmt.Errorf("embedder: %w", err)
	}
	fmt.Printf("imagetest: embedder healthy in %s\n", time.Since(t0).Round(100*time.Millisecond))

	// Weaviate, with the compose file's environment and volume.
	wvArgs := []string{"run", "-d", "--pod", name, "--name", name + "-weaviate"}
	if wv.Restart != "" {
		wvArgs = append(wvArgs, "--restart", wv.Restart)
	}
	if wv.MemLimit != "" {
		wvArgs = append(wvArgs, "--memory", wv.MemLimit)
	}
	for _, v := range wv.Volumes {
		vol, target, ok := strings.Cut(v, ":")
		if !ok {
			return fmt.Errorf("%s: volume %q", o.compose, v)
		}
		p.volumes = append(p.volumes, name+"-"+vol)
		wvArgs = append(wvArgs, "-v", name+"-"+vol+":"+target)
	}
	keys := make([]string, 0, len(wv.Environment))
	for k := range wv.Environment {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		wvArgs = append(wvArgs, "-e", k+"="+wv.Environment[k])
	}
	t1 := time.Now()
	if _, err := podman(ctx, append(wvArgs, image(wv.Image, o.image))...); err != nil {
		p.logs()
		return err
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", published[8080])
	if err := untilReady(ctx, base+"/v1/.well-known/ready", 2*time.Minute); err != nil {
		p.logs()
		return fmt.Errorf("weaviate: %w", err)
	}
	fmt.Printf("imagetest: weaviate ready in %s (REST %s, gRPC 127.0.0.1:%d, metrics 127.0.0.1:%d)\n",
		time.Since(t1).Round(100*time.Millisecond), base, published[50051], published[2112])

	c := &check{ctx: ctx, base: base, grpc: fmt.Sprintf("127.0.0.1:%d", published[50051]),
		metrics: fmt.Sprintf("http://127.0.0.1:%d/metrics", published[2112]), container: name + "-weaviate",
		image: image(wv.Image, o.image), published: published, memLimit: wv.MemLimit}
	if err := c.all(); err != nil {
		p.logs()
		return err
	}
	fmt.Println("imagetest: ok")
	return nil
}

// image is the one -image names, else the compose service's.
func image(service, flagged string) string {
	if flagged != "" {
		return flagged
	}
	return service
}

// pod is what this run created, removed at the end whatever happened.
type pod struct {
	name    string
	created bool
	volumes []string
}

func (p *pod) remove() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if p.created {
		if _, err := podman(ctx, "pod", "rm", "-f", "-t", "10", p.name); err != nil {
			fmt.Fprintln(os.Stderr, "imagetest: remove the pod:", err)
		}
	}
	for _, v := range p.volumes {
		_, _ = podman(ctx, "volume", "rm", "-f", v)
	}
	fmt.Printf("imagetest: removed pod %s, its containers and volumes\n", p.name)
}

// logs prints the containers' last log lines (on a failure).
func (p *pod) logs() {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, ctr := range []string{p.name + "-embedder", p.name + "-weaviate"} {
		out, _ := podman(ctx, "logs", "--tail", "30", ctr)
		fmt.Fprintf(os.Stderr, "--- %s\n%s\n", ctr, out)
	}
}

// podman runs podman and returns its output; an error carries the output.
func podman(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "podman", args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("podman %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

func untilHealthy(ctx context.Context, container string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		if _, last = podman(ctx, "healthcheck", "run", container); last == nil {
			return nil
		}
		if !sleep(ctx, time.Second) {
			return ctx.Err()
		}
	}
	return fmt.Errorf("not healthy after %s: %v", timeout, last)
}

func untilReady(ctx context.Context, url string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	hc := &http.Client{Timeout: 2 * time.Second}
	for time.Now().Before(deadline) {
		if resp, err := hc.Get(url); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if !sleep(ctx, 250*time.Millisecond) {
			return ctx.Err()
		}
	}
	return fmt.Errorf("not ready at %s after %s", url, timeout)
}

func sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}
