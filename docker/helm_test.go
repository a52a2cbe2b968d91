package docker

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/diverse-select/diverse-select/engine"
)

// helmValues is the part of Weaviate's Helm chart values deploy/helm/values.yaml sets.
type helmValues struct {
	Image struct {
		Registry, Repo, Tag string
	}
	Command        []string
	Args           []string
	UpdateStrategy struct{ Type string } `yaml:"updateStrategy"`
	Resources      struct {
		Limits map[string]string
	}
	SecurityContext struct {
		RunAsUser    int  `yaml:"runAsUser"`
		RunAsNonRoot bool `yaml:"runAsNonRoot"`
		FSGroup      int  `yaml:"fsGroup"`
	} `yaml:"securityContext"`
	GRPCService struct {
		Enabled bool
	} `yaml:"grpcService"`
	Authentication struct {
		AnonymousAccess struct{ Enabled bool } `yaml:"anonymous_access"`
	}
	Env        map[string]string
	EnvSecrets map[string]string `yaml:"envSecrets"`
}

var (
	reUID       = regexp.MustCompile(`useradd [^\n]*--uid (\d+)`)
	reWeaviatev = regexp.MustCompile(`(?m)^\s*github\.com/weaviate/weaviate (v\S+)`)
)

// helmErrors checks the Helm values against the image, the module and the
// pinned Weaviate: the image and tag the release rule gives, the image's
// binary and Weaviate's flags, the environment, authentication, the user.
func helmErrors(f *facts, text, dockerfile, pin string) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	var v helmValues
	dec := yaml.NewDecoder(strings.NewReader(text))
	if err := dec.Decode(&v); err != nil {
		return []error{fmt.Errorf("values: %w", err)}
	}
	if v.Image.Repo != "weaviate-diverse-select" {
		bad("image.repo %q is not the image docker/Dockerfile builds (weaviate-diverse-select)", v.Image.Repo)
	}
	if want := engine.Version + "-weaviate-" + pin; v.Image.Tag != want {
		bad("image.tag %q, want %q (<module version>-weaviate-<pinned Weaviate>)", v.Image.Tag, want)
	}
	if len(v.Command) != 1 || !f.binaries[filepath.Base(v.Command[0])] || !strings.Contains(dockerfile, "/bin/"+filepath.Base(v.Command[0])+" ") {
		bad("command %v is not the server binary the image holds", v.Command)
	}
	for i, a := range v.Args {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "--") && !f.weaviateFlags[name] {
			bad("args: weaviate-server has no flag %s", a)
		}
		if a == "--config-file" && (i+1 >= len(v.Args) || !strings.HasPrefix(v.Args[i+1], "/weaviate-config/")) {
			bad("args: --config-file must stay the chart's /weaviate-config/conf.yaml (it carries authentication)")
		}
	}
	if !slices.Contains(v.Args, "--config-file") {
		bad("args drop the chart's --config-file")
	}
	if v.UpdateStrategy.Type != "RollingUpdate" {
		bad("updateStrategy %q, want RollingUpdate", v.UpdateStrategy.Type)
	}
	if m := reUID.FindStringSubmatch(dockerfile); m == nil || fmt.Sprint(v.SecurityContext.RunAsUser) != m[1] ||
		fmt.Sprint(v.SecurityContext.FSGroup) != m[1] || !v.SecurityContext.RunAsNonRoot {
		bad("securityContext runAsUser %d / fsGroup %d / runAsNonRoot %v: want the image's user %v, non-root",
			v.SecurityContext.RunAsUser, v.SecurityContext.FSGroup, v.SecurityContext.RunAsNonRoot, m)
	}
	if !v.GRPCService.Enabled {
		bad("grpcService is off: the official clients search over gRPC")
	}
	if v.Authentication.AnonymousAccess.Enabled {
		bad("authentication.anonymous_access is on")
	}
	if v.Env["AUTHENTICATION_APIKEY_ENABLED"] != "true" || v.EnvSecrets["AUTHENTICATION_APIKEY_ALLOWED_KEYS"] == "" {
		bad("no API keys: AUTHENTICATION_APIKEY_ENABLED with the keys from envSecrets expected")
	}
	for k, val := range v.Env {
		if err := f.envError(k, val); err != nil {
			bad("env: %w", err)
		}
	}
	for k := range v.EnvSecrets {
		if err := f.envError(k, ""); err != nil {
			bad("envSecrets: %w", err)
		}
	}
	mods := strings.Split(v.Env["ENABLE_MODULES"], ",")
	if !slices.Contains(mods, engine.Name) || !slices.Contains(mods, engine.RerankerName) {
		bad("ENABLE_MODULES %q does not enable both modules", v.Env["ENABLE_MODULES"])
	}
	for k, want := range map[string]string{"ASYNC_INDEXING": "true", "LIMIT_RESOURCES": "true", "PROMETHEUS_MONITORING_ENABLED": "true"} {
		if v.Env[k] != want {
			bad("env %s = %q, want %q (docs/deployment.md)", k, v.Env[k], want)
		}
	}
	if v.Env["LIMIT_RESOURCES"] == "true" && v.Resources.Limits["memory"] == "" {
		bad("LIMIT_RESOURCES without resources.limits.memory")
	}
	return errs
}

