package integration

import (
	"context"
	"os"
	"sync"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"encoding/json"
	"fmt"
	"github.com/diverse-select/diverse-select/integration/stack"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/weaviate/weaviate/entities/models"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"google.golang.org/protobuf/proto"

	"github.com/diverse-select/diverse-select/selectors"
)

// The gateway against the module: the same corpus in the module's server
// (the test stack, the oracle) and in a stock Weaviate behind the gateway,
// the same requests to both; the gateway must return the same objects in
// the same order, with the same properties, scores and explanations.

// gwClass is the equality corpus's class, on both servers.
const gwClass = "GatewayEq"

// gwCfg is the collection's selection config: the module's class config
// and the gateway's file alike.
var gwCfg = map[string]any{"strategy": "coverage", "tokenBudget": 150}

// gwDocs is the Health corpus and a larger generated one around it, so that
// pools of 60 hold near-copies, other facts and unrelated text.
var gwDocs = func() []Doc {
	docs := append([]Doc{}, healthDocs...)
	// Each generated text has words of its own (places, seasons), so that
	// no two share a vector: Weaviate orders equal distances by its own
	// internal ids, which differ between two databases.
	subjects := []string{"Statins", "Aspirin", "Exercise", "A low salt diet", "Fish oil", "Walking", "Coffee", "Sleep"}
	effects := []string{"lower cholesterol in the blood", "reduce the risk of heart attacks", "can cause muscle pain",
		"change liver enzyme levels", "interact with grapefruit juice", "help patients with diabetes",
		"are discussed with a doctor before treatment", "cut the chance of a stroke"}
	places := []string{"London", "Paris", "Tokyo", "Boston", "Madrid", "Berlin", "Chicago", "Sydney"}
	seasons := []string{"winter", "summer", "spring", "autumn", "morning", "evening", "weekend", "holiday"}
	for i, s := range subjects {
		for j, e := range effects {
			docs = append(docs, Doc{Key: fmt.Sprintf("gen%d_%d", i, j), Group: 100 + i*10 + j,
				Body: fmt.Sprintf("%s %s, according to a %s study in %s of %d adults.", s, e, seasons[(i+3*j)%8], places[(2*i+j)%8], 100*(i+1)+7*j)})
		}
	}
	// Chunks of three sentences: evidence cards cut them to the sentences
	// that cover the query.
	n := len(healthDocs)
	for i := range 12 {
		docs = append(docs, Doc{Key: fmt.Sprintf("long%d", i), Group: 200 + i, Body: healthDocs[i].Body + " " +
			healthDocs[(i+5)%n].Body + " " + healthDocs[(i+9)%n].Body})
	}
	return withNtok(docs)
}()

// gatewayEqEnv is the equality tests' pair of servers over one database:
// the module's server (the oracle) and a stock Weaviate opened on a copy of
// its data folder, with the gateway in front. One database, not two
// imports: Weaviate orders results at equal distances by its internal ids,
// which two imports of the same objects assign differently (the Health
// corpus holds near-copies with equal vectors).
type gatewayEqEnv struct {
	module *stack.Stack
	conn   *grpc.ClientConn // to the module's server
	gs     *gatewayStack
	err    error
}

var (
	gwEqOnce sync.Once
	gwEq     gatewayEqEnv
)

// startGatewayEq starts (once for the run) the module's server with the
// equality corpus, and a stock server with the gateway on a copy of it.
func startGatewayEq(t *testing.T) *gatewayStack {
	t.Helper()
	gwEqOnce.Do(func() { gwEq.err = gwEq.start(t) })
	if gwEq.err != nil {
		t.Fatalf("gateway equality stack: %v", gwEq.err)
	}
	return gwEq.gs
}

