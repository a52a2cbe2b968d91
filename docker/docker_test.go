package docker

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/engine"
)

// facts are what the Docker files may reference, read from the repository
// and from the pinned Weaviate source.
type facts struct {
	root          string
	goVersion     string          // go.mod's go directive (or toolchain)
	makeTargets   map[string]bool // Makefile targets
	binaries      map[string]bool // what `make build` writes into bin/
	moduleEnv     map[string]bool // DIVERSE_SELECT_* variables config reads
	weaviateEnv   map[string]bool // quoted upper-case names in Weaviate's source
	weaviateFlags map[string]bool // weaviate-server's command-line flags
	embedderFlags map[string]bool // cmd/embedder's flags
	gatewayFlags  map[string]bool // cmd/gateway's flags
	// stockImage is the official image of the pinned Weaviate version (the
	// gateway profile's upstream).
	stockImage string
	modules    map[string]bool // Weaviate's modules and ours
	// distDirs are the folders make dist packs (its recipe), distPath where
	// docs/clients.md says the image carries the packages.
	distDirs []string
	distPath string
}

var (
	reGoDirective = regexp.MustCompile(`(?m)^go (\S+)`)
	reToolchain   = regexp.MustCompile(`(?m)^toolchain go(\S+)`)
	reTarget      = regexp.MustCompile(`(?m)^([a-zA-Z][\w.-]*):([^=]|$)`)
	reBinOutput   = regexp.MustCompile(`\$\(BIN\)/([\w.-]+)`)
	reQuotedEnv   = regexp.MustCompile(`"([A-Z][A-Z0-9_]{2,})"`)
	reLongFlag    = regexp.MustCompile("`long:\"([\\w-]+)\"")
	reGoFlag      = regexp.MustCompile(`fs\.\w+Var\([^,]+, "([\w-]+)"`)
	reStdFlag     = regexp.MustCompile(`flag\.\w+\((?:[^,()]+, )?"([\w-]+)"`)
	reMakeCall    = regexp.MustCompile(`\bmake\s+([\w.-]+)`)
	reCommentEnv  = regexp.MustCompile(`(?m)^\s*#\s+([A-Z][A-Z0-9_]{2,}):\s`)
	reDistDir     = regexp.MustCompile(`cd (clients/[\w/]+) && npm pack|cp -r (clients/[\w/]+)/\.`)
	reDistPath    = regexp.MustCompile("image carries both\\s+under\\s+`([^`]+)`")
)

