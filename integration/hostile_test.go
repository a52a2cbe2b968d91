package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/connection"
	"github.com/weaviate/weaviate/entities/models"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"

	"github.com/diverse-select/diverse-select/integration/stack"
	"github.com/diverse-select/diverse-select/internal/corpus"
)

// The hostile-input suite (docs/reliability.md, "Threat model"): queries an
// attacker could send - through an application that passes user text on, or
// as a query author - over GraphQL and over gRPC with the official
// TypeScript and Go clients, at sizes up to what Weaviate itself accepts.
// Each case asserts that the server lives on and that the query is answered
// or refused with the limit it broke named; the time and the server's RSS
// are measured and printed (make hostile), never asserted.
//
// The suite starts a server of its own, with the module's default limits,
// so its memory is this suite's alone. DIVERSE_SELECT_HOSTILE_SERVER names
// another server binary in bin/ to run the same cases against (an older
// build, for the before-and-after figures).

// hostileClass reads the rerank query as text (the default);
// hostileInText opts in to settings at its start (rerankQuerySyntax).
const (
	hostileClass  = "Hostile"
	hostileInText = "HostileInText"
)

// hostileCase is one hostile query and what the server must do with it.
type hostileCase struct {
	name, route string
	// refused names the limit (its variable, or the error's words) the
	// server must refuse the query with; "" = it must be answered.
	refused string
	run     func(h *hostileStack) (n int, err error)
}

func hostileCases() []hostileCase {
	brackets := func(n int) string { return "diverseSelect(strategy: " + strings.Repeat("[", n) + "): solar" }
	words := func(n int) string {
		var b strings.Builder
		for i := 0; b.Len() < n; i++ {
			fmt.Fprintf(&b, "w%d ", i) // distinct words
		}
		return b.String()[:n]
	}
	repeated := func(n int, s string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = s
		}
		return out
	}
	distinct := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = "p" + strconv.Itoa(i)
		}
		return out
	}
	return []hostileCase{
		// The rerank query is text unless the collection opts in to in-text settings (rerankQuerySyntax):
		// on Hostile a question that starts like settings is a question, and a long one is refused by size.
		{name: "question: settings 1M brackets deep", route: "gRPC (TypeScript client)", refused: "DIVERSE_SELECT_MAX_QUERY_BYTES",
			run: func(h *hostileStack) (int, error) { return h.typescript(hostileClass, "brackets", 1_000_000) }},
		{name: "question of 16 MB", route: "gRPC (TypeScript client)", refused: "DIVERSE_SELECT_MAX_QUERY_BYTES",
			run: func(h *hostileStack) (int, error) { return h.typescript(hostileClass, "words", 16<<20) }},
		{name: "question of 10,000 distinct words", route: "gRPC (Go client)", refused: "DIVERSE_SELECT_MAX_QUERY_TERMS",
			run: func(h *hostileStack) (int, error) { return h.rerank(hostileClass, "body", words(16000)) }},
		{name: "rerank property with 1 MB of settings", route: "gRPC (Go client)", refused: "at most 4096 bytes",
			run: func(h *hostileStack) (int, error) {
				return h.rerank(hostileClass, "body|diverseSelect.v1|{\"order\":\""+strings.Repeat("x", 1<<20)+"\"}", "solar")
			}},
		// On HostileInText (rerankQuerySyntax: true) the settings are parsed, within their limits.
		{name: "in-text settings 1M brackets deep", route: "gRPC (TypeScript client)", refused: "DIVERSE_SELECT_MAX_SETTINGS_DEPTH",
			run: func(h *hostileStack) (int, error) { return h.typescript(hostileInText, "brackets", 1_000_000) }},
		{name: "in-text settings 16M brackets deep", route: "gRPC (TypeScript client)", refused: "DIVERSE_SELECT_MAX_SETTINGS_DEPTH",
			run: func(h *hostileStack) (int, error) { return h.typescript(hostileInText, "brackets", 16_000_000) }},
		{name: "in-text settings 64M brackets deep", route: "gRPC (Go client)", refused: "DIVERSE_SELECT_MAX_SETTINGS_DEPTH",
			run: func(h *hostileStack) (int, error) { return h.rerank(hostileInText, "body", brackets(64_000_000)) }},
		{name: "in-text settings of 1 MB", route: "gRPC (Go client)", refused: "DIVERSE_SELECT_MAX_SETTINGS_BYTES",
			run: func(h *hostileStack) (int, error) {
				return h.rerank(hostileInText, "body", `diverseSelect(order: "`+strings.Repeat("x", 1<<20)+`"): solar`)
			}},
		{name: "in-text settings unclosed, 16 MB", route: "gRPC (Go client)", refused: "DIVERSE_SELECT_MAX_SETTINGS_BYTES",
			run: func(h *hostileStack) (int, error) {
				return h.rerank(hostileInText, "body", "diverseSelect("+strings.Repeat("a: 1 ", 16<<20/5))
			}},
		{name: "extraTextProperties: body x 20,000", route: "GraphQL argument",
			run: func(h *hostileStack) (int, error) {
				return h.graphql(map[string]any{"candidates": 100, "textProperty": "body", "extraTextProperties": repeated(20000, "title")})
			}},
		{name: "extraTextProperties: body x 1,000,000", route: "GraphQL argument",
			run: func(h *hostileStack) (int, error) {
				return h.graphql(map[string]any{"candidates": 100, "textProperty": "body", "extraTextProperties": repeated(1_000_000, "title")})
			}},
		{name: "extraTextProperties: 20,000 distinct names", route: "GraphQL argument", refused: "DIVERSE_SELECT_MAX_LIST_LENGTH",
			run: func(h *hostileStack) (int, error) {
				return h.graphql(map[string]any{"candidates": 100, "extraTextProperties": distinct(20000)})
			}},
		{name: "ngram, query of 100,000 distinct words", route: "GraphQL argument", refused: "DIVERSE_SELECT_MAX_QUERY_BYTES",
			run: func(h *hostileStack) (int, error) {
				return h.graphql(map[string]any{"strategy": "ngram", "query": words(1 << 20)})
			}},
		{name: "ngram, query of 3,000 distinct words", route: "GraphQL argument", refused: "DIVERSE_SELECT_MAX_QUERY_TERMS",
			run: func(h *hostileStack) (int, error) {
				return h.graphql(map[string]any{"strategy": "ngram", "query": words(16000)})
			}},
		{name: "evidence cards, query of 3,000 distinct words", route: "GraphQL argument", refused: "DIVERSE_SELECT_MAX_QUERY_TERMS",
			run: func(h *hostileStack) (int, error) {
				return h.graphql(map[string]any{"evidence": "cards", "query": words(16000)})
			}},
		{name: "nearText concept of 16 MB", route: "GraphQL argument", refused: "DIVERSE_SELECT_MAX_QUERY_BYTES",
			run: func(h *hostileStack) (int, error) {
				return h.graphqlConcept(words(16<<20), map[string]any{"strategy": "mmr"})
			}},
		{name: "strategy name of 16 MB", route: "GraphQL argument", refused: "DIVERSE_SELECT_MAX_QUERY_BYTES",
			run: func(h *hostileStack) (int, error) {
				return h.graphql(map[string]any{"strategy": strings.Repeat("x", 16<<20)})
			}},
		{name: "candidates and widenTo of 2^53", route: "GraphQL argument", refused: "DIVERSE_SELECT_MAX_CANDIDATES",
			run: func(h *hostileStack) (int, error) {
				return h.graphql(map[string]any{"candidates": 1 << 53, "widenTo": 1 << 53})
			}},
	}
}

