// Package cluster tests diverse-select in a 3-node Weaviate cluster built by
// make build (integration/stack.StartCluster): a class with 3 shards and
// replication factor 3 holds the demo corpus (near-duplicates planted), and
// every node must return the same selection as a single-node server holding
// the same data - Weaviate merges the shards' candidates on the coordinating
// node and the module selects once from that list - also with one node
// stopped, at consistency level ONE.
package cluster

import (
	"context"
	"crypto/sha1"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/connection"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/data/replication"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/graphql"
	"github.com/weaviate/weaviate/entities/models"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"

	"github.com/diverse-select/diverse-select/integration/stack"
	"github.com/diverse-select/diverse-select/internal/corpus"
)

// Class is the demo corpus' class on both deployments.
const Class = "ClusterDemo"

var (
	cl     *stack.Cluster // three nodes
	single *stack.Stack   // one node, same data
	// logPath holds every process's output.
	logPath string
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	root, err := stack.RepoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "cluster:", err)
		return 1
	}
	bin := filepath.Join(root, "bin")
	for _, b := range []string{"weaviate-server", "embedder"} {
		if _, err := os.Stat(filepath.Join(bin, b)); err != nil {
			fmt.Fprintf(os.Stderr, "cluster: %s is missing: run `make build` first (`make test` does)\n", filepath.Join(bin, b))
			return 1
		}
	}
	logFile, err := os.CreateTemp("", "diverse-select-cluster-*.log")
	if err != nil {
		fmt.Fprintln(os.Stderr, "cluster:", err)
		return 1
	}
	logPath = logFile.Name()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	start := time.Now()
	var clErr, singleErr error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		cl, clErr = stack.StartCluster(ctx, stack.ClusterOptions{BinDir: bin, Log: logFile})
	}()
	go func() {
		defer wg.Done()
		single, singleErr = stack.Start(ctx, stack.Options{BinDir: bin, Log: logFile})
	}()
	wg.Wait()
	code := 1
	if clErr != nil || singleErr != nil {
		fmt.Fprintf(os.Stderr, "cluster: start: cluster %v, single node %v\nlog: %s\n", clErr, singleErr, logPath)
	} else {
		fmt.Fprintf(os.Stderr, "cluster: 3-node cluster and single node ready in %s\n", time.Since(start).Round(100*time.Millisecond))
		code = m.Run()
	}
	if cl != nil {
		cl.Stop()
	}
	if single != nil {
		single.Stop()
	}
	logFile.Close()
	if code == 0 {
		os.Remove(logPath)
	} else {
		fmt.Fprintf(os.Stderr, "cluster: processes' log: %s\n", logPath)
	}
	return code
}

