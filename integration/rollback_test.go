package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/connection"
	wgql "github.com/weaviate/weaviate-go-client/v5/weaviate/graphql"
	"github.com/weaviate/weaviate/entities/models"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"

	"github.com/diverse-select/diverse-select/integration/stack"
)

// Rollback and forward: a user who stops using our build must get their
// database back on stock Weaviate of the same version, and a user who comes
// back must find diverse selection where they left it.
//
// TestRollbackToStockWeaviate writes a data folder with our build (classes
// configuring diverse-select and reranker-diverse-select, a multi-tenant one
// too), opens it with stock Weaviate (bin/weaviate-server-stock, make
// weaviate-stock: the same Weaviate source, unpatched, without the module),
// and checks there that the class configs are unchanged, every object is
// there, plain searches (nearText, bm25, hybrid; gRPC too) answer as before,
// stock Weaviate accepts a new object, and a diverseSelect query is a clear
// GraphQL error, not a crash. Then it opens the folder with our build again:
// configs unchanged, the same selections as before the rollback, and the
// object written by stock Weaviate among the candidates.
//
// No migration step either way: stock Weaviate ignores the module names it
// does not know in ENABLE_MODULES (registerModules looks names up, it does
// not check the list), so rollback and forward are a swap of the binary with
// the environment unchanged, and the class configs stay as they are. On
// stock Weaviate a class update that keeps our moduleConfig is accepted too.

const (
	rollDocs    = "RollDocs"
	rollTenants = "RollTenants"
)

func TestRollbackToStockWeaviate(t *testing.T) {
	root, err := stack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "bin", "weaviate-server-stock")); err != nil {
		t.Fatalf("bin/weaviate-server-stock is missing: run `make weaviate-stock` (make test does)")
	}
	data := t.TempDir()
	logFile, err := os.CreateTemp("", "diverse-select-rollback-*.log")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(logFile.Name())
	defer logFile.Close()
	start := func(server, modules string) *rollServer {
		t.Helper()
		c, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		o := stack.Options{DataDir: data, Log: logFile, Server: server}
		if modules != "" {
			o.Env = map[string]string{"ENABLE_MODULES": modules}
		}
		s, err := stack.Start(c, o)
		if err != nil {
			t.Fatalf("start %s on the data folder: %v\n%s", server, err, tail(logFile.Name(), 30))
		}
		cl, err := weaviate.NewClient(weaviate.Config{Host: strings.TrimPrefix(s.HTTPURL, "http://"), Scheme: "http"})
		if err != nil {
			t.Fatal(err)
		}
		return &rollServer{t: t, s: s, client: cl}
	}

	// 1. Our build writes the data folder.
	ours := start("weaviate-server", "")
	ours.setup()
	before := ours.snapshot()
	ours.stop()

	// 2. Stock Weaviate opens it.
	stock := start("weaviate-server-stock", "") // the same environment, ENABLE_MODULES included
	if got := stock.configs(); !reflect.DeepEqual(got, before.configs) {
		t.Errorf("class configs changed on stock Weaviate:\n got %v\nwant %v", got, before.configs)
	}
	plainBefore, plainStock := before.plain, stock.plainQueries()
	if !reflect.DeepEqual(plainStock, plainBefore) {
		t.Errorf("plain queries differ on stock Weaviate:\n got %v\nwant %v", plainStock, plainBefore)
	}
	if n := stock.count(rollDocs, ""); n != len(healthDocs) {
		t.Errorf("stock Weaviate holds %d objects of %s, want %d", n, rollDocs, len(healthDocs))
	}
	for _, form := range []string{before.argumentQuery(), before.fieldQuery()} {
		err := stack.QueryGet(ctx(t), stock.s.HTTPURL, rollDocs, form, &[]map[string]any{})
		if err == nil || !strings.Contains(err.Error(), "diverseSelect") {
			t.Errorf("diverseSelect on stock Weaviate: %v, want a GraphQL error naming the unknown argument", err)
		}
	}
	stock.updateDescription()
	added := stock.addObject()
	if !stock.s.Alive() {
		t.Fatal("stock Weaviate died")
	}
	stock.stop()

	// 3. Our build opens it again.
	back := start("weaviate-server", "")
	defer back.stop()
	after := back.snapshot()
	if !reflect.DeepEqual(after.configs, before.configs) {
		t.Errorf("class configs changed after the way back:\n got %v\nwant %v", after.configs, before.configs)
	}
	if !reflect.DeepEqual(after.selections, before.selections) {
		t.Errorf("selections differ after the way back:\n got %v\nwant %v", after.selections, before.selections)
	}
	if n := back.count(rollDocs, ""); n != len(healthDocs) {
		t.Errorf("%d objects of %s after the way back, want %d", n, rollDocs, len(healthDocs))
	}
	q := fmt.Sprintf(`{ Get { %s(tenant: "beta", nearText: {concepts: ["rollback object"]}, limit: 3, diverseSelect: {strategy: "mmr", candidates: 20}) { _additional { id } } } }`, rollTenants)
	if got := back.gqlIDs(rollTenants, q); !slices.Equal(got, []string{added}) {
		t.Errorf("diverse selection in the tenant stock Weaviate created: %v, want the object it wrote (%s)", got, added)
	}
}