func loadFacts(t *testing.T) *facts {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	f := &facts{root: root, makeTargets: map[string]bool{}, binaries: map[string]bool{}, moduleEnv: map[string]bool{},
		weaviateEnv: map[string]bool{}, weaviateFlags: map[string]bool{}, embedderFlags: map[string]bool{}, gatewayFlags: map[string]bool{},
		modules: map[string]bool{engine.Name: true, engine.RerankerName: true}}

	gomod := read(t, filepath.Join(root, "go.mod"))
	f.goVersion = reGoDirective.FindStringSubmatch(gomod)[1]
	if m := reToolchain.FindStringSubmatch(gomod); m != nil {
		f.goVersion = m[1]
	}

	// Makefile: targets, and the binaries the recipes of build's
	// prerequisites write with -o $(BIN)/name.
	mk := read(t, filepath.Join(root, "Makefile"))
	recipes := map[string]string{}
	prereqs := map[string][]string{}
	var cur string
	for _, line := range strings.Split(mk, "\n") {
		if m := reTarget.FindStringSubmatch(line); m != nil && !strings.HasPrefix(line, "\t") {
			cur = m[1]
			f.makeTargets[cur] = true
			prereqs[cur] = strings.Fields(strings.SplitN(line, ":", 2)[1])
			continue
		}
		if strings.HasPrefix(line, "\t") && cur != "" {
			recipes[cur] += line + "\n"
		}
	}
	var walk func(target string)
	seen := map[string]bool{}
	walk = func(target string) {
		if seen[target] {
			return
		}
		seen[target] = true
		for _, m := range reBinOutput.FindAllStringSubmatch(recipes[target], -1) {
			f.binaries[m[1]] = true
		}
		for _, p := range prereqs[target] {
			walk(p)
		}
	}
	walk("build")
	for _, m := range reDistDir.FindAllStringSubmatch(recipes["dist"], -1) {
		f.distDirs = append(f.distDirs, m[1]+m[2])
	}
	slices.Sort(f.distDirs)
	if m := reDistPath.FindStringSubmatch(read(t, filepath.Join(root, "docs/clients.md"))); m != nil {
		f.distPath = m[1]
	}

	for _, e := range append(config.Env, config.PluginEnv...) {
		f.moduleEnv[e.Name] = true
	}
	for _, m := range reGoFlag.FindAllStringSubmatch(read(t, filepath.Join(root, "cmd/embedder/main.go")), -1) {
		f.embedderFlags[m[1]] = true
	}

	for _, m := range reStdFlag.FindAllStringSubmatch(read(t, filepath.Join(root, "cmd/gateway/main.go")), -1) {
		f.gatewayFlags[m[1]] = true
	}
	version, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "github.com/weaviate/weaviate").Output()
	if err != nil {
		t.Fatalf("the pinned Weaviate version: %v", err)
	}
	f.stockImage = "cr.weaviate.io/semitechnologies/weaviate:" + strings.TrimPrefix(strings.TrimSpace(string(version)), "v")

	// The pinned Weaviate source, from the module cache.
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/weaviate/weaviate").Output()
	if err != nil {
		t.Fatalf("locate the Weaviate module: %v", err)
	}
	wv := strings.TrimSpace(string(out))
	// The server's flags, and the flag group Weaviate adds (--config-file).
	for _, file := range []string{"adapters/handlers/rest/server.go", "usecases/config/config_handler.go"} {
		for _, m := range reLongFlag.FindAllStringSubmatch(read(t, filepath.Join(wv, file)), -1) {
			f.weaviateFlags[m[1]] = true
		}
	}
	entries, err := os.ReadDir(filepath.Join(wv, "modules"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			f.modules[e.Name()] = true
		}
	}
	for _, dir := range []string{"usecases/config", "adapters/handlers/rest", "modules", "entities/config"} {
		err := filepath.WalkDir(filepath.Join(wv, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return err
			}
			for _, m := range reQuotedEnv.FindAllStringSubmatch(read(t, p), -1) {
				f.weaviateEnv[m[1]] = true
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// envError reports a variable neither the module nor Weaviate reads, and
// unknown module names in ENABLE_MODULES / DEFAULT_VECTORIZER_MODULE.
func (f *facts) envError(name, value string) error {
	if strings.HasPrefix(name, "DIVERSE_SELECT_") {
		if !f.moduleEnv[name] {
			return fmt.Errorf("%s is not read by the module (config.Env)", name)
		}
		return nil
	}
	if !f.weaviateEnv[name] {
		return fmt.Errorf("%s is not read by Weaviate (the pinned release)", name)
	}
	if name == "ENABLE_MODULES" || name == "DEFAULT_VECTORIZER_MODULE" {
		for _, m := range strings.Split(value, ",") {
			if m = strings.TrimSpace(m); m != "none" && m != "" && !f.modules[m] {
				return fmt.Errorf("%s names the unknown module %q", name, m)
			}
		}
	}
	return nil
}

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct{ cmd, args string }

func parseDockerfile(text string) []instruction {
	var out []instruction
	var b strings.Builder
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if b.Len() == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if strings.HasSuffix(trimmed, "\\") {
			b.WriteString(strings.TrimSuffix(trimmed, "\\") + " ")
			continue
		}
		b.WriteString(trimmed)
		cmd, args, _ := strings.Cut(b.String(), " ")
		out = append(out, instruction{strings.ToUpper(cmd), strings.TrimSpace(args)})
		b.Reset()
	}
	return out
}

// checkDockerfile returns every reference of the Dockerfile that does not
// resolve.
func checkDockerfile(f *facts, text string) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	var (
		stages            int
		workdir           = map[string]string{}
		stage, user, port string
		copied            = map[string]bool{}
		ranBuild, packed  bool     // packed: the dist stage runs npm pack and pip wheel
		distSources       []string // what the dist stage copies from the repository
		carried           string   // where the runtime image puts the dist stage's packages
		health            string
		entrypoint        []string
	)
	for _, in := range parseDockerfile(text) {
		switch in.cmd {
		case "FROM":
			fields := strings.Fields(in.args)
			stage = fmt.Sprint(stages)
			if len(fields) == 3 && strings.EqualFold(fields[1], "AS") {
				stage = fields[2]
			}
			if stages == 0 {
				image, tag, _ := strings.Cut(fields[0], ":")
				version, _, _ := strings.Cut(tag, "-")
				if image != "golang" || !strings.HasPrefix(f.goVersion, version) || version == "" {
					bad("build image %s does not match go.mod's Go %s", fields[0], f.goVersion)
				}
			}
			stages++
			user = ""
		case "WORKDIR":
			workdir[stage] = in.args
		case "RUN":
			packed = packed || stage == "dist" && strings.Contains(in.args, "npm pack") && strings.Contains(in.args, "wheel")
			for _, m := range reMakeCall.FindAllStringSubmatch(in.args, -1) {
				if !f.makeTargets[m[1]] {
					bad("RUN make %s: no such Makefile target", m[1])
				}
				ranBuild = ranBuild || m[1] == "build"
			}
		case "COPY":
			fields := strings.Fields(in.args)
			from := ""
			if len(fields) > 0 && strings.HasPrefix(fields[0], "--from=") {
				from, fields = strings.TrimPrefix(fields[0], "--from="), fields[1:]
			}
			if len(fields) < 2 {
				bad("COPY %s: no source and destination", in.args)
				continue
			}
			for _, src := range fields[:len(fields)-1] {
				if from == "" && stage == "dist" {
					distSources = append(distSources, strings.TrimSuffix(src, "/"))
				}
				if from == "" {
					if m, _ := filepath.Glob(filepath.Join(f.root, src)); len(m) == 0 {
						bad("COPY %s: not in the repository", src)
					}
					continue
				}
				// the helpers' packages, from the stage that packs them as make dist does
				if from == "dist" && src == "/dist/" && packed {
					carried = strings.TrimSuffix(fields[len(fields)-1], "/")
					continue
				}
				bin, ok := strings.CutPrefix(src, workdir[from]+"/bin/")
				if !ok || !f.binaries[bin] {
					bad("COPY --from=%s %s: not a binary make build writes into bin/ (%v)", from, src, keys(f.binaries))
				}
				copied[filepath.Base(fields[len(fields)-1])] = true
			}
		case "ENV":
			for _, kv := range strings.Fields(in.args) {
				name, value, _ := strings.Cut(kv, "=")
				if err := f.envError(name, value); err != nil {
					bad("ENV %w", err)
				}
			}
		case "USER":
			user = in.args
		case "HEALTHCHECK":
			health = in.args
		case "ENTRYPOINT":
			if err := json.Unmarshal([]byte(in.args), &entrypoint); err != nil || len(entrypoint) == 0 {
				bad("ENTRYPOINT %s: not a JSON list", in.args)
			}
		}
	}
	if !ranBuild {
		bad("the build stage does not run `make build`")
	}
	slices.Sort(distSources)
	if !slices.Equal(distSources, f.distDirs) {
		bad("the dist stage packs %v, make dist packs %v: build the image's packages from the same folders", distSources, f.distDirs)
	}
	if carried != f.distPath {
		bad("the runtime image carries the helpers' packages in %q, docs/clients.md says %q", carried, f.distPath)
	}
	if user == "" || user == "root" || user == "0" {
		bad("the runtime image runs as root (no USER)")
	}
	if len(entrypoint) > 0 {
		if !copied[entrypoint[0]] {
			bad("ENTRYPOINT runs %s, which is not copied from the build stage", entrypoint[0])
		}
		for i, a := range entrypoint[1:] {
			if name, ok := strings.CutPrefix(a, "--"); ok {
				if !f.weaviateFlags[name] {
					bad("ENTRYPOINT flag %s: weaviate-server has no such flag", a)
				}
				if name == "port" && i+2 < len(entrypoint) {
					port = entrypoint[i+2]
				}
			}
		}
	}
	if want := fmt.Sprintf("127.0.0.1:%s/v1/.well-known/ready", port); !strings.Contains(health, want) {
		bad("HEALTHCHECK %q does not probe %s", health, want)
	}
	return errs
}

// keptOut are paths a local make venv, make dist, make test-clients or pip
// install leave in a clone: the build context must not carry them (a stale
// build/ or egg-info would go into the image's wheel; .venv is gigabytes).
var keptOut = []string{".venv", "dist", "clients/python/build", "clients/python/diverse_select_weaviate.egg-info",
	"clients/typescript/node_modules", "integration/ts/node_modules", "clients/python/diverse_select/__pycache__"}

// checkDockerignore returns each path of keptOut that no pattern of the
// .dockerignore text covers.
func checkDockerignore(text string) []error {
	var errs []error
	var patterns []string
	for _, line := range strings.Split(text, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			patterns = append(patterns, line)
		}
	}
	for _, p := range keptOut {
		if !slices.ContainsFunc(patterns, func(pat string) bool { return ignores(pat, p) }) {
			errs = append(errs, fmt.Errorf("%s is not excluded from the build context", p))
		}
	}
	return errs
}