func (e *gatewayEqEnv) start(t *testing.T) error {
	logFile, err := os.CreateTemp("", "diverse-select-gateway-eq-*.log")
	if err != nil {
		return err
	}
	addSuiteCleanup(func() { logFile.Close() })
	t.Logf("gateway equality servers' log: %s", logFile.Name())
	dataDir, err := os.MkdirTemp("", "diverse-select-gateway-eq-data-")
	if err != nil {
		return err
	}
	copyDir := dataDir + "-stock"
	addSuiteCleanup(func() { os.RemoveAll(dataDir); os.RemoveAll(copyDir) })
	c, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	env := map[string]string{"DIVERSE_SELECT_FEATURE_CACHE_SETTLE": "0"}
	if e.module, err = stack.Start(c, stack.Options{DataDir: dataDir, EmbedderURL: srv.EmbedderURL, Log: logFile, Env: env}); err != nil {
		return fmt.Errorf("module server: %w\n%s", err, tail(logFile.Name(), 30))
	}
	addSuiteCleanup(e.module.Stop)
	mc, err := weaviate.NewClient(weaviate.Config{Host: fmt.Sprintf("127.0.0.1:%d", e.module.HTTPPort), Scheme: "http"})
	if err != nil {
		return err
	}
	createOn(t, mc, &models.Class{Class: gwClass, Vectorizer: "text2vec-transformers",
		ModuleConfig: withReranker(gwCfg), Properties: bodyProps()})
	importOn(t, mc, gwClass, gwDocs)
	e.module.StopServer(false) // flushed, then copied while no one writes
	if err := os.CopyFS(copyDir, os.DirFS(dataDir)); err != nil {
		return fmt.Errorf("copy the data folder: %w", err)
	}
	if err := e.module.Restart(c); err != nil {
		return fmt.Errorf("module server restart: %w\n%s", err, tail(logFile.Name(), 30))
	}
	up, err := stack.Start(c, stack.Options{Server: "weaviate-server-stock", DataDir: copyDir, EmbedderURL: srv.EmbedderURL,
		Log: logFile, Env: map[string]string{"ENABLE_MODULES": stockModules}})
	if err != nil {
		return fmt.Errorf("stock server: %w\n%s", err, tail(logFile.Name(), 30))
	}
	addSuiteCleanup(up.Stop)
	e.gs = &gatewayStack{up: up}
	e.gs.launch(t, "gateway-eq", map[string]any{gwClass: gwCfg}, nil, addSuiteCleanup)
	e.conn, err = grpc.NewClient(e.module.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20)))
	if err != nil {
		return err
	}
	addSuiteCleanup(func() { e.conn.Close() })
	return nil
}

// eqModuleSearch sends req to the equality tests' module server.
func eqModuleSearch(t testing.TB, req *pb.SearchRequest) (*pb.SearchReply, error) {
	return pb.NewWeaviateClient(gwEq.conn).Search(ctx(t), req)
}

// settingsProperty is the helpers' rerank property with settings.
func settingsProperty(property string, settings map[string]any) string {
	b, _ := json.Marshal(settings)
	return property + "|diverseSelect.v1|" + string(b)
}

// eqRequest is a selecting request of the equality tests.
func eqRequest(limit int, settings map[string]any, search func(*pb.SearchRequest)) *pb.SearchRequest {
	q := healthQuery
	prop := "body"
	if settings != nil {
		prop = settingsProperty("body", settings)
	}
	req := &pb.SearchRequest{
		Collection: gwClass, Limit: uint32(limit),
		Rerank:      &pb.Rerank{Property: prop, Query: &q},
		Properties:  &pb.PropertiesRequest{NonRefProperties: []string{"body", "grp"}},
		Metadata:    &pb.MetadataRequest{Uuid: true, ExplainScore: true, Distance: true, Score: true},
		Uses_123Api: true, Uses_125Api: true, Uses_127Api: true,
	}
	if search == nil {
		req.NearText = &pb.NearTextSearch{Query: []string{healthQuery}}
	} else {
		search(req)
	}
	return req
}