type rollServer struct {
	t      *testing.T
	s      *stack.Stack
	client *weaviate.Client
}

func (r *rollServer) stop() { r.s.Stop() }

// rollCfg configures both modules; the reranker's needs vectors (hybrid
// results carry none: the gRPC hook re-fetches them).
func rollCfg() map[string]any {
	mc := withReranker(map[string]any{"strategy": "mmr", "tokenBudget": 100, "dedupThreshold": 0.8})
	mc["diverse-select"] = map[string]any{"strategy": "coverage", "tokenBudget": 120, "textProperty": "body"}
	return mc
}

func (r *rollServer) setup() {
	t := r.t
	for _, c := range []*models.Class{
		{Class: rollDocs, Vectorizer: "text2vec-transformers", ModuleConfig: rollCfg(), Properties: bodyProps()},
		{Class: rollTenants, Vectorizer: "text2vec-transformers", ModuleConfig: rollCfg(), Properties: bodyProps(),
			MultiTenancyConfig: &models.MultiTenancyConfig{Enabled: true}},
	} {
		if err := r.client.Schema().ClassCreator().WithClass(c).Do(ctx(t)); err != nil {
			t.Fatalf("create %s: %v", c.Class, err)
		}
	}
	if err := r.client.Schema().TenantsCreator().WithClassName(rollTenants).
		WithTenants(models.Tenant{Name: "alpha"}).Do(ctx(t)); err != nil {
		t.Fatal(err)
	}
	var objs []*models.Object
	for _, d := range healthDocs {
		props := map[string]any{"body": d.Body, "grp": d.Group, "ntok": d.Props["ntok"]}
		objs = append(objs,
			&models.Object{Class: rollDocs, ID: strfmt.UUID(uuidOf(rollDocs, d.Key)), Properties: props},
			&models.Object{Class: rollTenants, ID: strfmt.UUID(uuidOf(rollTenants, d.Key)), Properties: props, Tenant: "alpha"})
	}
	res, err := r.client.Batch().ObjectsBatcher().WithObjects(objs...).Do(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := stack.BatchError(res); err != nil {
		t.Fatalf("import: %v", err)
	}
}

// updateDescription changes RollDocs' description through a class update
// that sends the moduleConfig back unchanged, and restores it.
func (r *rollServer) updateDescription() {
	for _, d := range []string{"updated on stock Weaviate", ""} {
		c, err := r.client.Schema().ClassGetter().WithClassName(rollDocs).Do(ctx(r.t))
		if err != nil {
			r.t.Fatal(err)
		}
		c.Description = d
		if err := r.client.Schema().ClassUpdater().WithClass(c).Do(ctx(r.t)); err != nil {
			r.t.Errorf("stock Weaviate refused a class update keeping our moduleConfig: %v", err)
		}
	}
}

// addObject creates tenant beta of RollTenants and writes one object there
// (through stock Weaviate, into a class configuring our modules; a tenant of
// its own, so the selections compared before and after stay on the same
// data) and returns its id.
func (r *rollServer) addObject() string {
	if err := r.client.Schema().TenantsCreator().WithClassName(rollTenants).
		WithTenants(models.Tenant{Name: "beta"}).Do(ctx(r.t)); err != nil {
		r.t.Fatalf("stock Weaviate refused a new tenant: %v", err)
	}
	id := uuidOf(rollTenants, "added-by-stock")
	_, err := r.client.Data().Creator().WithClassName(rollTenants).WithID(id).WithTenant("beta").
		WithProperties(map[string]any{"body": "Rollback object added by stock Weaviate while the module was away.", "grp": 500, "ntok": 12}).
		Do(ctx(r.t))
	if err != nil {
		r.t.Fatalf("stock Weaviate refused a new object: %v", err)
	}
	return id
}

type rollSnapshot struct {
	configs    map[string]string   // class -> moduleConfig as JSON
	plain      map[string][]string // plain query -> ids
	selections map[string][]string // diverse selection (every route) -> ids
}

func (r *rollServer) snapshot() rollSnapshot {
	return rollSnapshot{configs: r.configs(), plain: r.plainQueries(), selections: r.selections()}
}

func (r *rollServer) configs() map[string]string {
	out := map[string]string{}
	for _, class := range []string{rollDocs, rollTenants} {
		c, err := r.client.Schema().ClassGetter().WithClassName(class).Do(ctx(r.t))
		if err != nil {
			r.t.Fatalf("get class %s: %v", class, err)
		}
		b, _ := json.Marshal(c.ModuleConfig)
		out[class] = string(b)
	}
	return out
}

// plainQueries: searches without diverse selection, GraphQL and gRPC, on
// both classes.
func (r *rollServer) plainQueries() map[string][]string {
	out := map[string][]string{}
	for _, class := range []string{rollDocs, rollTenants} {
		tenant := ""
		if class == rollTenants {
			tenant = `tenant: "alpha", `
		}
		for name, search := range map[string]string{
			"nearText": fmt.Sprintf(`nearText: {concepts: [%q]}`, healthQuery),
			"bm25":     fmt.Sprintf(`bm25: {query: %q}`, healthQuery),
			"hybrid":   fmt.Sprintf(`hybrid: {query: %q, alpha: 0.5}`, healthQuery),
		} {
			out[class+" "+name] = r.gqlIDs(class, fmt.Sprintf(`{ Get { %s(%s%s, limit: 8) { _additional { id } } } }`, class, tenant, search))
		}
		req := &pb.SearchRequest{Collection: class, Limit: 8, Metadata: &pb.MetadataRequest{Uuid: true},
			NearText: &pb.NearTextSearch{Query: []string{healthQuery}}, Uses_123Api: true, Uses_125Api: true, Uses_127Api: true}
		if class == rollTenants {
			req.Tenant = "alpha"
		}
		out[class+" grpc nearText"] = r.grpcIDs(req)
	}
	return out
}

func (rollSnapshot) argumentQuery() string {
	return fmt.Sprintf(`{ Get { %s(nearText: {concepts: [%q]}, limit: 10, diverseSelect: {candidates: 20}) { _additional { id } } } }`, rollDocs, healthQuery)
}

func (rollSnapshot) fieldQuery() string {
	return fmt.Sprintf(`{ Get { %s(nearText: {concepts: [%q]}, limit: 20) { _additional { id diverseSelect { rank } } } } }`, rollDocs, healthQuery)
}

// selections: diverse selection by the class configs, through both GraphQL
// forms and the gRPC rerank route (hybrid: the re-fetch path), on both
// classes.
func (r *rollServer) selections() map[string][]string {
	var s rollSnapshot
	out := map[string][]string{
		"argument": r.gqlIDs(rollDocs, s.argumentQuery()),
		"field":    r.gqlIDs(rollDocs, s.fieldQuery()),
		"tenant argument": r.gqlIDs(rollTenants, fmt.Sprintf(`{ Get { %s(tenant: "alpha", nearText: {concepts: [%q]}, limit: 10, diverseSelect: {candidates: 20}) { _additional { id } } } }`,
			rollTenants, healthQuery)),
	}
	alpha := float32(0.5)
	for _, class := range []string{rollDocs, rollTenants} {
		req := rerankRequest(class, 12)
		req.HybridSearch = &pb.Hybrid{Query: healthQuery, AlphaParam: &alpha, UseAlphaParam: true}
		if class == rollTenants {
			req.Tenant = "alpha"
		}
		out[class+" grpc rerank"] = r.grpcIDs(req)
	}
	for k, v := range out {
		if len(v) == 0 {
			r.t.Fatalf("selection %s is empty", k)
		}
	}
	return out
}

func (r *rollServer) gqlIDs(class, query string) []string {
	r.t.Helper()
	var hits []struct {
		Additional struct{ ID string } `json:"_additional"`
	}
	if err := stack.QueryGet(ctx(r.t), r.s.HTTPURL, class, query, &hits); err != nil {
		r.t.Fatalf("%v\nquery: %s", err, query)
	}
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Additional.ID
	}
	return out
}