// ignores reports whether a .dockerignore pattern excludes path (or a folder
// above it), with Docker's rules: a leading **/ matches at any depth, each
// other segment as filepath.Match.
func ignores(pattern, path string) bool {
	segs := strings.Split(path, "/")
	if rest, ok := strings.CutPrefix(pattern, "**/"); ok {
		for i := range segs {
			if ignores(rest, strings.Join(segs[i:], "/")) {
				return true
			}
		}
		return false
	}
	pat := strings.Split(pattern, "/")
	if len(pat) > len(segs) {
		return false
	}
	for i := range pat {
		if ok, _ := filepath.Match(pat[i], segs[i]); !ok {
			return false
		}
	}
	return true
}

// compose is the part of the compose file the checks read.
type compose struct {
	Services map[string]struct {
		Build *struct {
			Context, Dockerfile string
		}
		Image       string
		Entrypoint  []string
		Environment map[string]string
		Ports       []string
		Volumes     []string
		DependsOn   map[string]any `yaml:"depends_on"`
		Healthcheck *struct {
			Test []string
		}
	}
	Volumes map[string]any
}

// checkCompose returns every reference of the compose file (including the
// commented example) that does not resolve; dockerfile is the image's.
func checkCompose(f *facts, text, dockerfile string) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	var c compose
	if err := yaml.Unmarshal([]byte(text), &c); err != nil {
		return []error{fmt.Errorf("compose file: %w", err)}
	}
	built := map[string]bool{}
	for name, s := range c.Services {
		if s.Build == nil {
			continue
		}
		ctx := filepath.Join(f.root, "docker", s.Build.Context)
		if ctx != f.root {
			bad("service %s builds from %s, not the repository root", name, s.Build.Context)
		}
		if _, err := os.Stat(filepath.Join(ctx, s.Build.Dockerfile)); err != nil {
			bad("service %s: dockerfile %s not found", name, s.Build.Dockerfile)
		}
		built[s.Image] = true
	}
	dataPath := ""
	for _, in := range parseDockerfile(dockerfile) {
		if in.cmd == "ENV" {
			for _, kv := range strings.Fields(in.args) {
				if v, ok := strings.CutPrefix(kv, "PERSISTENCE_DATA_PATH="); ok {
					dataPath = v
				}
			}
		}
	}
	listen := map[string]string{} // service -> port its entry point listens on
	for name, s := range c.Services {
		if !built[s.Image] && s.Image != f.stockImage {
			bad("service %s: image %q is neither the one built here nor stock Weaviate of the pinned version (%s)", name, s.Image, f.stockImage)
		}
		if len(s.Entrypoint) > 0 {
			flags := f.weaviateFlags
			switch s.Entrypoint[0] {
			case "embedder":
				flags = f.embedderFlags
			case "gateway":
				flags = f.gatewayFlags
			case "weaviate-server":
			default:
				bad("service %s runs %s, which the image does not hold", name, s.Entrypoint[0])
			}
			for i, a := range s.Entrypoint[1:] {
				flag := strings.TrimLeft(a, "-")
				if strings.HasPrefix(a, "-") && !flags[flag] {
					bad("service %s: %s has no flag %s", name, s.Entrypoint[0], a)
				}
				if flag == "addr" && i+2 < len(s.Entrypoint) {
					_, listen[name], _ = strings.Cut(s.Entrypoint[i+2], ":")
				}
			}
		}
		for dep := range s.DependsOn {
			if _, ok := c.Services[dep]; !ok {
				bad("service %s depends on the unknown service %s", name, dep)
			}
		}
		for k, v := range s.Environment {
			if err := f.envError(k, v); err != nil {
				bad("service %s: %w", name, err)
			}
		}
		if p := s.Environment["PROMETHEUS_MONITORING_PORT"]; p != "" && !slices.Contains(s.Ports, p+":"+p) {
			bad("service %s: the metrics port %s is not published", name, p)
		}
		for _, v := range s.Volumes {
			vol, target, _ := strings.Cut(v, ":")
			if strings.HasPrefix(vol, "./") { // a file of the repository, bound in
				if _, err := os.Stat(filepath.Join(f.root, "docker", vol)); err != nil {
					bad("service %s binds %s, which is not in docker/", name, vol)
				}
				continue
			}
			if _, ok := c.Volumes[vol]; !ok {
				bad("service %s mounts the undeclared volume %s", name, vol)
			}
			if target != dataPath || s.Environment["PERSISTENCE_DATA_PATH"] != "" && s.Environment["PERSISTENCE_DATA_PATH"] != target {
				bad("service %s mounts %s at %s, not at the data path %s", name, vol, target, dataPath)
			}
		}
	}
	for name, s := range c.Services {
		if api := s.Environment["TRANSFORMERS_INFERENCE_API"]; api != "" {
			u, err := url.Parse(api)
			if err != nil || listen[u.Hostname()] == "" || listen[u.Hostname()] != u.Port() {
				bad("service %s: TRANSFORMERS_INFERENCE_API %s is not a service's listening address (%v)", name, api, listen)
			}
		}
	}
	for _, m := range reCommentEnv.FindAllStringSubmatch(text, -1) {
		if err := f.envError(m[1], ""); err != nil {
			bad("commented example: %w", err)
		}
	}
	return errs
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestDockerFiles(t *testing.T) {
	f := loadFacts(t)
	// The facts themselves: a broken parser would make every check pass.
	for _, must := range []struct {
		set  map[string]bool
		name string
	}{
		{f.makeTargets, "build"}, {f.binaries, "weaviate-server"}, {f.binaries, "embedder"},
		{f.weaviateFlags, "port"}, {f.embedderFlags, "addr"}, {f.gatewayFlags, "upstream-grpc"}, {f.moduleEnv, "DIVERSE_SELECT_STRATEGY"},
		{f.weaviateEnv, "PROMETHEUS_MONITORING_ENABLED"}, {f.weaviateEnv, "TRANSFORMERS_INFERENCE_API"},
		{f.modules, "text2vec-transformers"}, {map[string]bool{f.distPath: true}, "/opt/diverse-select/dist"},
		{map[string]bool{strings.Join(f.distDirs, " "): true}, "clients/python clients/typescript"},
	} {
		if !must.set[must.name] {
			t.Fatalf("fact %q not found: the parsing of the repository or Weaviate's source is broken", must.name)
		}
	}
	dockerfile := read(t, "Dockerfile")
	for _, err := range checkDockerfile(f, dockerfile) {
		t.Errorf("Dockerfile: %v", err)
	}
	for _, err := range checkCompose(f, read(t, "compose.yaml"), dockerfile) {
		t.Errorf("compose.yaml: %v", err)
	}
	for _, err := range checkDockerignore(read(t, "../.dockerignore")) {
		t.Errorf(".dockerignore: %v", err)
	}
}

