package docker

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// operatorErrors checks the image and the compose file against what
// docs/deployment.md promises operators: authentication on in the image
// (anonymous access only where the compose file turns it on, for local
// use), every port the server serves exposed, the plugins folder in place,
// memory settings, and the compose file's settings the docs ask for.
func operatorErrors(dockerfile, composeText string) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	env := map[string]string{}
	var exposed []string
	var runs, entrypoint string
	for _, in := range parseDockerfile(dockerfile) {
		switch in.cmd {
		case "FROM":
			env, exposed, runs, entrypoint = map[string]string{}, nil, "", "" // the runtime stage is the last
		case "ENV":
			for _, kv := range strings.Fields(in.args) {
				k, v, _ := strings.Cut(kv, "=")
				env[k] = v
			}
		case "EXPOSE":
			exposed = append(exposed, strings.Fields(in.args)...)
		case "RUN":
			runs += in.args + "\n"
		case "ENTRYPOINT":
			entrypoint = in.args
		}
	}
	// Weaviate falls back to anonymous access when no scheme is on, so the
	// image turns one on (API keys, without keys: it refuses to start until
	// they are given) besides turning anonymous access off.
	if env["AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED"] != "false" || env["AUTHENTICATION_APIKEY_ENABLED"] != "true" {
		bad("the image must turn anonymous access off and API keys on (AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=false, AUTHENTICATION_APIKEY_ENABLED=true), got %q and %q",
			env["AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED"], env["AUTHENTICATION_APIKEY_ENABLED"])
	}
	httpPort := "8080"
	if _, after, ok := strings.Cut(entrypoint, `"--port", "`); ok {
		httpPort, _, _ = strings.Cut(after, `"`)
	}
	grpcPort := env["GRPC_PORT"]
	if grpcPort == "" {
		grpcPort = "50051" // Weaviate's default
	}
	metricsPort := env["PROMETHEUS_MONITORING_PORT"]
	if metricsPort == "" {
		bad("the image does not set PROMETHEUS_MONITORING_PORT, so its metrics port cannot be exposed by name")
	}
	for name, port := range map[string]string{"REST/GraphQL": httpPort, "gRPC": grpcPort, "metrics": metricsPort} {
		if port != "" && !slices.Contains(exposed, port) {
			bad("the %s port %s is not EXPOSEd (EXPOSE %v)", name, port, exposed)
		}
	}
	if dir := env["DIVERSE_SELECT_PLUGIN_DIR"]; dir == "" {
		bad("the image sets no DIVERSE_SELECT_PLUGIN_DIR (the plugins folder)")
	} else if !strings.Contains(runs, "mkdir -p") || !strings.Contains(runs, dir) {
		bad("no RUN creates the plugins folder %s", dir)
	}
	if env["LIMIT_RESOURCES"] != "true" && env["GOMEMLIMIT"] == "" {
		bad("the image sets neither LIMIT_RESOURCES=true nor GOMEMLIMIT")
	}

	var c struct {
		Services map[string]struct {
			Entrypoint  []string          `yaml:"entrypoint"`
			Environment map[string]string `yaml:"environment"`
			Ports       []string          `yaml:"ports"`
			MemLimit    string            `yaml:"mem_limit"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal([]byte(composeText), &c); err != nil {
		return append(errs, err)
	}
	wv, ok := c.Services["weaviate"]
	if !ok {
		return append(errs, fmt.Errorf("compose file: no weaviate service"))
	}
	if wv.Environment["ASYNC_INDEXING"] != "true" {
		bad("compose: the weaviate service does not set ASYNC_INDEXING=true")
	}
	if wv.Environment["LIMIT_RESOURCES"] != "true" && wv.Environment["GOMEMLIMIT"] == "" {
		bad("compose: the weaviate service sets neither LIMIT_RESOURCES=true nor GOMEMLIMIT")
	}
	if wv.Environment["LIMIT_RESOURCES"] == "true" && wv.MemLimit == "" {
		bad("compose: LIMIT_RESOURCES=true without mem_limit: the limit would be the host's memory")
	}
	if wv.Environment["AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED"] == "true" && !strings.Contains(composeText, "Local use") {
		bad("compose: anonymous access is on without the comment saying it is for local use only")
	}
	if wv.Environment["AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED"] == "true" && wv.Environment["AUTHENTICATION_APIKEY_ENABLED"] != "false" &&
		wv.Environment["AUTHENTICATION_APIKEY_ALLOWED_KEYS"] == "" {
		bad("compose: anonymous access on, but the image's API keys are neither turned off nor given: the server would not start")
	}
	for _, p := range wv.Ports {
		parts := strings.Split(p, ":")
		if port := parts[len(parts)-1]; !slices.Contains(exposed, port) {
			bad("compose publishes port %s, which the image does not EXPOSE", port)
		}
	}
	for name, s := range c.Services {
		if i := slices.Index(s.Entrypoint, "-mode"); i >= 0 && i+1 < len(s.Entrypoint) && s.Entrypoint[i+1] == "hash" &&
			!strings.Contains(composeText, "hash mode") {
			bad("compose: service %s runs the embedder in hash mode without saying so", name)
		}
	}
	return errs
}

func TestOperatorSettings(t *testing.T) {
	for _, err := range operatorErrors(read(t, "Dockerfile"), read(t, "compose.yaml")) {
		t.Error(err)
	}
}

// TestOperatorSettingsBad: each setting removed from a copy of the real
// files is reported.
func TestOperatorSettingsBad(t *testing.T) {
	dockerfile, composeFile := read(t, "Dockerfile"), read(t, "compose.yaml")
	for _, tc := range []struct {
		name, file, old, new, want string
	}{
		{"anonymous", "Dockerfile", "AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=false", "AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=true", "anonymous access off"},
		{"no scheme", "Dockerfile", "AUTHENTICATION_APIKEY_ENABLED=true", "AUTHENTICATION_APIKEY_ENABLED=false", "API keys on"},
		{"compose keys", "compose.yaml", `AUTHENTICATION_APIKEY_ENABLED: "false"`, `LOG_FORMAT: text`, "neither turned off nor given"},
		{"metrics port", "Dockerfile", "EXPOSE 8080 50051 2112", "EXPOSE 8080 50051", "metrics port 2112 is not EXPOSEd"},
		{"grpc port", "Dockerfile", "EXPOSE 8080 50051 2112", "EXPOSE 8080 2112", "gRPC port 50051"},
		{"plugins folder", "Dockerfile", "mkdir -p /var/lib/weaviate /usr/local/lib/diverse-select/plugins", "mkdir -p /var/lib/weaviate", "creates the plugins folder"},
		{"plugins env", "Dockerfile", "DIVERSE_SELECT_PLUGIN_DIR=", "DIVERSE_SELECT_PLUGINS=", "no DIVERSE_SELECT_PLUGIN_DIR"},
		{"image memory", "Dockerfile", "LIMIT_RESOURCES=true", "LIMIT_RESOURCES=false", "neither LIMIT_RESOURCES=true nor GOMEMLIMIT"},
		{"async indexing", "compose.yaml", `ASYNC_INDEXING: "true"`, `ASYNC_INDEXING: "false"`, "ASYNC_INDEXING=true"},
		{"compose memory", "compose.yaml", `LIMIT_RESOURCES: "true"`, `LOG_FORMAT: text`, "sets neither LIMIT_RESOURCES"},
		{"mem_limit", "compose.yaml", "mem_limit: 4g", "", "without mem_limit"},
		{"hash mode unsaid", "compose.yaml", "hash mode", "hashing", "hash mode without saying so"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			df, cf := mutated(t, dockerfile, composeFile, tc.file, tc.old, tc.new, -1)
			for _, err := range operatorErrors(df, cf) {
				if strings.Contains(err.Error(), tc.want) {
					return
				}
			}
			t.Errorf("no error containing %q; got %v", tc.want, operatorErrors(df, cf))
		})
	}
}