func pinnedWeaviate(t *testing.T) string {
	t.Helper()
	m := reWeaviatev.FindStringSubmatch(read(t, "../go.mod"))
	if m == nil {
		t.Fatal("go.mod pins no Weaviate")
	}
	return m[1]
}

// TestHelmValues: deploy/helm/values.yaml parses and fits the image, the
// module and the pinned Weaviate.
func TestHelmValues(t *testing.T) {
	f := loadFacts(t)
	for _, err := range helmErrors(f, read(t, "../deploy/helm/values.yaml"), read(t, "Dockerfile"), pinnedWeaviate(t)) {
		t.Errorf("deploy/helm/values.yaml: %v", err)
	}
	if _, err := exec.LookPath("helm"); err == nil {
		t.Log("helm is installed; the values are not rendered here (the chart is not vendored)")
	}
}

// TestHelmValuesBad: each broken point in a copy of the values is reported.
func TestHelmValuesBad(t *testing.T) {
	f := loadFacts(t)
	values, dockerfile, pin := read(t, "../deploy/helm/values.yaml"), read(t, "Dockerfile"), pinnedWeaviate(t)
	for _, tc := range []struct{ name, old, new, want string }{
		{"tag", "tag: " + engine.Version + "-weaviate-", "tag: 9.9.9-weaviate-", "image.tag"},
		{"command", `command: ["weaviate-server"]`, `command: ["/bin/weaviate"]`, "not the server binary"},
		{"flag", "--read-timeout=60s", "--read-timout=60s", "no flag --read-timout"},
		{"config file", "  - --config-file\n  - /weaviate-config/conf.yaml\n", "", "drop the chart's --config-file"},
		{"anonymous", "anonymous_access:\n    enabled: false", "anonymous_access:\n    enabled: true", "anonymous_access is on"},
		{"async", `ASYNC_INDEXING: "true"`, `ASYNC_INDEXING: "false"`, "ASYNC_INDEXING"},
		{"memory limit", "    memory: 4Gi", "", "without resources.limits.memory"},
		{"modules", "text2vec-transformers,diverse-select,reranker-diverse-select", "text2vec-transformers,diverse-select", "does not enable both"},
		{"module env", "DIVERSE_SELECT_MAX_CANDIDATES:", "DIVERSE_SELECT_MAX_CANDIDATE:", "not read by the module"},
		{"user", "fsGroup: 10001", "fsGroup: 1000", "securityContext"},
		{"grpc", "grpcService:\n  enabled: true", "grpcService:\n  enabled: false", "grpcService is off"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(values, tc.old) {
				t.Fatalf("values do not contain %q: update the case", tc.old)
			}
			errs := helmErrors(f, strings.Replace(values, tc.old, tc.new, 1), dockerfile, pin)
			for _, err := range errs {
				if strings.Contains(err.Error(), tc.want) {
					return
				}
			}
			t.Errorf("no error containing %q; got %v", tc.want, errs)
		})
	}
}
