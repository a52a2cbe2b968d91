package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/connection"
	"github.com/weaviate/weaviate/entities/models"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"

	"github.com/diverse-select/diverse-select/integration/stack"
)

// faultSelectTime is the faults server's DIVERSE_SELECT_MAX_SELECT_TIME.
const faultSelectTime = 3 * time.Second

// faultServer is a stack running bin/weaviate-server-faults (make
// weaviate-faults): the real server plus the misbehaving strategies of
// internal/faults. Its log is kept to check what the module logged.
type faultServer struct {
	*stack.Stack
	client  *weaviate.Client
	logPath string
}

func startFaultServer(t *testing.T) *faultServer {
	t.Helper()
	root, err := stack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, "bin")
	if _, err := os.Stat(filepath.Join(bin, "weaviate-server-faults")); err != nil {
		t.Fatalf("bin/weaviate-server-faults is missing: run `make weaviate-faults` (make test does)")
	}
	logFile, err := os.Create(filepath.Join(t.TempDir(), "faults.log"))
	if err != nil {
		t.Fatal(err)
	}
	c, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := stack.Start(c, stack.Options{BinDir: bin, Server: "weaviate-server-faults", DataDir: t.TempDir(), Log: logFile,
		Env: map[string]string{"DIVERSE_SELECT_MAX_SELECT_TIME": faultSelectTime.String()}})
	if err != nil {
		t.Fatalf("start the faults server: %v\n%s", err, tail(logFile.Name(), 30))
	}
	fs := &faultServer{Stack: s, logPath: logFile.Name()}
	t.Cleanup(func() {
		alive := s.Alive()
		s.Stop()
		logFile.Close()
		if !alive {
			t.Errorf("the faults server died; its log:\n%s", tail(fs.logPath, 40))
		}
	})
	fs.client, err = weaviate.NewClient(weaviate.Config{Host: fmt.Sprintf("127.0.0.1:%d", s.HTTPPort), Scheme: "http"})
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// gql posts a query and returns the decoded response.
func (fs *faultServer) gql(t *testing.T, c context.Context, query string) (gqlResult, error) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"query": query})
	req, _ := http.NewRequestWithContext(c, http.MethodPost, fs.HTTPURL+"/v1/graphql", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return gqlResult{}, err
	}
	defer resp.Body.Close()
	var out gqlResult
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("undecodable GraphQL response (status %d): %v", resp.StatusCode, err)
	}
	return out, nil
}

// mustFail runs a query that must fail and returns its error text.
func (fs *faultServer) mustFail(t *testing.T, query string) string {
	t.Helper()
	res, err := fs.gql(t, ctx(t), query)
	if err != nil {
		t.Fatalf("POST /v1/graphql: %v (server alive: %v)", err, fs.Alive())
	}
	if len(res.Errors) == 0 {
		t.Fatalf("query succeeded, want an error: %s", query)
	}
	return res.errText()
}

// serving checks the process runs and answers a good diverseSelect query.
func (fs *faultServer) serving(t *testing.T) {
	t.Helper()
	if !fs.Alive() {
		t.Fatalf("the faults server has exited; log:\n%s", tail(fs.logPath, 40))
	}
	res, err := fs.gql(t, ctx(t), sel("Faulty", faultNear(8), `strategy: "mmr", tokenBudget: 60`, "body"))
	if err != nil || len(res.Errors) > 0 || len(res.Data.Get["Faulty"]) == 0 {
		t.Fatalf("the server no longer answers a good query: %v %s", err, res.errText())
	}
}

// waitLog waits until a line of the server log contains every part.
func (fs *faultServer) waitLog(t *testing.T, parts ...string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(fs.logPath)
		for _, l := range strings.Split(string(b), "\n") {
			ok := true
			for _, p := range parts {
				ok = ok && strings.Contains(l, p)
			}
			if ok {
				return l
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no server log line with %q; last lines:\n%s", parts, tail(fs.logPath, 20))
	return ""
}

func faultNear(limit int) string {
	return fmt.Sprintf("nearVector: {vector: %s}, limit: %d", vecLiteral(faultVector(0)), limit)
}

func faultVector(seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 7))
	v := make([]float32, 16)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

func vecLiteral(v []float32) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return "[" + strings.Join(s, ",") + "]"
}

// importFaulty creates class with explicit vectors and 20 objects.
func (fs *faultServer) importFaulty(t *testing.T, class string, moduleConfig map[string]any) {
	t.Helper()
	if err := fs.client.Schema().ClassCreator().WithClass(&models.Class{Class: class, Vectorizer: "none",
		Properties: bodyProps(), ModuleConfig: moduleConfig}).Do(ctx(t)); err != nil {
		t.Fatalf("create %s: %v", class, err)
	}
	objs := make([]*models.Object, 20)
	for i := range objs {
		objs[i] = &models.Object{Class: class, ID: strfmt.UUID(uuidOf(class, fmt.Sprint(i))), Vector: faultVector(uint64(i + 1)),
			Properties: map[string]any{"body": fmt.Sprintf("fact %d about statins and the liver", i), "ntok": 10 + i%5}}
	}
	res, err := fs.client.Batch().ObjectsBatcher().WithObjects(objs...).Do(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Result != nil && r.Result.Errors != nil {
			t.Fatalf("import: %v", r.Result.Errors.Error[0].Message)
		}
	}
}