// TestHostileInput runs every hostile case against a server of its own and
// prints each case's time and the server's RSS.
func TestHostileInput(t *testing.T) {
	h := startHostileStack(t)
	start := h.rss(t)
	t.Logf("%-46s %-26s %-10s %9s %9s  %s", "case", "route", "outcome", "time", "RSS MiB", "answer")
	for _, c := range hostileCases() {
		t.Run(c.name, func(t *testing.T) { h.runCase(t, c) })
	}
	// The Go runtime returns freed memory to the system gradually: the
	// lowest RSS of the next 30 s is what the suite left behind.
	end := h.rss(t)
	for range 30 {
		time.Sleep(time.Second)
		end = min(end, h.rss(t))
	}
	t.Logf("server RSS: %d MiB at the start, %d MiB after the suite (the lowest of the 30 s after it)", start, end)
}

// lastPart is the end of s, at most n bytes: a refusal's cause is at the end
// of the error chain.
func lastPart(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

// runCase runs one case, logs its outcome, time and the server's RSS, and
// checks the outcome and that a good query is still answered.
func (h *hostileStack) runCase(t *testing.T, c hostileCase) {
	before := h.rss(t)
	began := time.Now()
	n, err := c.run(h)
	took := time.Since(began)
	alive := h.s.Alive()
	after := h.rss(t)
	outcome := "answered"
	answer := fmt.Sprintf("%d objects", n)
	if err != nil {
		outcome, answer = "refused", lastPart(firstLine(err.Error()), 150)
	}
	if !alive {
		outcome = "CRASHED"
	}
	t.Logf("%-46s %-26s %-10s %9s %4d->%-4d  %s", c.name, c.route, outcome, took.Round(time.Millisecond), before, after, answer)
	switch {
	case !alive:
		t.Errorf("the server died")
		h.restart(t)
		return
	case c.refused == "" && err != nil:
		t.Errorf("refused (%v), want an answer", err)
	case c.refused == "" && n == 0:
		t.Errorf("answered with no object")
	case c.refused != "" && (err == nil || !strings.Contains(err.Error(), c.refused)):
		t.Errorf("%v, want a refusal naming %s", err, c.refused)
	}
	if n, err := h.graphql(map[string]any{"strategy": "topk", "candidates": 10}); err != nil || n == 0 {
		t.Errorf("afterwards a good query gets %d objects, %v", n, err)
	}
}

// hostileStack is the suite's own server and clients.
type hostileStack struct {
	t      *testing.T
	s      *stack.Stack
	client *weaviate.Client
	grpc   *connection.GrpcClient
}

func startHostileStack(t *testing.T) *hostileStack {
	t.Helper()
	s, wc, _ := startOwnStack(t, "hostile", stack.Options{Server: os.Getenv("DIVERSE_SELECT_HOSTILE_SERVER"), DataDir: t.TempDir()})
	t.Cleanup(s.Stop)
	h := &hostileStack{t: t, s: s, client: wc}
	h.connectGRPC(t)
	restore := useStack(s, h.client)
	t.Cleanup(restore)
	props := []*models.Property{{Name: "body", DataType: []string{"text"}}, {Name: "title", DataType: []string{"text"}},
		{Name: "grp", DataType: []string{"int"}}}
	var docs []Doc
	for i, ch := range corpus.Chunks()[:40] {
		docs = append(docs, Doc{Key: strconv.Itoa(i), Body: ch.Body, Group: i, Props: map[string]any{"title": ch.Title}})
	}
	for class, cfg := range map[string]map[string]any{hostileClass: {}, hostileInText: {"rerankQuerySyntax": true}} {
		createClass(t, &models.Class{Class: class, Vectorizer: "text2vec-transformers", ModuleConfig: withReranker(cfg), Properties: props})
		importDocs(t, class, docs)
	}
	return h
}

// connectGRPC opens the Go client's gRPC connection to the server (again
// after a restart: the HTTP client needs nothing, the ports stay).
func (h *hostileStack) connectGRPC(t *testing.T) {
	var err error
	if h.grpc, err = connection.NewGrpcClient(h.s.GRPCAddr, false, nil, nil, 2*time.Minute, 30*time.Second); err != nil {
		t.Fatal(err)
	}
}

// restart starts a server that died again, so the remaining cases run.
func (h *hostileStack) restart(t *testing.T) {
	c, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := h.s.Restart(c); err != nil {
		t.Fatalf("restart after a crash: %v", err)
	}
	h.connectGRPC(t)
}

// rss is the server's resident memory in MiB (0 when it is not running).
func (h *hostileStack) rss(t *testing.T) int {
	pid := h.s.ServerPID()
	if pid == 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return kb / 1024
		}
	}
	return 0
}

