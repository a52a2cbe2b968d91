package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// imageConfig is the part of `podman image inspect` the operator checks read.
type imageConfig struct {
	Env          []string
	ExposedPorts map[string]struct{}
}

func (c *check) imageConfig() (imageConfig, error) {
	var cfg imageConfig
	out, err := podman(c.ctx, "image", "inspect", "--format", "{{json .Config}}", c.image)
	if err != nil {
		return cfg, err
	}
	return cfg, json.Unmarshal([]byte(out), &cfg)
}

func envValue(env []string, name string) string {
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v
		}
	}
	return ""
}

// exposedPorts: the image exposes REST/GraphQL, gRPC and the metrics port,
// and every container port the compose file publishes.
func (c *check) exposedPorts() error {
	cfg, err := c.imageConfig()
	if err != nil {
		return err
	}
	want := []int{8080, 50051}
	metrics, err := strconv.Atoi(envValue(cfg.Env, "PROMETHEUS_MONITORING_PORT"))
	if err != nil {
		return fmt.Errorf("the image sets no PROMETHEUS_MONITORING_PORT: %v", cfg.Env)
	}
	want = append(want, metrics)
	for p := range c.published {
		want = append(want, p)
	}
	for _, p := range want {
		if _, ok := cfg.ExposedPorts[fmt.Sprintf("%d/tcp", p)]; !ok {
			return fmt.Errorf("port %d is not exposed; the image exposes %v", p, keys(cfg.ExposedPorts))
		}
	}
	return nil
}

// pluginsFolder: DIVERSE_SELECT_PLUGIN_DIR names a folder that exists in the
// running container and that the server's user can read.
func (c *check) pluginsFolder() error {
	cfg, err := c.imageConfig()
	if err != nil {
		return err
	}
	dir := envValue(cfg.Env, "DIVERSE_SELECT_PLUGIN_DIR")
	if dir == "" {
		return fmt.Errorf("the image sets no DIVERSE_SELECT_PLUGIN_DIR")
	}
	if _, err := podman(c.ctx, "exec", c.container, "test", "-d", dir, "-a", "-r", dir, "-a", "-x", dir); err != nil {
		return fmt.Errorf("plugins folder %s: %w", dir, err)
	}
	return nil
}

// memoryLimit: with LIMIT_RESOURCES=true Weaviate sets its soft memory limit
// from the container's cgroup (the compose file's mem_limit): its log says so.
func (c *check) memoryLimit() error {
	if c.memLimit == "" {
		return fmt.Errorf("the compose file sets no mem_limit")
	}
	out, err := podman(c.ctx, "logs", c.container)
	if err != nil {
		return err
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "Set memory limit") || strings.Contains(l, "Set memory limit based on available memory") {
			fmt.Printf("imagetest: %s\n", strings.TrimSpace(l))
			return nil
		}
	}
	return fmt.Errorf("no \"Set memory limit\" in Weaviate's log (LIMIT_RESOURCES not in effect)")
}

// authOn: the image alone (no compose environment) has anonymous access off
// and API keys on without keys, so Weaviate refuses to start until they are
// given (Weaviate would fall back to anonymous access with no scheme on); the
// compose file's run answers anonymous requests (the checks above), so the
// compose file is what turned it on.
func (c *check) authOn() error {
	cfg, err := c.imageConfig()
	if err != nil {
		return err
	}
	if v := envValue(cfg.Env, "AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED"); v != "false" {
		return fmt.Errorf("the image sets AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=%q, want false", v)
	}
	if v := envValue(cfg.Env, "AUTHENTICATION_APIKEY_ENABLED"); v != "true" {
		return fmt.Errorf("the image sets AUTHENTICATION_APIKEY_ENABLED=%q, want true", v)
	}
	ctx, cancel := context.WithTimeout(c.ctx, 90*time.Second)
	defer cancel()
	name := c.container + "-noauth"
	defer func() {
		cleanup, stop := context.WithTimeout(context.Background(), 30*time.Second)
		defer stop()
		_, _ = podman(cleanup, "rm", "-f", "-t", "0", name)
	}()
	out, err := podman(ctx, "run", "--rm", "--name", name, c.image)
	if err == nil {
		return fmt.Errorf("the image started without an authentication scheme:\n%s", tail(out))
	}
	if !strings.Contains(out, "need at least one valid allowed key") {
		return fmt.Errorf("the image stopped, but not on its missing API keys: %v\n%s", err, tail(out))
	}
	fmt.Println("imagetest: the image alone refuses to start until its API keys are given")
	return nil
}

func tail(s string) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(0, len(lines)-10):], "\n")
}
