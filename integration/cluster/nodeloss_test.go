package cluster

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/connection"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/data/replication"
	"github.com/weaviate/weaviate/entities/models"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"

	"github.com/diverse-select/diverse-select/integration/expect"
	"github.com/diverse-select/diverse-select/integration/stack"
)

// Node loss under load: the classes and the timeline of TestNodeLoss.
const (
	lossClass  = "NodeLoss"       // queried: 3 shards, replication factor 3
	lossWrites = "NodeLossWrites" // imported into during the run, same layout
	lossDims   = 32
	lossDocs   = 240
	lossPool   = 40
	lossTopics = 24

	lossSteady   = 5 * time.Second  // load before the kill, all nodes
	lossDown     = 15 * time.Second // load with the killed node down
	lossAfter    = 10 * time.Second // load after the restarted node is back
	lossWindow   = 20 * time.Second // errors allowed this long after the kill and after the node is back
	lossMaxCalls = 50000            // bound on the requests of the run
	lossClients  = 6                // concurrent query clients
	lossWriters  = 2                // concurrent importers
)

// lossShape is one form and route of a diverseSelect query.
type lossShape struct {
	name  string
	args  map[string]any // diverseSelect arguments (GraphQL forms)
	gql   string         // the same as GraphQL syntax
	limit int            // top-level form: the query limit; 0: the limit is the pool
	form  string         // argument, field, rerank (GraphQL _additional { rerank }), grpc
}

// lossRerank is the class's reranker-diverse-select config (gRPC route and
// _additional { rerank }): the default strategy under a budget.
var lossRerank = map[string]any{"tokenBudget": 300}

var lossShapes = []lossShape{
	{name: "coverage/argument", args: map[string]any{"strategy": "coverage", "tokenBudget": 300}, gql: `strategy: "coverage", tokenBudget: 300`, limit: 12, form: "argument"},
	{name: "mmr/argument", args: map[string]any{"strategy": "mmr", "lambda": 0.5, "maxResults": 8}, gql: `strategy: "mmr", lambda: 0.5, maxResults: 8`, limit: 20, form: "argument"},
	{name: "knapsack/argument", args: map[string]any{"strategy": "knapsack", "tokenBudget": 300}, gql: `strategy: "knapsack", tokenBudget: 300`, limit: 20, form: "argument"},
	{name: "dpp/argument", args: map[string]any{"strategy": "dpp", "tokenBudget": 300}, gql: `strategy: "dpp", tokenBudget: 300`, limit: 20, form: "argument"},
	{name: "default/field", args: map[string]any{"tokenBudget": 250}, gql: `tokenBudget: 250`, form: "field"},
	{name: "ngram/field", args: map[string]any{"strategy": "ngram", "tokenBudget": 300}, gql: `strategy: "ngram", tokenBudget: 300`, form: "field"},
	{name: "facility/field", args: map[string]any{"strategy": "facility", "tokenBudget": 400}, gql: `strategy: "facility", tokenBudget: 400`, form: "field"},
	{name: "rerank/graphql", form: "rerank"},
	{name: "rerank/grpc", form: "grpc"},
}

// lossQuery is one distinct request and its offline selection.
type lossQuery struct {
	shape  lossShape
	vector []float32
	gql    string // GraphQL text (consistencyLevel ONE); empty for gRPC
	want   []string
}

// lossEvent is one finished request of the run.
type lossEvent struct {
	at    time.Duration // since the run started
	node  int
	write bool
	err   string
	wrong bool
}

