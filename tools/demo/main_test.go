package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/diverse-select/diverse-select/integration/stack"
	"github.com/diverse-select/diverse-select/internal/corpus"
)

// TestDemo runs `make run`'s program end to end (hash embedder, free ports),
// with the module and through the gateway in front of stock Weaviate (make
// run-gateway), and checks what it shows: every demo query with top-k next
// to diverse selection, no near-copy in the diverse column, the same
// figures both ways, and every listener on loopback.
func TestDemo(t *testing.T) {
	var shown []string
	for _, tc := range []struct {
		name    string
		gateway bool
		// open are the listeners allowed beyond loopback: stock Weaviate's
		// gRPC and cluster API, which it binds on every interface with no
		// setting for their address (our build's grpc-bind and
		// cluster-api-bind patches are what move them).
		open func(proc string, l stack.Listener, s *servers) bool
	}{
		{name: "module", open: func(string, stack.Listener, *servers) bool { return false }},
		{name: "gateway", gateway: true, open: func(proc string, l stack.Listener, s *servers) bool {
			return proc == "weaviate" && l.Proto == "tcp" && (l.Port == s.up.GRPCPort || l.Port == s.up.ClusterDataPort)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shown = append(shown, checkDemo(t, tc.gateway, tc.open))
		})
	}
	// The same before and after: each query's figures, both columns. (The
	// rows can differ in order where top-k ties: the two servers' searches
	// order equal distances each their own way.)
	if len(shown) == 2 && figureLines(shown[0]) != figureLines(shown[1]) {
		t.Errorf("the gateway shows other figures than the module:\n%s\nmodule:\n%s", figureLines(shown[1]), figureLines(shown[0]))
	}
}

// checkDemo runs the demo and checks its output and listeners; it returns
// the comparisons as printed.
func checkDemo(t *testing.T, gateway bool, open func(string, stack.Listener, *servers) bool) string {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var out bytes.Buffer
	var listeners map[string][]stack.Listener
	err := run(ctx, &out, options{dataDir: t.TempDir() + "/data", budget: 600, candidates: 40, exit: true, gateway: gateway,
		ready: func(s *servers) error {
			var err error
			if listeners, err = s.listeners(); err != nil {
				return err
			}
			for proc, ls := range listeners {
				t.Logf("%s listens on %v", proc, ls)
				for _, l := range ls {
					if !l.Loopback() && !open(proc, l, s) {
						t.Errorf("%s listens on %s, reachable from the network", proc, l)
					}
				}
			}
			if s.gw != nil {
				checkGatewayCreate(t, s)
			}
			return nil
		}})
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	text := out.String()
	summary := regexp.MustCompile(`= (\d+) chunks, (\d+) tokens, \d+/\d+ facets, (\d+) near-copies, \d+ paraphrases\s+= (\d+) chunks, (\d+) tokens, \d+/\d+ facets, (\d+) near-copies, \d+ paraphrases`)
	rows := summary.FindAllStringSubmatch(text, -1)
	if len(rows) != len(corpus.Queries()) {
		t.Fatalf("%d summaries for %d queries:\n%s", len(rows), len(corpus.Queries()), text)
	}
	for _, r := range rows {
		if r[6] != "0" {
			t.Errorf("diverse selection kept %s near-copies: %q", r[6], r[0])
		}
		for _, tok := range []string{r[2], r[5]} {
			if n, _ := strconv.Atoi(tok); n > 600 {
				t.Errorf("budget of 600 tokens exceeded: %q", r[0])
			}
		}
	}
	// What the LLM receives through generate (generative-dummy's echo): the
	// chunks of each column, none of diverse selection's tokens on near-copies.
	prompts := regexp.MustCompile(`> LLM prompt: (\d+) chunks, (\d+) tokens, (\d+) on near-copies\s+> LLM prompt: (\d+) chunks, (\d+) tokens, (\d+) on near-copies`)
	lines := prompts.FindAllStringSubmatch(text, -1)
	if len(lines) != len(rows) {
		t.Fatalf("%d LLM prompt lines for %d queries:\n%s", len(lines), len(rows), text)
	}
	topkWaste := 0
	for i, l := range lines {
		if l[1] != rows[i][1] || l[4] != rows[i][4] {
			t.Errorf("query %d: the prompts hold %s and %s chunks, the selections %s and %s", i, l[1], l[4], rows[i][1], rows[i][4])
		}
		for _, c := range []struct{ prompt, chunks string }{{l[2], rows[i][2]}, {l[5], rows[i][5]}} {
			if p, _ := strconv.Atoi(c.prompt); p <= mustAtoi(c.chunks) {
				t.Errorf("query %d: a prompt of %s tokens for chunks of %s tokens and the task", i, c.prompt, c.chunks)
			}
		}
		if l[6] != "0" {
			t.Errorf("query %d: diverse selection's prompt spends %s tokens on near-copies", i, l[6])
		}
		topkWaste += mustAtoi(l[3])
	}
	if topkWaste == 0 {
		t.Errorf("top-k's prompts spend no tokens on near-copies: the demo shows no difference")
	}
	// The listeners were checked while the servers ran: HTTP, gRPC, the
	// cluster's gossip (TCP and UDP), data and Raft ports, the embedder and
	// the gateway.
	if n := len(listeners["weaviate"]); n < 6 {
		t.Errorf("Weaviate listens on %d sockets, want HTTP, gRPC and the cluster's ports: %v", n, listeners["weaviate"])
	}
	if len(listeners["embedder"]) == 0 {
		t.Error("no listener of the embedder found")
	}
	if gateway && len(listeners["gateway"]) != 2 {
		t.Errorf("the gateway listens on %v, want its HTTP and gRPC ports", listeners["gateway"])
	}
	if !strings.Contains(text, "stopping the servers") {
		t.Errorf("the demo did not stop its servers:\n%s", text)
	}
	// the comparisons and the summary, without the addresses
	i, j := strings.Index(text, "Q: "), strings.Index(text, legend)
	if i < 0 || j < i {
		t.Fatalf("no comparisons and legend in:\n%s", text)
	}
	return text[i:j]
}