// TestDockerFilesBad: each broken reference in a copy of the real files is
// reported.
func TestDockerFilesBad(t *testing.T) {
	f := loadFacts(t)
	dockerfile, composeFile := read(t, "Dockerfile"), read(t, "compose.yaml")
	for _, tc := range []struct {
		name, file, old, new, want string
	}{
		{"go version", "Dockerfile", "FROM golang:1.26-", "FROM golang:1.22-", "does not match go.mod"},
		{"copy source", "Dockerfile", "COPY go.mod go.sum ./", "COPY go.mod go.sum.missing ./", "go.sum.missing: not in the repository"},
		{"make target", "Dockerfile", "RUN make build", "RUN make build-image", "no such Makefile target"},
		{"binary", "Dockerfile", "/src/bin/embedder ", "/src/bin/embedderd ", "not a binary make build writes"},
		{"helpers not packed", "Dockerfile", "pip3 wheel -q", "pip3 download -q", "not a binary make build writes"},
		{"helpers from another folder", "Dockerfile", "COPY clients/python /src", "COPY clients/go /src", "make dist packs [clients/python clients/typescript]"},
		{"helpers carried elsewhere", "Dockerfile", "/dist/ /opt/diverse-select/dist/", "/dist/ /opt/dist/", `docs/clients.md says "/opt/diverse-select/dist"`},
		{"weaviate env", "Dockerfile", "CLUSTER_HOSTNAME=node1", "CLUSTER_HOST_NAME=node1", "CLUSTER_HOST_NAME is not read by Weaviate"},
		{"module env", "Dockerfile", "RAFT_BOOTSTRAP_EXPECT=1", "RAFT_BOOTSTRAP_EXPECT=1 DIVERSE_SELECT_BUDGET=5", "DIVERSE_SELECT_BUDGET is not read by the module"},
		{"module name", "Dockerfile", "ENABLE_MODULES=diverse-select,", "ENABLE_MODULES=diverse-selection,", `unknown module "diverse-selection"`},
		{"health path", "Dockerfile", "/v1/.well-known/ready", "/v1/.well-known/live", "does not probe"},
		{"server flag", "Dockerfile", `"--scheme"`, `"--schema"`, "no such flag"},
		{"root", "Dockerfile", "USER weaviate", "USER root", "runs as root"},
		{"embedder flag", "compose.yaml", `"-mode", "hash"`, `"-model", "hash"`, "has no flag -model"},
		{"gateway flag", "compose.yaml", `"--upstream-http"`, `"--upstream-rest"`, "has no flag --upstream-rest"},
		{"stock image", "compose.yaml", "weaviate:1.38.14", "weaviate:1.37.0", "neither the one built here nor stock Weaviate"},
		{"gateway config", "compose.yaml", "./gateway.yaml:", "./gateway.yml:", "binds ./gateway.yml"},
		{"compose env", "compose.yaml", "LOG_LEVEL: info", "LOGLEVEL: info", "LOGLEVEL is not read by Weaviate"},
		{"compose module env", "compose.yaml", "DIVERSE_SELECT_TOKEN_BUDGET:", "DIVERSE_SELECT_TOKENS:", "DIVERSE_SELECT_TOKENS is not read"},
		{"inference url", "compose.yaml", "http://embedder:8090", "http://embedder:8080", "not a service's listening address"},
		{"metrics port", "compose.yaml", `"2112:2112"`, `"9090:2112"`, "metrics port 2112 is not published"},
		{"example env", "compose.yaml", "#      OPENAI_APIKEY:", "#      OPENAI_API_KEY:", "OPENAI_API_KEY is not read"},
		{"volume", "compose.yaml", "weaviate-data:/var/lib/weaviate", "weaviate-data:/data", "not at the data path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			df, cf := mutated(t, dockerfile, composeFile, tc.file, tc.old, tc.new, 1)
			errs := checkDockerfile(f, df)
			errs = append(errs, checkCompose(f, cf, df)...)
			for _, err := range errs {
				if strings.Contains(err.Error(), tc.want) {
					return
				}
			}
			t.Errorf("no error containing %q; got %v", tc.want, errs)
		})
	}
}