// TestNodeLoss: queries of every form and route at consistency ONE and
// imports run against the 3-node cluster while one node is SIGKILLed and,
// after a while, restarted on its data. Every answer must equal the
// library's selection on the same candidates (0 wrong), errors are allowed
// only within lossWindow of the kill and of the node's return, and the
// restarted node answers every query as before.
func TestNodeLoss(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	// A cluster of its own, with ASYNC_INDEXING on: with Weaviate's default
	// (vectors indexed in the write path) a replica killed by SIGKILL comes
	// back with an empty vector index for the shards it received through
	// replication - its objects are there, every vector search on it finds
	// nothing (docs/reliability.md); with the indexing queue on disk it
	// comes back whole.
	logFile, err := os.CreateTemp("", "diverse-select-nodeloss-*.log")
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	lossCl, err = stack.StartCluster(ctx, stack.ClusterOptions{Log: logFile, Env: map[string]string{"ASYNC_INDEXING": "true"}})
	if err != nil {
		t.Fatalf("start the cluster: %v (log: %s)", err, logFile.Name())
	}
	defer func() {
		lossCl.Stop()
		if t.Failed() {
			t.Logf("processes' log: %s", logFile.Name())
		} else {
			os.Remove(logFile.Name())
		}
	}()
	queries := lossSetup(ctx, t)

	// Before: every node answers every query with the offline selection.
	for i := range lossCl.Nodes {
		for _, q := range queries {
			if err := lossAsk(ctx, i, q); err != nil {
				t.Fatalf("before the run, %s on %s: %v", q.shape.name, stack.NodeName(i), err)
			}
		}
	}

	victim := len(lossCl.Nodes) - 1
	r := newLossRun(len(lossCl.Nodes))
	runCtx, stopRun := context.WithCancel(ctx)
	var wg sync.WaitGroup
	r.start(runCtx, &wg, queries)

	time.Sleep(lossSteady)
	r.setLive(victim, false)
	tKill := r.since()
	lossCl.Nodes[victim].StopServer(true)
	time.Sleep(lossDown)
	tRestart := r.since()
	if err := lossCl.Nodes[victim].Restart(ctx); err != nil {
		stopRun()
		wg.Wait()
		t.Fatalf("restart %s: %v", stack.NodeName(victim), err)
	}
	tReady := r.since()
	if err := lossCl.WaitFormed(ctx, time.Minute); err == nil {
		err = lossIndexed(ctx, victim)
	}
	if err != nil {
		stopRun()
		wg.Wait()
		t.Fatalf("after the restart: %v", err)
	}
	tBack := r.since()
	r.setLive(victim, true)
	time.Sleep(lossAfter)
	stopRun()
	wg.Wait()
	tEnd := r.since()

	// Verdict.
	var queriesN, writesN, wrong int
	var errs []lossEvent
	perNode := make([]int, len(lossCl.Nodes))
	for _, e := range r.events {
		if e.write {
			writesN++
		} else {
			queriesN++
			perNode[e.node]++
		}
		if e.wrong {
			if wrong++; wrong <= 5 {
				t.Errorf("wrong selection at %s from %s: %s", e.at.Round(time.Millisecond), stack.NodeName(e.node), e.err)
			}
			continue
		}
		if e.err != "" {
			errs = append(errs, e)
		}
	}
	sort.Slice(errs, func(a, b int) bool { return errs[a].at < errs[b].at })
	t.Logf("%d queries (%d distinct: %d query vectors x %d forms and routes; per node %v) and %d import batches in %s; "+
		"%s SIGKILLed at %s, restarted at %s, ready at %s, cluster whole and its vectors indexed at %s",
		queriesN, len(queries), len(queries)/len(lossShapes), len(lossShapes), perNode, writesN, tEnd.Round(time.Second),
		stack.NodeName(victim), tKill.Round(time.Millisecond), tRestart.Round(time.Millisecond),
		tReady.Round(time.Millisecond), tBack.Round(time.Millisecond))
	t.Logf("wrong selections %d; errors %d: %s", wrong, len(errs), lossWindows(errs, tKill, tBack))
	for _, e := range errs {
		inKill := e.at >= tKill && e.at <= tKill+lossWindow
		inBack := e.at >= tBack && e.at <= tBack+lossWindow
		if !inKill && !inBack {
			t.Errorf("error outside the windows at %s (%s, write %v): %s", e.at.Round(time.Millisecond),
				stack.NodeName(e.node), e.write, e.err)
		}
	}
	if queriesN < len(queries) {
		t.Errorf("only %d queries ran", queriesN)
	}

	// After: the restarted node (and every other) answers every query with
	// the selection computed before the kill.
	failed := 0
	for i := range lossCl.Nodes {
		for _, q := range queries {
			if err := lossAsk(ctx, i, q); err != nil {
				failed++
				t.Errorf("after the restart, %s on %s: %v", q.shape.name, stack.NodeName(i), err)
			}
		}
	}
	if failed > 0 {
		t.Logf("objects of %s per shard and node, as each node reports them: %s", lossClass, lossShards(ctx))
	}
}