// checkGatewayCreate: make run-gateway's collection got its selection
// defaults from its create through the gateway, as the README's do - none
// from the gateway's config file; the gateway reads them back in
// moduleConfig, stock Weaviate holds no moduleConfig of the module.
func checkGatewayCreate(t *testing.T, s *servers) {
	t.Helper()
	st, err := s.gw.Status()
	if err != nil {
		t.Fatal(err)
	}
	// the status shows the config file's contents: {"collections": {...}}
	if named, _ := st.Collections["collections"].(map[string]any); len(named) != 0 {
		t.Errorf("the gateway's config file names %v: the demo's defaults belong in its create", named)
	}
	for _, tc := range []struct {
		name, url string
		want      any // the reranker's tokenBudget read back (nil: no entry)
	}{
		{"through the gateway", s.httpURL, float64(600)},
		{"stock Weaviate behind it", s.up.HTTPURL, nil},
	} {
		var class struct {
			ModuleConfig map[string]map[string]any `json:"moduleConfig"`
		}
		resp, err := http.Get(tc.url + "/v1/schema/" + Class)
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(resp.Body).Decode(&class)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := class.ModuleConfig["reranker-diverse-select"]["tokenBudget"]; got != tc.want {
			t.Errorf("%s: reranker-diverse-select's tokenBudget %v, want %v (moduleConfig %v)", tc.name, got, tc.want, class.ModuleConfig)
		}
	}
}

// figureLines are the query and figure lines of the demo's output.
func figureLines(text string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "Q: ") || strings.HasPrefix(l, "= ") || strings.HasPrefix(l, "> ") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func mustAtoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(err)
	}
	return n
}

func TestEmbedderMode(t *testing.T) {
	dir := t.TempDir()
	python := filepath.Join(dir, "python")
	glove := filepath.Join(dir, "glove")
	require.NoError(t, os.WriteFile(python, nil, 0o755))
	require.NoError(t, os.MkdirAll(glove, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(glove, "words.txt"), nil, 0o644))
	for _, tc := range []struct {
		name     string
		o        options
		wantMode string // the -mode flag; "" when an error is wanted
		wantErr  string
	}{
		{"auto takes the neural mode when the venv is there", options{embedder: "auto", python: python, gloveDir: glove}, "neural", ""},
		{"auto falls back to glove", options{embedder: "auto", python: filepath.Join(dir, "none"), gloveDir: glove}, "glove", ""},
		{"auto falls back to hash", options{embedder: "auto", python: filepath.Join(dir, "none")}, "hash", ""},
		{"no flags at all is hash", options{}, "hash", ""},
		{"a folder is not a Python", options{embedder: "auto", python: dir}, "hash", ""},
		{"neural without the venv", options{embedder: "neural", python: filepath.Join(dir, "none")}, "", "run `make venv`"},
		{"glove without files", options{embedder: "glove", gloveDir: dir}, "", "no GloVe files"},
		{"unknown", options{embedder: "bert"}, "", `-embedder "bert": unknown mode (allowed: auto, neural, glove, hash)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args, _, err := embedderMode(tc.o)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.wantMode, args[1])
		})
	}
}