// mutated returns the Dockerfile and the compose file (dockerfile,
// composeFile) with old replaced by new n times (-1: every time) in file,
// "Dockerfile" or "compose.yaml"; a file without old fails the test (the case
// no longer tests anything).
func mutated(t *testing.T, dockerfile, composeFile, file, old, new string, n int) (df, cf string) {
	t.Helper()
	df, cf = dockerfile, composeFile
	target := &df
	if file == "compose.yaml" {
		target = &cf
	}
	if !strings.Contains(*target, old) {
		t.Fatalf("%s does not contain %q: update the case", file, old)
	}
	*target = strings.Replace(*target, old, new, n)
	return df, cf
}

// TestDockerignoreBad: a .dockerignore that lets a local build's leftovers
// into the context is reported, path by path; the patterns match as
// Docker's do.
func TestDockerignoreBad(t *testing.T) {
	real := read(t, "../.dockerignore")
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"the venv", "\n.venv\n", "\n", ".venv is not excluded"},
		{"a local build of the Python helper", "clients/python/build\n", "", "clients/python/build is not excluded"},
		{"node_modules at the top only", "**/node_modules", "node_modules", "clients/typescript/node_modules is not excluded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(real, tc.old) {
				t.Fatalf(".dockerignore does not contain %q: update the case", tc.old)
			}
			errs := checkDockerignore(strings.Replace(real, tc.old, tc.new, 1))
			if !slices.ContainsFunc(errs, func(err error) bool { return strings.Contains(err.Error(), tc.want) }) {
				t.Errorf("no error containing %q; got %v", tc.want, errs)
			}
		})
	}
	for _, tc := range []struct {
		pattern, path string
		want          bool
	}{
		{"dist", "dist", true}, {"dist", "clients/dist", false}, {"**/*.egg-info", "clients/python/x.egg-info", true},
		{"clients/python/build", "clients/python/build/lib/x.py", true}, {"build", "clients/python/build", false},
	} {
		if got := ignores(tc.pattern, tc.path); got != tc.want {
			t.Errorf("ignores(%q, %q) = %v, want %v", tc.pattern, tc.path, got, tc.want)
		}
	}
}