// TestCluster runs in order: the cluster formed, the class is spread over
// it, every node selects as the single node does and returns the same
// pages, and still selects alike with one node stopped.
func TestCluster(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if !t.Run("formed", func(t *testing.T) { testFormed(ctx, t) }) {
		t.FailNow()
	}
	if !t.Run("import", func(t *testing.T) { testImport(ctx, t) }) {
		t.FailNow()
	}
	t.Run("same selection on every node", func(t *testing.T) {
		differs := 0
		for _, q := range queries() {
			want := selection(ctx, t, single.HTTPURL, q.query(""))
			// The selection is a real one: drawn from the retrieved pool, and
			// not just its head (checked over all queries below).
			top := topK(ctx, t, single.HTTPURL, q.text, 40)
			for _, id := range want {
				if !slices.Contains(top, id) {
					t.Errorf("%s selected %s, not among the 40 candidates", q.name, id)
				}
			}
			if !equal(want, top[:len(want)]) {
				differs++
			}
			for i, n := range cl.Nodes {
				if got := selection(ctx, t, n.HTTPURL, q.query("")); !equal(got, want) {
					t.Errorf("%s on %s selects %v, the single node %v", q.name, stack.NodeName(i), got, want)
				}
			}
		}
		for _, q := range corpus.Queries()[:2] {
			want := grpcSelection(ctx, t, single.GRPCAddr, q.Text, false)
			for i, n := range cl.Nodes {
				if got := grpcSelection(ctx, t, n.GRPCAddr, q.Text, false); !equal(got, want) {
					t.Errorf("%s over gRPC on %s selects %v, the single node %v", q.ID, stack.NodeName(i), got, want)
				}
			}
		}
		if differs == 0 {
			t.Error("every selection is the head of the nearText ranking: diverse selection did not run")
		}
		t.Logf("%d queries x 4 deployments; %d selections differ from the nearText head", len(queries()), differs)
	})
	t.Run("same pages on every node", func(t *testing.T) { testSamePages(ctx, t) })
	t.Run("one node stopped, consistency ONE", func(t *testing.T) {
		stopped := len(cl.Nodes) - 1
		// Stopped cleanly and, at the end, started again on its data, so
		// that TestNodeLoss finds the cluster whole.
		cl.Nodes[stopped].StopServer(false)
		defer func() {
			if err := cl.Nodes[stopped].Restart(ctx); err != nil {
				t.Errorf("restart %s: %v", stack.NodeName(stopped), err)
			} else if err := cl.WaitFormed(ctx, time.Minute); err != nil {
				t.Errorf("after restarting %s: %v", stack.NodeName(stopped), err)
			}
		}()
		if cl.Nodes[stopped].Alive() {
			t.Fatalf("%s still runs", stack.NodeName(stopped))
		}
		// The remaining nodes know it is gone.
		for deadline := time.Now().Add(30 * time.Second); ; {
			nodes, err := stack.Nodes(ctx, cl.Nodes[0].HTTPURL, "")
			if err == nil && !slices.ContainsFunc(nodes, func(n stack.NodeStatus) bool {
				return n.Name == stack.NodeName(stopped) && n.Status == "HEALTHY"
			}) {
				t.Logf("node1 lists %v", nodes)
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("node1 still lists %s as healthy: %v %v", stack.NodeName(stopped), nodes, err)
			}
			time.Sleep(200 * time.Millisecond)
		}
		for _, q := range queries() {
			want := selection(ctx, t, single.HTTPURL, q.query(""))
			for i, n := range cl.Nodes[:stopped] {
				got := eventually(ctx, t, n.HTTPURL, q.query("consistencyLevel: ONE"))
				if !equal(got, want) {
					t.Errorf("%s on %s with %s stopped selects %v, the single node %v", q.name,
						stack.NodeName(i), stack.NodeName(stopped), got, want)
				}
			}
		}
		for _, q := range corpus.Queries()[:2] {
			want := grpcSelection(ctx, t, single.GRPCAddr, q.Text, false)
			for i, n := range cl.Nodes[:stopped] {
				if got := grpcSelection(ctx, t, n.GRPCAddr, q.Text, true); !equal(got, want) {
					t.Errorf("%s over gRPC on %s with %s stopped selects %v, the single node %v", q.ID,
						stack.NodeName(i), stack.NodeName(stopped), got, want)
				}
			}
		}
	})
}

// testFormed: every node lists the three nodes, healthy.
func testFormed(ctx context.Context, t *testing.T) {
	if len(cl.Nodes) != 3 {
		t.Fatalf("%d nodes started, want 3", len(cl.Nodes))
	}
	for i, n := range cl.Nodes {
		nodes, err := stack.Nodes(ctx, n.HTTPURL, "")
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, s := range nodes {
			if s.Status == "HEALTHY" {
				names = append(names, s.Name)
			}
		}
		sort.Strings(names)
		if got := strings.Join(names, ","); got != "node1,node2,node3" {
			t.Errorf("%s sees healthy nodes %q, want node1,node2,node3", stack.NodeName(i), got)
		}
	}
}

// testImport creates the class (3 shards, every shard on every node) on the
// cluster and (1 shard) on the single node with the official Go client,
// imports the demo corpus into both at consistency ALL, and checks that each
// node holds the 3 shards and all the objects.
func testImport(ctx context.Context, t *testing.T) {
	chunks := corpus.Chunks()
	for _, target := range []struct {
		url           string
		shards, nodes int64
	}{{cl.Nodes[0].HTTPURL, 3, 3}, {single.HTTPURL, 1, 1}} {
		c := client(t, target.url)
		class := demoClass()
		class.ShardingConfig = map[string]any{"desiredCount": target.shards}
		class.ReplicationConfig = &models.ReplicationConfig{Factor: target.nodes}
		if err := c.Schema().ClassCreator().WithClass(class).Do(ctx); err != nil {
			t.Fatalf("create %s on %s: %v", Class, target.url, err)
		}
		objs := make([]*models.Object, len(chunks))
		for i, ch := range chunks {
			objs[i] = &models.Object{Class: Class, ID: uuidOf(ch.ID), Properties: map[string]any{
				"title": ch.Title, "body": ch.Body, "source": ch.Source, "chunkId": ch.ID, "dupGroup": ch.DupGroup,
			}}
		}
		resp, err := c.Batch().ObjectsBatcher().WithObjects(objs...).
			WithConsistencyLevel(replication.ConsistencyLevel.ALL).Do(ctx)
		if err != nil {
			t.Fatalf("import into %s: %v", target.url, err)
		}
		for _, r := range resp {
			if r.Result != nil && r.Result.Errors != nil && len(r.Result.Errors.Error) > 0 {
				t.Fatalf("import into %s: %s", target.url, r.Result.Errors.Error[0].Message)
			}
		}
	}
	// Replication factor 3 on 3 nodes: every node holds the 3 shards and a
	// replica of every object (read from that node alone).
	if msg := spread(ctx, t); msg != "" {
		t.Fatal(msg)
	}
	c := client(t, cl.Nodes[0].HTTPURL)
	for i := range cl.Nodes {
		missing := 0
		for _, ch := range chunks {
			objs, err := c.Data().ObjectsGetter().WithClassName(Class).WithID(uuidOf(ch.ID).String()).
				WithNodeName(stack.NodeName(i)).Do(ctx)
			if err != nil || len(objs) != 1 {
				missing++
			}
		}
		if missing > 0 {
			t.Errorf("%s lacks %d of the %d objects", stack.NodeName(i), missing, len(chunks))
		}
	}
	for i, n := range cl.Nodes {
		resp, err := client(t, n.HTTPURL).GraphQL().Aggregate().WithClassName(Class).
			WithFields(graphql.Field{Name: "meta", Fields: []graphql.Field{{Name: "count"}}}).Do(ctx)
		if err != nil || len(resp.Errors) > 0 {
			t.Fatalf("%s: aggregate: %v %v", stack.NodeName(i), err, resp)
		}
		if got := fmt.Sprint(resp.Data["Aggregate"]); !strings.Contains(got, fmt.Sprintf("count:%d]", len(chunks))) {
			t.Errorf("%s counts %s, want %d objects", stack.NodeName(i), got, len(chunks))
		}
	}
}

