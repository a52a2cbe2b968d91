package integration

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"testing"

	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"

	"github.com/diverse-select/diverse-select/selectors"
)

// snapshot reads every object of every class (every tenant of a
// multi-tenant class) through the Go client, with its vectors, as JSON keyed
// by class/tenant/id: properties, legacy and named vectors, creation and
// update times.
func snapshot(t *testing.T) map[string]string {
	t.Helper()
	schema, err := client.Schema().Getter().Do(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, c := range schema.Classes {
		tenants := []string{""}
		if c.MultiTenancyConfig != nil && c.MultiTenancyConfig.Enabled {
			ts, err := client.Schema().TenantsGetter().WithClassName(c.Class).Do(ctx(t))
			if err != nil {
				t.Fatal(err)
			}
			tenants = tenants[:0]
			for _, tn := range ts {
				tenants = append(tenants, tn.Name)
			}
		}
		for _, tenant := range tenants {
			after := ""
			for {
				g := client.Data().ObjectsGetter().WithClassName(c.Class).WithVector().WithLimit(100)
				if tenant != "" {
					g = g.WithTenant(tenant)
				}
				if after != "" {
					g = g.WithAfter(after)
				}
				objs, err := g.Do(ctx(t))
				if err != nil {
					t.Fatalf("list %s/%s: %v", c.Class, tenant, err)
				}
				for _, o := range objs {
					b, err := json.Marshal(o)
					if err != nil {
						t.Fatal(err)
					}
					out[fmt.Sprintf("%s/%s/%s", c.Class, tenant, o.ID)] = string(b)
					after = o.ID.String()
				}
				if len(objs) < 100 {
					break
				}
			}
		}
	}
	return out
}

// TestQueriesWriteNothing: a heavy query run - every strategy, both query
// forms, several searches and vector kinds, the gRPC rerank route, from
// concurrent clients - leaves every object of every class exactly as it was:
// properties, vectors (legacy and named), creation and update times.
func TestQueriesWriteNothing(t *testing.T) {
	h := health(t)
	named := namedClass(t, "SafetyNamed", nil)
	rr := rerankHealth(t)
	before := snapshot(t)
	if len(before) < len(healthDocs)*2 {
		t.Fatalf("snapshot holds %d objects, want at least %d", len(before), len(healthDocs)*2)
	}
	for _, o := range before {
		var m map[string]any
		_ = json.Unmarshal([]byte(o), &m)
		if m["vector"] == nil && m["vectors"] == nil {
			continue
		}
		if m["creationTimeUnix"] == nil || m["lastUpdateTimeUnix"] == nil {
			t.Fatalf("snapshot lacks times: %s", o)
		}
	}

	var queries []string
	for _, s := range selectors.Names() {
		d := fmt.Sprintf(`strategy: %q, tokenBudget: 150`, s)
		for _, search := range []string{healthNear(12), `bm25: {query: "statins liver"}, limit: 12`, `hybrid: {query: "cholesterol"}, limit: 12`} {
			queries = append(queries, sel(h, search, d, "body"), field(h, search, d, "body"))
		}
		queries = append(queries, sel(named, `nearText: {concepts: ["statins"], targetVectors: ["body"]}, limit: 8`, d, "body"))
	}
	grpcReq := rerankRequest(rr, 12)
	grpcReq.NearText = &pb.NearTextSearch{Query: []string{healthQuery}}
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(queries))
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := g; i < g+len(queries); i++ {
				q := queries[i%len(queries)]
				if res := graphql(t, q, nil); len(res.Errors) > 0 {
					errs <- fmt.Sprintf("%s\nquery: %s", res.errText(), q)
				}
				if i%10 == 0 {
					if _, err := grpcSearch(t, grpcReq); err != nil {
						errs <- "gRPC rerank: " + err.Error()
					}
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}

	after := snapshot(t)
	var changed []string
	for k, v := range before {
		if after[k] != v {
			changed = append(changed, k)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			changed = append(changed, k+" (new)")
		}
	}
	sort.Strings(changed)
	if len(changed) > 0 {
		t.Fatalf("%d of %d objects changed by queries: %v", len(changed), len(before), changed[:min(len(changed), 10)])
	}
	t.Logf("%d objects in %d-query run (8 clients, %d distinct GraphQL queries, gRPC rerank) unchanged", len(before), 8*len(queries), len(queries))
}