// lossIndexed waits until node i has indexed every vector of lossClass
// (ASYNC_INDEXING: its queue is empty), as a load balancer's readiness
// check should before it sends queries to a node that just started.
func lossIndexed(ctx context.Context, i int) error {
	deadline := time.Now().Add(time.Minute)
	for {
		nodes, err := stack.Nodes(ctx, lossCl.Nodes[i].HTTPURL, lossClass)
		if err == nil {
			err = fmt.Errorf("%s not listed", stack.NodeName(i))
			for _, n := range nodes {
				if n.Name != stack.NodeName(i) {
					continue
				}
				err = nil
				for _, sh := range n.Shards {
					if sh.Class == lossClass && sh.VectorQueueLength > 0 {
						err = fmt.Errorf("%s: %d vectors of shard %s wait for the index", n.Name, sh.VectorQueueLength, sh.Name)
					}
				}
			}
		}
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// lossShards lists, as each node reports them, the objects of lossClass in
// every node's shards (a diagnosis of wrong answers).
func lossShards(ctx context.Context) string {
	var b strings.Builder
	for i, n := range lossCl.Nodes {
		nodes, err := stack.Nodes(ctx, n.HTTPURL, lossClass)
		fmt.Fprintf(&b, "\n  %s sees:", stack.NodeName(i))
		if err != nil {
			fmt.Fprintf(&b, " %v", err)
			continue
		}
		for _, s := range nodes {
			fmt.Fprintf(&b, " %s %s", s.Name, s.Status)
			for _, sh := range s.Shards {
				fmt.Fprintf(&b, " [%s %d]", sh.Name, sh.ObjectCount)
			}
		}
	}
	return b.String()
}

// lossWindows describes when the errors came, relative to the kill and to
// the node's return.
func lossWindows(errs []lossEvent, tKill, tBack time.Duration) string {
	if len(errs) == 0 {
		return "none"
	}
	var afterKill, afterBack []lossEvent
	for _, e := range errs {
		if e.at >= tBack {
			afterBack = append(afterBack, e)
		} else {
			afterKill = append(afterKill, e)
		}
	}
	describe := func(label string, es []lossEvent, t0 time.Duration) string {
		if len(es) == 0 {
			return label + ": none"
		}
		writes := 0
		for _, e := range es {
			if e.write {
				writes++
			}
		}
		return fmt.Sprintf("%s: %d (%d import batches) from +%s to +%s, first %q", label, len(es), writes,
			(es[0].at - t0).Round(time.Millisecond), (es[len(es)-1].at - t0).Round(time.Millisecond), es[0].err)
	}
	return describe("after the kill", afterKill, tKill) + "; " + describe("after the return", afterBack, tBack)
}

// lossSetup creates both classes (3 shards, every shard on every node),
// imports the queried corpus at consistency ALL and computes the distinct
// queries' selections offline from candidates read on node1.
func lossSetup(ctx context.Context, t *testing.T) []lossQuery {
	t.Helper()
	c := client(t, lossCl.Nodes[0].HTTPURL)
	for _, name := range []string{lossClass, lossWrites} {
		class := &models.Class{Class: name, Vectorizer: "none",
			VectorIndexConfig: map[string]any{"ef": 512}, // exact search: every node retrieves the same pool
			ShardingConfig:    map[string]any{"desiredCount": 3},
			ReplicationConfig: &models.ReplicationConfig{Factor: 3},
			ModuleConfig: map[string]any{
				"diverse-select":          map[string]any{"textProperty": "body"},
				"reranker-diverse-select": lossRerank,
			},
			Properties: []*models.Property{{Name: "body", DataType: []string{"text"}}, {Name: "grp", DataType: []string{"int"}}},
		}
		if err := c.Schema().ClassCreator().WithClass(class).Do(ctx); err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
	}
	docs := lossCorpus(lossClass, lossDocs, 1)
	if err := lossImport(ctx, lossCl.Nodes[0].HTTPURL, docs, replication.ConsistencyLevel.ALL); err != nil {
		t.Fatal(err)
	}
	for i := range lossCl.Nodes {
		if err := lossIndexed(ctx, i); err != nil {
			t.Fatal(err)
		}
	}

	sel, err := expect.New()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 5))
	var out []lossQuery
	for range 8 {
		qv := docs[rng.IntN(len(docs))].Vector
		near := expect.NearVector(qv)
		cands, err := expect.Candidates(ctx, nil, lossCl.Nodes[0].HTTPURL, lossClass, "body", near, lossPool)
		if err != nil {
			t.Fatal(err)
		}
		for _, sh := range lossShapes {
			eq := expect.Query{Args: sh.args, Limit: sh.limit}
			if sh.form == "rerank" || sh.form == "grpc" {
				eq = expect.Query{Class: lossRerank}
			}
			want, err := sel.Select(ctx, cands, eq)
			if err != nil {
				t.Fatalf("%s: %v", sh.name, err)
			}
			if len(want) == 0 || len(want) == lossPool {
				t.Fatalf("%s selects %d of %d: no selection to check", sh.name, len(want), lossPool)
			}
			lq := lossQuery{shape: sh, vector: qv, want: want}
			switch sh.form {
			case "argument":
				lq.gql = fmt.Sprintf("{ Get { %s(consistencyLevel: ONE, %s, limit: %d, diverseSelect: {%s, candidates: %d}) { _additional { id } } } }",
					lossClass, near, sh.limit, sh.gql, lossPool)
			case "field":
				lq.gql = fmt.Sprintf("{ Get { %s(consistencyLevel: ONE, %s, limit: %d) { _additional { id diverseSelect(%s) { rank } } } } }",
					lossClass, near, lossPool, sh.gql)
			case "rerank":
				lq.gql = fmt.Sprintf(`{ Get { %s(consistencyLevel: ONE, %s, limit: %d) { _additional { id rerank(property: "body") { score } } } } }`,
					lossClass, near, lossPool)
			}
			out = append(out, lq)
		}
	}
	return out
}

