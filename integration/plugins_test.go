package integration

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/connection"
	"github.com/weaviate/weaviate/entities/models"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"

	"github.com/diverse-select/diverse-select/integration/stack"
	"github.com/diverse-select/diverse-select/selectors"
)

// TestPlugins runs external selector plugins in a Weaviate of its own (the
// shared stack has none): the example plugin bin/plugins/recency and the
// misbehaving test plugin bin/testplugins/* (make test builds both). It
// checks selections through both query forms against the same computation
// in the library, the clear error of each failure (crash, hang, invalid
// selection, wrong protocol, checksum) with the server answering on, the
// restart after a crash, and that no plugin process outlives the server.
func TestPlugins(t *testing.T) {
	root, err := stack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, "bin")
	testPlugins := filepath.Join(bin, "testplugins")
	recency := filepath.Join(bin, "plugins", "recency")
	for _, f := range []string{recency, filepath.Join(testPlugins, "crash")} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("%s is missing: run `make build test-plugins` (make test does)", f)
		}
	}
	sum := fileSHA256(t, filepath.Join(testPlugins, "passthrough"))
	s, c, logPath := startPluginStack(t, map[string]string{
		"DIVERSE_SELECT_PLUGIN_DIR":     testPlugins,
		"DIVERSE_SELECT_PLUGINS":        recency,
		"DIVERSE_SELECT_PLUGIN_SHA256":  "passthrough=" + sum + ",pinned=" + strings.Repeat("0", 64),
		"DIVERSE_SELECT_PLUGIN_TIMEOUT": "2s",
	})
	stopped := false
	defer func() {
		if !stopped {
			s.Stop()
		}
	}()
	restore := useStack(s, c)
	defer restore()

	docs, vecs, query := recencyCorpus()
	createClass(t, &models.Class{Class: "PluginDocs", Vectorizer: "none", Properties: []*models.Property{
		{Name: "body", DataType: []string{"text"}},
		{Name: "date", DataType: []string{"date"}},
		{Name: "grp", DataType: []string{"int"}},
	}})
	importDocs(t, "PluginDocs", docs)
	near := fmt.Sprintf("nearVector: {vector: %s}", vectorLiteral(query))

	t.Run("meta lists the plugins and their strategies", func(t *testing.T) {
		m := pluginMeta(t)
		want := map[string]string{"recency": "running", "passthrough": "running", "crash": "running", "hang": "running",
			"cheat": "running", "badversion": "failed", "pinned": "failed"}
		for name, state := range want {
			st, ok := m.plugin(name)
			if !ok || st.State != state || (state == "running" && st.PID == 0) {
				t.Errorf("plugin %s: %+v, want state %s", name, st, state)
			}
		}
		if st, _ := m.plugin("badversion"); !strings.Contains(st.Error, "plugin speaks protocol 2, this module speaks 1") {
			t.Errorf("badversion error %q", st.Error)
		}
		if st, _ := m.plugin("passthrough"); !st.SHA256Pinned {
			t.Errorf("passthrough is pinned: %+v", st)
		}
		found := false
		for _, st := range m.Strategies {
			if st.Name == "recency" {
				found = true
				types := map[string]string{}
				for _, p := range st.Parameters {
					types[p.Name] = p.Type
				}
				if types["dateProperty"] != "property" || types["recencyWeight"] != "float" || !st.NeedsVectors {
					t.Errorf("recency in /v1/meta: %+v", st)
				}
			}
		}
		if !found {
			t.Error("strategy recency missing from /v1/meta")
		}
	})

	t.Run("recency selects what its formula implies, in both query forms", func(t *testing.T) {
		pool := get(t, "PluginDocs", fmt.Sprintf("{ Get { PluginDocs(%s, limit: 30) { date _additional { id distance } } } }", near), nil)
		for _, w := range []float64{0, 0.8} {
			want := expectedRecency(t, pool, vecs, w, 20, 6)
			diverse := fmt.Sprintf(`strategy: "recency", candidates: 30, recencyWeight: %v, halfLifeDays: 20`, w)
			top := get(t, "PluginDocs", sel("PluginDocs", near+", limit: 6", diverse, "body"), nil)
			fld := get(t, "PluginDocs", field("PluginDocs", near+", limit: 30",
				fmt.Sprintf(`strategy: "recency", maxResults: 6, recencyWeight: %v, halfLifeDays: 20`, w), "body"), nil)
			for form, hits := range map[string][]Hit{"top-level": top, "field": fld} {
				if got := ids(hits); fmt.Sprint(got) != fmt.Sprint(want.ids) {
					t.Errorf("weight %v, %s form: selected %v, want %v", w, form, got, want.ids)
				}
				for i, h := range hits {
					if h.DS == nil || h.DS.Strategy != "recency" || math.Abs(h.DS.Gain-want.gains[i]) > 1e-6 {
						t.Errorf("weight %v, %s form, item %d: %+v, want gain %v", w, form, i, h.DS, want.gains[i])
					}
				}
			}
		}
		plainMMR := expectedRecency(t, pool, vecs, 0, 20, 6)
		recent := expectedRecency(t, pool, vecs, 0.8, 20, 6)
		if fmt.Sprint(plainMMR.ids) == fmt.Sprint(recent.ids) {
			t.Errorf("recencyWeight 0.8 selects as plain mmr: the dates did not matter")
		}
	})

	t.Run("class config names a plugin strategy", func(t *testing.T) {
		createClass(t, &models.Class{Class: "PluginConfigured", Vectorizer: "none",
			ModuleConfig: map[string]any{"diverse-select": map[string]any{"strategy": "recency", "recencyWeight": 0.8, "halfLifeDays": 20}},
			Properties: []*models.Property{{Name: "body", DataType: []string{"text"}}, {Name: "date", DataType: []string{"date"}},
				{Name: "grp", DataType: []string{"int"}}}})
		importDocs(t, "PluginConfigured", docs)
		pool := get(t, "PluginConfigured", fmt.Sprintf("{ Get { PluginConfigured(%s, limit: 30) { date _additional { id distance } } } }", near), nil)
		want := expectedRecency(t, pool, vecs, 0.8, 20, 6)
		hits := get(t, "PluginConfigured", sel("PluginConfigured", near+", limit: 6", "candidates: 30", "body"), nil)
		if fmt.Sprint(ids(hits)) != fmt.Sprint(want.ids) {
			t.Errorf("selected %v, want %v", ids(hits), want.ids)
		}
		// (a class with a vectorizer: Weaviate skips module config validation for vectorizer "none")
		err := client.Schema().ClassCreator().WithClass(&models.Class{Class: "PluginBroken", Vectorizer: "text2vec-transformers",
			ModuleConfig: map[string]any{"text2vec-transformers": map[string]any{"vectorizeClassName": false},
				"diverse-select": map[string]any{"strategy": "badversion"}}}).Do(ctx(t))
		if err == nil || !strings.Contains(err.Error(), "plugin speaks protocol 2, this module speaks 1") {
			t.Errorf("class naming a broken plugin: %v, want the protocol error", err)
		}
	})

	t.Run("the gRPC rerank route runs a plugin strategy", func(t *testing.T) {
		// The clients' default protocol: the collection's reranker config names
		// the plugin's strategy; the search's limit is the pool.
		createClass(t, &models.Class{Class: "PluginRerank", Vectorizer: "none",
			ModuleConfig: map[string]any{"reranker-diverse-select": map[string]any{
				"strategy": "recency", "recencyWeight": 0.8, "halfLifeDays": 20, "maxResults": 6}},
			Properties: []*models.Property{{Name: "body", DataType: []string{"text"}}, {Name: "date", DataType: []string{"date"}},
				{Name: "grp", DataType: []string{"int"}}}})
		importDocs(t, "PluginRerank", docs)
		pool := get(t, "PluginRerank", fmt.Sprintf("{ Get { PluginRerank(%s, limit: 30) { date _additional { id distance } } } }", near), nil)
		want := expectedRecency(t, pool, vecs, 0.8, 20, 6)
		conn, err := connection.NewGrpcClient(s.GRPCAddr, false, nil, nil, time.Minute, 30*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		req := rerankRequest("PluginRerank", 30)
		req.NearVector = &pb.NearVector{Vectors: []*pb.Vectors{{VectorBytes: float32Bytes(query)}}}
		req.Properties = &pb.PropertiesRequest{NonRefProperties: []string{"body", "date"}}
		reply, err := conn.Search(ctx(t), req)
		if err != nil {
			t.Fatalf("gRPC search: %v", err)
		}
		var got []string
		for _, r := range reply.Results {
			got = append(got, r.GetMetadata().GetId())
		}
		if fmt.Sprint(got) != fmt.Sprint(want.ids) {
			t.Errorf("gRPC rerank route selected %v, want recency's %v", got, want.ids)
		}
	})

	t.Run("passthrough equals the built-in mmr", func(t *testing.T) {
		q := func(strategy string) []string {
			return ids(get(t, "PluginDocs", sel("PluginDocs", near+", limit: 7",
				fmt.Sprintf(`strategy: "%s", candidates: 30, lambda: 0.4, tokenBudget: 200`, strategy), "body"), nil))
		}
		if a, b := q("passthrough"), q("mmr"); fmt.Sprint(a) != fmt.Sprint(b) || len(a) == 0 {
			t.Errorf("passthrough %v, mmr %v", a, b)
		}
	})

	builtIn := func(t *testing.T) {
		t.Helper()
		if hits := get(t, "PluginDocs", sel("PluginDocs", near+", limit: 5", `strategy: "mmr", candidates: 30`, "body"), nil); len(hits) != 5 {
			t.Errorf("built-in mmr after the failure: %d hits", len(hits))
		}
	}
	failures := []struct {
		name, diverse string
		want          []string
	}{
		{"crash", `strategy: "crash"`, []string{`plugin "crash" crashed during the call`, "exit status 3", "being restarted"}},
		{"hang", `strategy: "hang"`, []string{`plugin "hang" did not answer within 2s (DIVERSE_SELECT_PLUGIN_TIMEOUT)`}},
		{"cheat duplicate", `strategy: "cheat", cheat: "duplicate"`, []string{`plugin "cheat" returned an invalid selection: index 0 selected twice`}},
		{"cheat out of range", `strategy: "cheat", cheat: "outofrange"`, []string{`plugin "cheat" returned an invalid selection: index 30 is out of range: 30 candidates`}},
		{"cheat over budget", `strategy: "cheat", cheat: "overbudget", tokenBudget: 10`, []string{`returned an invalid selection: the selection uses`, "over the token budget of 10"}},
		{"wrong protocol version", `strategy: "badversion"`, []string{`strategy "badversion"`, "is unavailable: plugin speaks protocol 2, this module speaks 1"}},
		{"checksum mismatch", `strategy: "pinned"`, []string{`strategy "pinned"`, "does not match its pin in DIVERSE_SELECT_PLUGIN_SHA256"}},
		{"unknown property", `strategy: "recency", dateProperty: "published"`, []string{`"dateProperty" names "published", which is not a property of the class; properties: body, date, grp`}},
	}
	for _, f := range failures {
		t.Run(f.name+" gives a clear error and the server answers on", func(t *testing.T) {
			msg := gqlError(t, sel("PluginDocs", near+", limit: 5", f.diverse+", candidates: 30", "body"), nil)
			for _, w := range f.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q, want it to contain %q", msg, w)
				}
			}
			if !srv.Alive() {
				t.Fatal("the Weaviate server process has exited")
			}
			builtIn(t)
		})
	}

	t.Run("after a crash the plugin is restarted and answers", func(t *testing.T) {
		before, _ := pluginMeta(t).plugin("crash")
		_ = gqlError(t, sel("PluginDocs", near+", limit: 5", `strategy: "crash", candidates: 30`, "body"), nil)
		hits := get(t, "PluginDocs", sel("PluginDocs", near+", limit: 5", `strategy: "crash", crash: false, candidates: 30`, "body"), nil)
		if len(hits) != 5 {
			t.Errorf("%d hits after the restart", len(hits))
		}
		after, _ := pluginMeta(t).plugin("crash")
		if after.State != "running" || after.Restarts != before.Restarts+1 || after.PID == before.PID {
			t.Errorf("crash plugin before %+v, after %+v: want one more restart and a new process", before, after)
		}
	})

	t.Run("no plugin process outlives the server", func(t *testing.T) {
		var pids []int
		deadline := time.Now().Add(15 * time.Second) // the hung plugin may still be restarting
		for len(pids) < 5 && time.Now().Before(deadline) {
			pids = pids[:0]
			for _, st := range pluginMeta(t).Plugins {
				if st.State == "running" && st.PID != 0 {
					pids = append(pids, st.PID)
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
		if len(pids) != 5 {
			t.Fatalf("%d running plugins %v, want 5 (recency, passthrough, crash, hang, cheat)", len(pids), pids)
		}
		restore()
		s.Stop() // SIGTERM: Weaviate's shutdown closes the module, which ends the plugins
		stopped = true
		waitGone(t, pids)
		if b, _ := os.ReadFile(logPath); !strings.Contains(string(b), "diverse-select: plugins stopped") {
			t.Errorf("the server log does not show the module stopping its plugins at shutdown")
		}

		// SIGKILL: no shutdown code runs; the kernel's parent-death signal ends the plugins.
		s2, c2, _ := startPluginStack(t, map[string]string{"DIVERSE_SELECT_PLUGINS": recency + "," + filepath.Join(testPlugins, "hang")})
		restore2 := useStack(s2, c2)
		var pids2 []int
		for _, st := range pluginMeta(t).Plugins {
			pids2 = append(pids2, st.PID)
		}
		restore2()
		s2.Kill()
		if len(pids2) != 2 || pids2[0] == 0 || pids2[1] == 0 {
			t.Fatalf("plugins of the second server: %v", pids2)
		}
		waitGone(t, pids2)
	})
}

// startPluginStack starts an embedder and Weaviate with extra environment.
func startPluginStack(t *testing.T, env map[string]string) (*stack.Stack, *weaviate.Client, string) {
	t.Helper()
	env["DIVERSE_SELECT_META_DETAILS"] = "true" // the tests read the plugins' PIDs and errors there
	return startOwnStack(t, "plugins", stack.Options{Env: env})
}

// useStack points the helpers (graphql, get, createClass, importDocs) at
// another stack until the returned function restores the shared one; the
// integration tests run sequentially.
func useStack(s *stack.Stack, c *weaviate.Client) (restore func()) {
	oldSrv, oldClient := srv, client
	srv, client = s, c
	return func() { srv, client = oldSrv, oldClient }
}

// pluginStatus is one entry of /v1/meta's modules["diverse-select"].plugins.
type pluginStatus struct {
	Strategy     string
	Path         string
	State        string
	Error        string
	PID          int
	Restarts     int
	SHA256Pinned bool `json:"sha256Pinned"`
}

type pluginMetaInfo struct {
	metaModule
	Plugins []pluginStatus
}

func (m pluginMetaInfo) plugin(name string) (pluginStatus, bool) {
	for _, p := range m.Plugins {
		if p.Strategy == name {
			return p, true
		}
	}
	return pluginStatus{}, false
}

func pluginMeta(t *testing.T) pluginMetaInfo {
	t.Helper()
	resp, err := httpc.Get(srv.HTTPURL + "/v1/meta")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var meta struct{ Modules map[string]json.RawMessage }
	if err := json.NewDecoder(resp.Body).Decode(&meta); err != nil {
		t.Fatal(err)
	}
	var m pluginMetaInfo
	if err := json.Unmarshal(meta.Modules["diverse-select"], &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// recencyCorpus is 40 objects with 16-dimensional vectors (groups of near
// duplicates) and dates spread over 200 days; vecs maps object ids to them;
// a query vector near group 0.
func recencyCorpus() (docs []Doc, vecs map[string][]float32, query []float32) {
	rng := rand.New(rand.NewSource(42))
	vecs = map[string][]float32{}
	base := make([][]float32, 8)
	for g := range base {
		base[g] = randVec(rng, 16, nil, 0)
	}
	query = randVec(rng, 16, base[0], 0.8)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 40; i++ {
		g := i % 8
		v := randVec(rng, 16, base[g], 0.3)
		key := fmt.Sprintf("d%02d", i)
		date := start.Add(time.Duration(rng.Intn(200)) * 24 * time.Hour).Format(time.RFC3339)
		docs = append(docs, Doc{Key: key, Body: fmt.Sprintf("document %d of group %d", i, g), Group: g, Vector: v,
			Props: map[string]any{"date": date}})
		vecs[uuidOf("PluginDocs", "/"+key)] = v
		vecs[uuidOf("PluginConfigured", "/"+key)] = v
		vecs[uuidOf("PluginRerank", "/"+key)] = v
	}
	return docs, vecs, query
}

// randVec returns a normal random vector, or around + noise*random.
func randVec(rng *rand.Rand, d int, around []float32, noise float64) []float32 {
	v := make([]float32, d)
	for i := range v {
		x := rng.NormFloat64()
		if around != nil {
			x = float64(around[i]) + noise*x
		}
		v[i] = float32(x)
	}
	return v
}

type expected struct {
	ids   []string
	gains []float64
}

// expectedRecency computes the recency plugin's selection from its
// documented formula - relevance blended with 0.5^(age/halfLife), age from
// the newest date - and the library's mmr (lambda 0.5) on the same pool.
func expectedRecency(t *testing.T, pool []Hit, vecs map[string][]float32, weight, halfLife float64, k int) expected {
	t.Helper()
	p := &selectors.Problem{MaxResults: k}
	var newest time.Time
	dates := make([]time.Time, len(pool))
	for i, h := range pool {
		d, err := time.Parse(time.RFC3339, h.Str("date"))
		if err != nil {
			t.Fatalf("date of %s: %v", h.ID, err)
		}
		dates[i] = d
		if d.After(newest) {
			newest = d
		}
	}
	for i, h := range pool {
		fresh := math.Pow(0.5, newest.Sub(dates[i]).Hours()/24/halfLife)
		rel := (1-weight)*(1-*h.Distance) + weight*fresh
		p.Candidates = append(p.Candidates, selectors.Candidate{ID: h.ID, Relevance: rel, Tokens: 1, Vector: vecs[h.ID]})
	}
	s, err := selectors.New("mmr", map[string]any{"lambda": 0.5})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	var out expected
	for _, it := range res.Items {
		out.ids = append(out.ids, pool[it.Index].ID)
		out.gains = append(out.gains, it.Gain)
	}
	return out
}

// waitGone waits until none of pids is a live process.
func waitGone(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var alive []int
		for _, pid := range pids {
			if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
				if f := strings.Fields(string(b)); len(f) > 2 && f[2] != "Z" {
					alive = append(alive, pid)
				}
			}
		}
		if len(alive) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("plugin processes %v still run after the server ended", alive)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", sha256.Sum256(b))
}