// sameReply reports the first difference between the module's reply and
// the gateway's, "" when they are the same.
func sameReply(want, got *pb.SearchReply) string {
	if len(want.Results) != len(got.Results) {
		return fmt.Sprintf("%d results, want %d (got %v, want %v)", len(got.Results), len(want.Results), replyIDs(got), replyIDs(want))
	}
	for i := range want.Results {
		w, g := want.Results[i], got.Results[i]
		if !proto.Equal(w.GetProperties().GetNonRefProps(), g.GetProperties().GetNonRefProps()) {
			return fmt.Sprintf("result %d: properties %v, want %v", i, g.GetProperties().GetNonRefProps(), w.GetProperties().GetNonRefProps())
		}
		wm, gm := proto.CloneOf(w.GetMetadata()), proto.CloneOf(g.GetMetadata())
		// Weaviate's bm25 explanation lists its terms in map order: compared as a set.
		wm.ExplainScore, gm.ExplainScore = sortedExplain(wm.ExplainScore), sortedExplain(gm.ExplainScore)
		if !proto.Equal(wm, gm) {
			return fmt.Sprintf("result %d: metadata\n got %v\nwant %v", i, gm, wm)
		}
	}
	return ""
}

func replyIDs(r *pb.SearchReply) []string {
	out := make([]string, len(r.Results))
	for i, x := range r.Results {
		out[i] = x.GetMetadata().GetId()
	}
	return out
}

// TestGatewayEqualsModule: every built-in strategy, per query settings in
// the rerank property, nearText, bm25 and hybrid searches, the collection's
// defaults alone, a cold and a warm feature cache: the gateway in front of
// stock Weaviate answers as the module does.
func TestGatewayEqualsModule(t *testing.T) {
	gs := startGatewayEq(t)
	type tc struct {
		name     string
		limit    int
		settings map[string]any
		search   func(*pb.SearchRequest)
	}
	var cases []tc
	for _, s := range selectors.Names() {
		cases = append(cases, tc{name: s, limit: 60, settings: map[string]any{"strategy": s, "tokenBudget": 150}})
	}
	bm25 := func(r *pb.SearchRequest) { r.Bm25Search = &pb.BM25{Query: "statins cholesterol"} }
	hybrid := func(r *pb.SearchRequest) { r.HybridSearch = &pb.Hybrid{Query: "statins cholesterol", Alpha: 0.5} }
	cases = append(cases,
		tc{name: "defaults", limit: 40},
		// The chunks of three sentences only (a filter): the cards replace their text.
		tc{name: "evidence-cards", limit: 12, settings: map[string]any{"strategy": "coverage", "tokenBudget": 80, "evidence": "cards"},
			search: func(r *pb.SearchRequest) {
				r.NearText = &pb.NearTextSearch{Query: []string{healthQuery}}
				r.Filters = &pb.Filters{Operator: pb.Filters_OPERATOR_GREATER_THAN_EQUAL, On: []string{"grp"},
					TestValue: &pb.Filters_ValueInt{ValueInt: 200}}
			}},
		tc{name: "token-property", limit: 40, settings: map[string]any{"tokenProperty": "ntok", "tokenBudget": 120}},
		tc{name: "bm25", limit: 40, settings: map[string]any{"strategy": "mmr", "tokenBudget": 100}, search: bm25},
		tc{name: "hybrid", limit: 40, settings: map[string]any{"strategy": "adagres", "tokenBudget": 100}, search: hybrid},
		tc{name: "paged", limit: 40, settings: map[string]any{"strategy": "coverage", "tokenBudget": 80}, search: func(r *pb.SearchRequest) {
			r.NearText = &pb.NearTextSearch{Query: []string{healthQuery}}
			r.Offset = 2
		}},
		tc{name: "widen", limit: 10, settings: map[string]any{"strategy": "coverage", "tokenBudget": 300, "widenTo": 40}},
		tc{name: "vectors-and-times", limit: 30, settings: map[string]any{"strategy": "adagres", "tokenBudget": 100}, search: func(r *pb.SearchRequest) {
			r.NearText = &pb.NearTextSearch{Query: []string{healthQuery}}
			r.Metadata.Vector, r.Metadata.CreationTimeUnix, r.Metadata.LastUpdateTimeUnix, r.Metadata.Certainty = true, true, true, true
		}},
		tc{name: "all-properties", limit: 30, settings: map[string]any{"strategy": "mmr", "tokenBudget": 100}, search: func(r *pb.SearchRequest) {
			r.NearText = &pb.NearTextSearch{Query: []string{healthQuery}}
			r.Properties = nil
		}},
		// Every property and the object's own metadata, which the pool's
		// search leaves to the read of the selected objects: with the
		// pool's properties deferred, and loaded (a token property).
		tc{name: "extras-deferred", limit: 40, settings: map[string]any{"strategy": "coverage", "tokenBudget": 120}, search: withExtras},
		tc{name: "extras-token-property", limit: 40, settings: map[string]any{"tokenProperty": "ntok", "tokenBudget": 120}, search: withExtras},
	)
	equal := 0
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := eqRequest(c.limit, c.settings, c.search)
			want, err := eqModuleSearch(t, req)
			if err != nil {
				t.Fatalf("module: %v", err)
			}
			if len(want.Results) == 0 {
				t.Fatalf("the module selected nothing: the case checks nothing")
			}
			for _, pass := range []string{"cold", "warm"} {
				got, err := gs.search(ctx(t), req)
				if err != nil {
					t.Fatalf("gateway (%s): %v\n%s", pass, err, gs.logTail())
				}
				if d := sameReply(want, got); d != "" {
					t.Fatalf("gateway (%s) differs from the module: %s", pass, d)
				}
				if strings.HasPrefix(c.name, "extras") {
					checkExtras(t, got)
				}
			}
			equal++
		})
	}
	t.Logf("gateway == module on %d of %d cases (%d strategies), cold and warm", equal, len(cases), len(selectors.Names()))
}