// lossCorpus makes n objects of class in lossTopics topics: the objects of a
// topic share words and lie near the topic's direction (redundancy for the
// selection to remove).
func lossCorpus(class string, n int, seed uint64) []*models.Object {
	rng := rand.New(rand.NewPCG(seed, 17))
	center := func(topic int) []float64 {
		r := rand.New(rand.NewPCG(uint64(topic), 99))
		v := make([]float64, lossDims)
		for i := range v {
			v[i] = r.NormFloat64()
		}
		return v
	}
	out := make([]*models.Object, n)
	for i := range out {
		topic := rng.IntN(lossTopics)
		words := make([]string, 15+rng.IntN(50))
		for j := range words {
			if rng.IntN(2) == 0 {
				words[j] = fmt.Sprintf("t%dw%d", topic, rng.IntN(6))
			} else {
				words[j] = fmt.Sprintf("w%d", rng.IntN(400))
			}
		}
		c := center(topic)
		v := make([]float32, lossDims)
		for j := range v {
			v[j] = float32(c[j] + 0.6*rng.NormFloat64())
		}
		h := seed<<40 | uint64(i)
		out[i] = &models.Object{Class: class, ID: strfmt.UUID(fmt.Sprintf("%08x-0000-4000-8000-%012x", uint32(h>>32), h&0xffffffffffff)),
			Vector: v, Properties: map[string]any{"body": strings.Join(words, " ") + ".", "grp": topic}}
	}
	return out
}

func lossImport(ctx context.Context, url string, objs []*models.Object, level string) error {
	c, err := weaviate.NewClient(weaviate.Config{Host: strings.TrimPrefix(url, "http://"), Scheme: "http"})
	if err != nil {
		return err
	}
	res, err := c.Batch().ObjectsBatcher().WithObjects(objs...).WithConsistencyLevel(level).Do(ctx)
	if err != nil {
		return fmt.Errorf("import into %s on %s: %w", objs[0].Class, url, err)
	}
	for _, r := range res {
		if r.Result != nil && r.Result.Errors != nil && len(r.Result.Errors.Error) > 0 {
			return fmt.Errorf("import into %s on %s: %s", objs[0].Class, url, r.Result.Errors.Error[0].Message)
		}
	}
	return nil
}

// lossHTTP is the run's HTTP client: a short timeout, so a request to a
// node that died is an error in seconds, not a hang.
var lossHTTP = &http.Client{Timeout: 15 * time.Second}

// lossCl is TestNodeLoss's cluster.
var lossCl *stack.Cluster

// grpcConns holds one gRPC client per node, reconnecting by itself after
// the node's restart.
var (
	grpcMu    sync.Mutex
	grpcConns = map[string]*connection.GrpcClient{}
)