// spread returns "" when every node lists 3 nodes, each holding 3 shards of
// Class, or else what differs.
func spread(ctx context.Context, t *testing.T) string {
	for i, n := range cl.Nodes {
		nodes, err := stack.Nodes(ctx, n.HTTPURL, Class)
		if err != nil {
			t.Fatal(err)
		}
		if len(nodes) != len(cl.Nodes) {
			return fmt.Sprintf("%s lists %d nodes", stack.NodeName(i), len(nodes))
		}
		for _, s := range nodes {
			var shards []string
			for _, sh := range s.Shards {
				if sh.Class == Class {
					shards = append(shards, sh.Name)
				}
			}
			if len(shards) != 3 {
				return fmt.Sprintf("%s reports the shards %v of %s on %s, want 3", stack.NodeName(i), shards, Class, s.Name)
			}
		}
	}
	return ""
}

// demoClass: the demo corpus with text2vec-transformers on title, body and
// source (so that copies differing only in their URL have distinct vectors
// and no ties decide the candidate order), HNSW with ef above the corpus
// size (exact search, so that both deployments retrieve the same pool).
func demoClass() *models.Class {
	skip := map[string]any{"text2vec-transformers": map[string]any{"skip": true}}
	return &models.Class{
		Class:             Class,
		Vectorizer:        "text2vec-transformers",
		VectorIndexConfig: map[string]any{"ef": 512},
		ModuleConfig: map[string]any{
			"text2vec-transformers": map[string]any{"vectorizeClassName": false},
			"diverse-select": map[string]any{
				"textProperty": "body", "extraTextProperties": []string{"title"}, "sourceProperty": "source",
			},
			// The gRPC route: rerank on body, the default strategy under a budget.
			"reranker-diverse-select": map[string]any{
				"extraTextProperties": []string{"title"}, "sourceProperty": "source", "tokenBudget": 500,
			},
		},
		Properties: []*models.Property{
			{Name: "title", DataType: []string{"text"}},
			{Name: "body", DataType: []string{"text"}},
			{Name: "source", DataType: []string{"text"}},
			{Name: "chunkId", DataType: []string{"text"}, ModuleConfig: skip},
			{Name: "dupGroup", DataType: []string{"text"}, ModuleConfig: skip},
		},
	}
}

// query is one diverseSelect query, in either form.
type query struct {
	name, text string
	query      func(extra string) string
}

// queries: the demo's questions under the default strategy and two others,
// in both query forms.
func queries() []query {
	var out []query
	for _, q := range corpus.Queries()[:2] {
		for _, s := range []string{"", "mmr", "knapsack"} {
			strategy := ""
			label := "default"
			if s != "" {
				strategy, label = fmt.Sprintf(`strategy: %q, `, s), s
			}
			text := q.Text
			out = append(out,
				query{fmt.Sprintf("%s/%s/argument", q.ID, label), text, func(extra string) string {
					return fmt.Sprintf(`{ Get { %s(%snearText: {concepts: [%q]}, limit: 10, diverseSelect: {%stokenBudget: 500, candidates: 40}) {
						chunkId _additional { id diverseSelect { rank } } } } }`, Class, args(extra), text, strategy)
				}},
				query{fmt.Sprintf("%s/%s/field", q.ID, label), text, func(extra string) string {
					return fmt.Sprintf(`{ Get { %s(%snearText: {concepts: [%q]}, limit: 40) {
						chunkId _additional { id diverseSelect(%stokenBudget: 500) { rank } } } } }`, Class, args(extra), text, strategy)
				}})
		}
	}
	return out
}