// TestFaults runs misbehaving strategies inside the real server: a panic in
// a strategy, in building a strategy (the selection stage,
// class validation), non-finite figures, an invalid selection, and a
// selection that runs until stopped by the time cap, a disconnecting HTTP
// client or a gRPC deadline. Each gives a GraphQL (or gRPC, or REST) error
// naming diverseSelect or a valid result, the panics are logged with their
// stack, and the server keeps serving.
func TestFaults(t *testing.T) {
	fs := startFaultServer(t)
	fs.importFaulty(t, "Faulty", nil)
	fs.serving(t)

	type tc struct {
		name, diverse string
		field         bool
		want          []string
		log           []string // parts of one log line
	}
	for _, c := range []tc{
		{name: "strategy panics", diverse: `strategy: "fault-panic"`,
			want: []string{"diverseSelect", "internal error", `"fault-panic"`, "injected panic in Select"},
			log:  []string{"panic recovered", "injected panic in Select", "stack", "faults.init"}},
		{name: "strategy panics, field form", diverse: `strategy: "fault-panic"`, field: true,
			want: []string{"diverseSelect", "internal error", "injected panic in Select"}},
		// A query's settings are resolved once, in the selection stage, on both forms.
		{name: "strategy construction panics in the stage, argument form", diverse: `strategy: "fault-panic-new"`,
			want: []string{"diverseSelect", "internal error in selection stage", "injected panic in New"},
			log:  []string{"panic recovered", "selection stage", "stack", "SelectResults"}},
		{name: "strategy construction panics in the stage, field form", diverse: `strategy: "fault-panic-new"`, field: true,
			want: []string{"diverseSelect", "internal error in selection stage", "injected panic in New"},
			log:  []string{"panic recovered", "selection stage", "stack", "SelectResults"}},
		{name: "invalid selection", diverse: `strategy: "fault-duplicate"`,
			want: []string{"diverseSelect", `"fault-duplicate"`, "index 0 selected twice"}},
		{name: "selection over the time cap", diverse: `strategy: "fault-slow"`,
			want: []string{"diverseSelect", `"fault-slow"`, "DIVERSE_SELECT_MAX_SELECT_TIME", faultSelectTime.String()},
			log:  []string{"selection cancelled", "Faulty", `"timeCap":true`, "deadline exceeded"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := sel("Faulty", faultNear(10), c.diverse, "body")
			if c.field {
				q = field("Faulty", faultNear(10), c.diverse, "body")
			}
			msg := fs.mustFail(t, q)
			t.Logf("error: %.300s", msg)
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not mention %q", msg, w)
				}
			}
			if strings.Contains(msg, "goroutine ") {
				t.Errorf("error sends a stack trace to the client: %q", msg)
			}
			if c.log != nil {
				fs.waitLog(t, c.log...)
			}
			fs.serving(t)
		})
	}

	t.Run("non-finite figures give a valid result", func(t *testing.T) {
		res, err := fs.gql(t, ctx(t), sel("Faulty", faultNear(10), `strategy: "fault-nan", tokenBudget: 100`, "body"))
		if err != nil || len(res.Errors) > 0 {
			t.Fatalf("query failed: %v %s", err, res.errText())
		}
		hits := res.Data.Get["Faulty"]
		if len(hits) != 1 {
			t.Fatalf("%d hits, want the 1 the strategy selected", len(hits))
		}
		ds := hits[0]["_additional"].(map[string]any)["diverseSelect"].(map[string]any)
		for _, k := range []string{"gain", "relevance", "redundancy", "objective"} {
			if v, ok := ds[k].(float64); !ok || v != 0 {
				t.Errorf("%s = %v, want 0 for a non-finite figure", k, ds[k])
			}
		}
		fs.serving(t)
	})

	t.Run("class config whose strategy panics when built", func(t *testing.T) {
		// Weaviate validates module configs of classes with a vectorizer.
		mc := transformers()
		mc["diverse-select"] = map[string]any{"strategy": "fault-panic-new"}
		err := fs.client.Schema().ClassCreator().WithClass(&models.Class{Class: "FaultyConfig", Vectorizer: "text2vec-transformers",
			Properties: bodyProps(), ModuleConfig: mc}).Do(ctx(t))
		if err == nil || !strings.Contains(err.Error(), "internal error in class config validation") {
			t.Fatalf("class created or wrong error: %v", err)
		}
		fs.waitLog(t, "panic recovered", "class config validation", "stack")
		fs.serving(t)
	})

	t.Run("a disconnecting client cancels the selection", func(t *testing.T) {
		c, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
		defer cancel()
		_, err := fs.gql(t, c, sel("Faulty", faultNear(5), `strategy: "fault-slow", candidates: 11`, "body"))
		if err == nil {
			t.Fatal("the query returned before the client gave up")
		}
		line := fs.waitLog(t, "selection cancelled", `"candidates":11`, "context canceled")
		if !strings.Contains(line, `"timeCap":false`) {
			t.Errorf("cancelled by the cap, not by the client: %s", line)
		}
		fs.serving(t)
	})

	t.Run("a gRPC deadline cancels the rerank selection", func(t *testing.T) {
		fs.importFaulty(t, "FaultyRerank", map[string]any{rerankerName: map[string]any{"strategy": "fault-slow"}})
		conn, err := connection.NewGrpcClient(fs.GRPCAddr, false, nil, nil, time.Minute, 30*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		c, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		q := "statins"
		_, err = conn.Search(c, &pb.SearchRequest{Collection: "FaultyRerank", Limit: 13,
			NearVector:  &pb.NearVector{Vector: faultVector(0)},
			Rerank:      &pb.Rerank{Property: "body", Query: &q},
			Uses_123Api: true, Uses_125Api: true, Uses_127Api: true})
		if err == nil {
			t.Fatal("the search returned before its deadline")
		}
		line := fs.waitLog(t, "selection cancelled", "FaultyRerank", `"candidates":13`)
		if !strings.Contains(line, `"timeCap":false`) {
			t.Errorf("cancelled by the cap, not by the deadline: %s", line)
		}
		fs.serving(t)
	})
}