func (r *rollServer) grpcIDs(req *pb.SearchRequest) []string {
	r.t.Helper()
	conn, err := connection.NewGrpcClient(r.s.GRPCAddr, false, nil, nil, time.Minute, 30*time.Second)
	if err != nil {
		r.t.Fatal(err)
	}
	reply, err := conn.Search(ctx(r.t), req)
	if err != nil {
		r.t.Fatalf("gRPC search %s: %v", req.Collection, err)
	}
	out := []string{}
	for _, x := range reply.Results {
		out = append(out, x.GetMetadata().GetId())
	}
	return out
}

// count is the number of objects of class (in tenant), by Aggregate.
func (r *rollServer) count(class, tenant string) int {
	agg := r.client.GraphQL().Aggregate().WithClassName(class).WithFields(wgql.Field{Name: "meta", Fields: []wgql.Field{{Name: "count"}}})
	if tenant != "" {
		agg = agg.WithTenant(tenant)
	}
	res, err := agg.Do(ctx(r.t))
	if err != nil || len(res.Errors) > 0 {
		r.t.Fatalf("aggregate %s: %v %v", class, err, res)
	}
	rows, _ := res.Data["Aggregate"].(map[string]any)[class].([]any)
	if len(rows) == 0 {
		return 0
	}
	n, _ := rows[0].(map[string]any)["meta"].(map[string]any)["count"].(float64)
	return int(n)
}