func grpcConn(addr string) (*connection.GrpcClient, error) {
	grpcMu.Lock()
	defer grpcMu.Unlock()
	if c, ok := grpcConns[addr]; ok {
		return c, nil
	}
	c, err := connection.NewGrpcClient(addr, false, nil, nil, 15*time.Second, 15*time.Second)
	if err != nil {
		return nil, err
	}
	grpcConns[addr] = c
	return c, nil
}

// errWrong marks an answer that differs from the offline selection.
type errWrong struct{ got, want []string }

func (e errWrong) Error() string { return fmt.Sprintf("selects %v, want %v", e.got, e.want) }

// lossAsk sends q to node i and compares the answer with q.want.
func lossAsk(ctx context.Context, i int, q lossQuery) error {
	var got []string
	if q.shape.form == "grpc" {
		conn, err := grpcConn(lossCl.Nodes[i].GRPCAddr)
		if err != nil {
			return err
		}
		one := pb.ConsistencyLevel_CONSISTENCY_LEVEL_ONE
		reply, err := conn.Search(ctx, &pb.SearchRequest{
			Collection: lossClass, Limit: lossPool, ConsistencyLevel: &one,
			NearVector:  &pb.NearVector{Vectors: []*pb.Vectors{{VectorBytes: lossBytes(q.vector)}}},
			Rerank:      &pb.Rerank{Property: "body"},
			Metadata:    &pb.MetadataRequest{Uuid: true},
			Uses_123Api: true, Uses_125Api: true, Uses_127Api: true,
		})
		if err != nil {
			return err
		}
		for _, r := range reply.Results {
			got = append(got, r.GetMetadata().GetId())
		}
	} else {
		var hits []struct {
			Additional struct{ ID string } `json:"_additional"`
		}
		if err := stack.QueryGetWith(ctx, lossHTTP, lossCl.Nodes[i].HTTPURL, lossClass, q.gql, &hits); err != nil {
			return err
		}
		for _, h := range hits {
			got = append(got, h.Additional.ID)
		}
	}
	if !slices.Equal(got, q.want) {
		return errWrong{got, q.want}
	}
	return nil
}

func lossBytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// lossRun is the traffic of TestNodeLoss: query clients and importers
// spread over the live nodes (as a load balancer would after its health
// check), every request recorded.
type lossRun struct {
	t0     time.Time
	live   []atomic.Bool
	mu     sync.Mutex
	events []lossEvent
	calls  atomic.Int64
}

func newLossRun(nodes int) *lossRun {
	r := &lossRun{t0: time.Now(), live: make([]atomic.Bool, nodes)}
	for i := range r.live {
		r.live[i].Store(true)
	}
	return r
}

func (r *lossRun) since() time.Duration { return time.Since(r.t0) }

func (r *lossRun) setLive(i int, up bool) { r.live[i].Store(up) }

// pick returns the k-th live node in round robin.
func (r *lossRun) pick(k int) int {
	var up []int
	for i := range r.live {
		if r.live[i].Load() {
			up = append(up, i)
		}
	}
	return up[k%len(up)]
}

func (r *lossRun) record(e lossEvent) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

// start runs lossClients query clients and lossWriters importers until ctx
// ends or lossMaxCalls requests were sent.
func (r *lossRun) start(ctx context.Context, wg *sync.WaitGroup, queries []lossQuery) {
	for c := range lossClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := c; ctx.Err() == nil && r.calls.Add(1) <= lossMaxCalls; k += lossClients {
				node := r.pick(k)
				err := lossAsk(ctx, node, queries[k%len(queries)])
				if ctx.Err() != nil {
					return // the run's end, not the cluster's answer
				}
				e := lossEvent{at: r.since(), node: node}
				if _, ok := err.(errWrong); ok {
					e.wrong = true
				}
				if err != nil {
					e.err = err.Error()
				}
				r.record(e)
			}
		}()
	}
	for w := range lossWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := 0; ctx.Err() == nil && r.calls.Add(1) <= lossMaxCalls; b++ {
				node := r.pick(b + w)
				objs := lossCorpus(lossWrites, 10, uint64(1000+w*100000+b))
				err := lossImport(ctx, lossCl.Nodes[node].HTTPURL, objs, replication.ConsistencyLevel.QUORUM)
				if ctx.Err() != nil {
					return
				}
				e := lossEvent{at: r.since(), node: node, write: true}
				if err != nil {
					e.err = err.Error()
				}
				r.record(e)
			}
		}()
	}
}