// grpcSelection sends a gRPC nearText search of 40 candidates with rerank
// (the reranker-diverse-select route the official clients use) and returns
// the selected chunk ids; the module loads the text and vectors the search
// did not, from whichever nodes hold them.
func grpcSelection(ctx context.Context, t *testing.T, addr, text string, consistencyOne bool) []string {
	t.Helper()
	conn, err := connection.NewGrpcClient(addr, false, nil, nil, time.Minute, 30*time.Second)
	if err != nil {
		t.Fatalf("gRPC %s: %v", addr, err)
	}
	req := &pb.SearchRequest{
		Collection:  Class,
		Limit:       40,
		NearText:    &pb.NearTextSearch{Query: []string{text}},
		Rerank:      &pb.Rerank{Property: "body", Query: &text},
		Properties:  &pb.PropertiesRequest{NonRefProperties: []string{"chunkId"}},
		Uses_123Api: true, Uses_125Api: true, Uses_127Api: true,
	}
	if consistencyOne {
		one := pb.ConsistencyLevel_CONSISTENCY_LEVEL_ONE
		req.ConsistencyLevel = &one
	}
	reply, err := conn.Search(ctx, req)
	if err != nil {
		t.Fatalf("gRPC search on %s: %v", addr, err)
	}
	out := make([]string, len(reply.Results))
	for i, r := range reply.Results {
		out[i] = r.GetProperties().GetNonRefProps().GetFields()["chunkId"].GetTextValue()
	}
	if len(out) == 0 || len(out) == 40 {
		t.Fatalf("gRPC search on %s returned %d of 40 candidates: no selection", addr, len(out))
	}
	return out
}

// topK returns the chunk ids of a plain nearText search.
func topK(ctx context.Context, t *testing.T, url, text string, k int) []string {
	t.Helper()
	var hits []struct {
		ChunkID string `json:"chunkId"`
	}
	q := fmt.Sprintf(`{ Get { %s(nearText: {concepts: [%q]}, limit: %d) { chunkId } } }`, Class, text, k)
	if err := stack.QueryGet(ctx, url, Class, q, &hits); err != nil || len(hits) != k {
		t.Fatalf("nearText on %s: %v (%d hits)", url, err, len(hits))
	}
	out := make([]string, k)
	for i, h := range hits {
		out[i] = h.ChunkID
	}
	return out
}

func args(extra string) string {
	if extra == "" {
		return ""
	}
	return extra + ", "
}

// selection runs a query that must succeed and returns the selected chunk
// ids in the returned order.
func selection(ctx context.Context, t *testing.T, url, q string) []string {
	t.Helper()
	got, err := selectionErr(ctx, url, q)
	if err != nil {
		t.Fatalf("%s: %v\nquery: %s", url, err, q)
	}
	return got
}

func selectionErr(ctx context.Context, url, q string) ([]string, error) {
	var hits []struct {
		ChunkID string `json:"chunkId"`
	}
	if err := stack.QueryGet(ctx, url, Class, q, &hits); err != nil {
		return nil, err
	}
	if len(hits) == 0 {
		return nil, fmt.Errorf("empty selection")
	}
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ChunkID
	}
	return out, nil
}

// eventually retries a query while the cluster notices the stopped node
// (memberlist marks it dead within seconds; until then a request may be
// routed to it), then returns its selection.
func eventually(ctx context.Context, t *testing.T, url, q string) []string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for try := 1; ; try++ {
		got, err := selectionErr(ctx, url, q)
		if err == nil {
			if try > 1 {
				t.Logf("%s answered after %d tries", url, try)
			}
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s with a node stopped: %v\nquery: %s", url, err, q)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func equal(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") }

func client(t *testing.T, url string) *weaviate.Client {
	t.Helper()
	c, err := weaviate.NewClient(weaviate.Config{Host: strings.TrimPrefix(url, "http://"), Scheme: "http"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// uuidOf is a stable object id for a chunk, the same on both deployments.
func uuidOf(key string) strfmt.UUID {
	h := sha1.Sum([]byte(Class + "/" + key))
	h[6] = (h[6] & 0x0f) | 0x50
	h[8] = (h[8] & 0x3f) | 0x80
	return strfmt.UUID(fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16]))
}