// graphql sends a nearText Get with the diverseSelect argument ds (as a
// GraphQL variable: the values reach the module as they are).
func (h *hostileStack) graphql(ds map[string]any) (int, error) {
	return h.graphqlConcept("solar panels", ds)
}

func (h *hostileStack) graphqlConcept(concept string, ds map[string]any) (int, error) {
	q := `query($c: [String]!, $ds: ` + hostileClass + `DiverseSelectInpObj) { Get { ` + hostileClass +
		`(nearText: {concepts: $c}, limit: 10, diverseSelect: $ds) { body } } }`
	res := graphql(h.t, q, map[string]any{"c": []string{concept}, "ds": ds})
	if len(res.Errors) > 0 {
		return 0, fmt.Errorf("%s", res.errText())
	}
	return len(res.Data.Get[hostileClass]), nil
}

// rerank sends a gRPC nearText search on class reranked with the rerank
// property and query q through the Go client's gRPC connection.
func (h *hostileStack) rerank(class, property, q string) (int, error) {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	reply, err := h.grpc.Search(c, &pb.SearchRequest{
		Collection:  class,
		Limit:       20,
		NearText:    &pb.NearTextSearch{Query: []string{"solar panels"}},
		Rerank:      &pb.Rerank{Property: property, Query: &q},
		Uses_123Api: true, Uses_125Api: true, Uses_127Api: true,
	})
	if err != nil {
		return 0, err
	}
	return len(reply.Results), nil
}

// typescript runs ts/hostile.mjs: one query of kind and size on class
// through the official TypeScript client.
func (h *hostileStack) typescript(class, kind string, size int) (int, error) {
	c, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err := nodeCommand(h.t, c, []string{"HOSTILE_COLLECTION=" + class, "HOSTILE_KIND=" + kind,
		"HOSTILE_SIZE=" + strconv.Itoa(size)}, "hostile.mjs").Output()
	if err != nil {
		h.t.Fatalf("node hostile.mjs: %v\n%s", err, out)
	}
	var res struct {
		OK    bool
		N     int
		Error string
	}
	if err := json.Unmarshal(out, &res); err != nil {
		h.t.Fatalf("node hostile.mjs printed %q: %v", out, err)
	}
	if !res.OK {
		return 0, fmt.Errorf("%s", res.Error)
	}
	return res.N, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