// withExtras is a nearText search that asks for every property and every
// metadata field.
func withExtras(r *pb.SearchRequest) {
	r.NearText = &pb.NearTextSearch{Query: []string{healthQuery}}
	r.Properties = &pb.PropertiesRequest{ReturnAllNonrefProperties: true}
	r.Metadata = &pb.MetadataRequest{Uuid: true, Vector: true, CreationTimeUnix: true, LastUpdateTimeUnix: true,
		Distance: true, Certainty: true, Score: true, ExplainScore: true, IsConsistent: true}
}

// checkExtras: each selected object carries its own values - its stored
// body and group, its vector, creation and update times - and the search's
// distance; the equality with the module holds the rest.
func checkExtras(t *testing.T, got *pb.SearchReply) {
	t.Helper()
	groups := map[string][]int64{} // by body: copies share one
	for _, d := range gwDocs {
		groups[d.Body] = append(groups[d.Body], int64(d.Group))
	}
	for i, r := range got.Results {
		f, m := r.GetProperties().GetNonRefProps().GetFields(), r.GetMetadata()
		g, ok := groups[f["body"].GetTextValue()]
		switch {
		case !ok:
			t.Errorf("result %d: body %q is no object's", i, f["body"].GetTextValue())
		case !slices.Contains(g, f["grp"].GetIntValue()):
			t.Errorf("result %d: grp %d, want one of %v", i, f["grp"].GetIntValue(), g)
		case len(m.GetVectorBytes()) == 0 || !m.GetCreationTimeUnixPresent() || !m.GetLastUpdateTimeUnixPresent() ||
			!m.GetDistancePresent() || m.GetCreationTimeUnix() > m.GetLastUpdateTimeUnix():
			t.Errorf("result %d: metadata lacks the object's own: %v", i, m)
		}
	}
}

// sortedExplain is an explanation with the search's own part (before the
// selection's lines) as a sorted list of its comma-separated items.
func sortedExplain(s string) string {
	own, sel, found := strings.Cut(s, "diverseSelect: ")
	if !found {
		return s
	}
	items := strings.Split(strings.TrimSpace(own), ", ")
	sort.Strings(items)
	return strings.Join(items, ", ") + "\n" + sel
}

// explainJSON is the diverseSelect.v1 line of an explanation.
func explainJSON(explain string) map[string]any {
	for _, line := range strings.Split(explain, "\n") {
		if rest, ok := strings.CutPrefix(line, "diverseSelect.v1 "); ok {
			var m map[string]any
			if json.Unmarshal([]byte(rest), &m) == nil {
				return m
			}
		}
	}
	return nil
}
