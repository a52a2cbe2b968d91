package integration

import (
	"fmt"
	"strings"
	"testing"

	"github.com/weaviate/weaviate/entities/models"
)

// namedDocs: three objects share a title (identical "title" vectors) but have
// distinct bodies; the others differ in both. Group is the title group.
var namedDocs = []Doc{
	{Key: "t1", Group: 1, Props: map[string]any{"title": "Statins and cholesterol"}, Body: "Statins lower LDL cholesterol by a third in most adults."},
	{Key: "t2", Group: 1, Props: map[string]any{"title": "Statins and cholesterol"}, Body: "Muscle pain is the side effect patients on statins report most often."},
	{Key: "t3", Group: 1, Props: map[string]any{"title": "Statins and cholesterol"}, Body: "Grapefruit juice raises statin levels in the blood."},
	{Key: "t4", Group: 2, Props: map[string]any{"title": "Exercise and heart health"}, Body: "Brisk walking for thirty minutes a day strengthens the heart and lowers cholesterol."},
	{Key: "t5", Group: 3, Props: map[string]any{"title": "Diet and cholesterol"}, Body: "Oats and beans bring cholesterol down through soluble fibre."},
	{Key: "t6", Group: 4, Props: map[string]any{"title": "Diabetes risk on statins"}, Body: "Statins slightly raise blood sugar in some people."},
}

// namedClass creates a class with two named vectors, both from
// text2vec-transformers: "title" embeds the title, "body" the body.
func namedClass(t testing.TB, name string, diverse map[string]any) string {
	t.Helper()
	ensure(t, name, func(t testing.TB) {
		vc := func(prop string) models.VectorConfig {
			return models.VectorConfig{
				Vectorizer:      map[string]any{"text2vec-transformers": map[string]any{"properties": []any{prop}, "vectorizeClassName": false}},
				VectorIndexType: "hnsw",
			}
		}
		c := &models.Class{
			Class:        name,
			VectorConfig: map[string]models.VectorConfig{"title": vc("title"), "body": vc("body")},
			Properties:   bodyProps(&models.Property{Name: "title", DataType: []string{"text"}}),
		}
		if diverse != nil {
			c.ModuleConfig = map[string]any{"diverse-select": diverse}
		}
		createClass(t, c)
		importDocs(t, name, namedDocs)
	})
	return name
}

// TestNamedVectors: the vector compared between candidates is the query's
// targetVector argument, else the search's targetVectors, else the class's
// configured targetVector; a class with two named vectors and no target is a
// clear error for strategies that compare vectors. dedupThreshold shows which
// vector was used: on "title" the three same-title objects are duplicates, on
// "body" nothing is. No query asks for _additional { vectors }.
func TestNamedVectors(t *testing.T) {
	bare := namedClass(t, "NamedBare", nil)
	cfg := namedClass(t, "NamedCfg", map[string]any{"targetVector": "title"})
	const near = `nearText: {concepts: ["statins cholesterol"], targetVectors: [%q]}, limit: 6`
	bm25 := `bm25: {query: "statins cholesterol"}, limit: 6`
	hybrid := `hybrid: {query: "statins cholesterol", targetVectors: [%q]}, limit: 6`
	dedup := `strategy: "topk", dedupThreshold: 0.95, candidates: 6`
	multi := `nearText: {concepts: ["statins cholesterol"], targetVectors: ["title", "body"]}, limit: 6`
	for _, tc := range []struct {
		name, class, search, diverse string
		titleDuplicatesRemoved       bool
	}{
		{"search target title", bare, fmt.Sprintf(near, "title"), dedup, true},
		{"search target body", bare, fmt.Sprintf(near, "body"), dedup, false},
		{"hybrid target title", bare, fmt.Sprintf(hybrid, "title"), dedup, true},
		{"hybrid target body", bare, fmt.Sprintf(hybrid, "body"), dedup, false},
		{"configured target, bm25 names none", cfg, bm25, dedup, true},
		{"search target beats the configured one", cfg, fmt.Sprintf(near, "body"), dedup, false},
		{"query argument beats the search target", cfg, fmt.Sprintf(near, "body"), dedup + `, targetVector: "title"`, true},
		{"query argument on a bare class", bare, bm25, dedup + `, targetVector: "title"`, true},
		{"query argument body", bare, fmt.Sprintf(near, "title"), dedup + `, targetVector: "body"`, false},
		{"configured target, plain Get", cfg, `limit: 6`, dedup, true},
		{"configured target among several search targets", cfg, multi, dedup, true},
		{"query argument among several search targets", bare, multi, dedup + `, targetVector: "title"`, true},
	} {
		for _, form := range []string{"argument", "field"} {
			t.Run(tc.name+"/"+form, func(t *testing.T) {
				var hits []Hit
				if form == "argument" {
					hits = get(t, tc.class, sel(tc.class, tc.search, tc.diverse, "title body"), nil)
				} else {
					hits = get(t, tc.class, field(tc.class, tc.search, strings.Replace(tc.diverse, ", candidates: 6", "", 1), "title body"), nil)
				}
				checkSelection(t, hits, 0, true)
				groups := groupsOf(t, hits, index(tc.class, namedDocs))
				removed := hits[0].DS.Removed
				if tc.titleDuplicatesRemoved {
					if removed < 2 || len(duplicatePairs(groups)) > 0 {
						t.Errorf("compared on title: removed %d, groups %v; want the 2 extra same-title objects removed", removed, groups)
					}
				} else if removed != 0 {
					t.Errorf("compared on body: removed %d (groups %v), want 0: the title vector was used", removed, groups)
				}
			})
		}
	}
	t.Run("mmr on a named vector avoids same-title objects", func(t *testing.T) {
		hits := get(t, bare, sel(bare, fmt.Sprintf(near, "title"), `strategy: "mmr", lambda: 0.3, maxResults: 3, candidates: 6`, "title"), nil)
		checkSelection(t, hits, 0, true)
		if pairs := duplicatePairs(groupsOf(t, hits, index(bare, namedDocs))); len(pairs) > 0 {
			t.Errorf("mmr on the title vector picked same-title objects %v", pairs)
		}
	})
	t.Run("two named vectors and no target is a clear error", func(t *testing.T) {
		for _, q := range []string{
			sel(bare, bm25, `strategy: "mmr"`, "title"),
			field(bare, bm25, `strategy: "adagres"`, "title"),
			sel(bare, bm25, `strategy: "topk", dedupThreshold: 0.9`, "title"),
			sel(bare, multi, `strategy: "mmr"`, "title"),
		} {
			msg := gqlError(t, q, nil)
			for _, w := range []string{"targetVector", "body", "title"} {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not mention %q", msg, w)
				}
			}
		}
		assertAlive(t)
	})
	t.Run("no target needed when no vector is compared", func(t *testing.T) {
		hits := get(t, bare, sel(bare, bm25, `strategy: "topk", tokenBudget: 40`, "title"), nil)
		checkSelection(t, hits, 40, true)
	})
}

// TestLegacyVector: the legacy (unnamed) vector is used for a
// text2vec-transformers class and for a vectorizer-none class with
// explicit vectors.
func TestLegacyVector(t *testing.T) {
	t.Run("text2vec-transformers", func(t *testing.T) {
		c := health(t)
		hits := get(t, c, sel(c, healthNear(19), `strategy: "topk", dedupThreshold: 0.99, candidates: 19`, "body"), nil)
		checkSelection(t, hits, 0, true)
		// g1a and g1b embed identically ("very" is a stopword): one is removed.
		if hits[0].DS.Removed < 1 {
			t.Errorf("removed %d, want at least the identical g1a/g1b pair", hits[0].DS.Removed)
		}
	})
	t.Run("vectorizer none, explicit vectors", func(t *testing.T) {
		c := plantedClass(t)
		hits := get(t, c, sel(c, scenario(scenClusters), `strategy: "topk", dedupThreshold: 0.95`, "body"), nil)
		checkSelection(t, hits, 0, true)
		groups := groupsOf(t, hits, plantedIdx)
		if len(hits) != 3 || len(duplicatePairs(groups)) > 0 {
			t.Errorf("dedup on the planted clusters kept groups %v, want one object per cluster", groups)
		}
	})
}

// TestMultiTenant: selections on a multi-tenant class contain only the
// queried tenant's objects, with vectors loaded for that tenant.
func TestMultiTenant(t *testing.T) {
	const class = "Tenanted"
	alpha := healthDocs[:12]
	beta := healthDocs[4:]
	var docs []Doc
	for _, d := range alpha {
		d.Tenant = "alpha"
		docs = append(docs, d)
	}
	for _, d := range beta {
		d.Tenant = "beta"
		docs = append(docs, d)
	}
	createClass(t, &models.Class{
		Class:              class,
		Vectorizer:         "text2vec-transformers",
		ModuleConfig:       transformers(),
		Properties:         bodyProps(),
		MultiTenancyConfig: &models.MultiTenancyConfig{Enabled: true},
	})
	if err := client.Schema().TenantsCreator().WithClassName(class).
		WithTenants(models.Tenant{Name: "alpha"}, models.Tenant{Name: "beta"}, models.Tenant{Name: "empty"}).Do(ctx(t)); err != nil {
		t.Fatalf("create tenants: %v", err)
	}
	importDocs(t, class, docs)
	idx := index(class, docs)
	for _, tenant := range []string{"alpha", "beta"} {
		for _, tc := range []struct{ name, search, diverse string }{
			{"nearText mmr", healthNear(10), `strategy: "mmr", tokenBudget: 100, dedupThreshold: 0.8`},
			{"hybrid adagres", `hybrid: {query: "statins cholesterol heart"}, limit: 10`, `strategy: "adagres", tokenBudget: 100, dedupThreshold: 0.8`},
			{"bm25 dpp", `bm25: {query: "statins cholesterol"}, limit: 10`, `strategy: "dpp", tokenBudget: 100`},
		} {
			t.Run(tenant+"/"+tc.name, func(t *testing.T) {
				search := fmt.Sprintf("tenant: %q, %s", tenant, tc.search)
				hits := get(t, class, sel(class, search, tc.diverse, "body"), nil)
				checkSelection(t, hits, 100, true)
				for _, h := range hits {
					d, ok := idx[h.ID]
					if !ok || d.Tenant != tenant {
						t.Errorf("tenant %s: selection contains %s (%q) of tenant %q", tenant, h.ID, h.Str("body"), d.Tenant)
					}
				}
				for i := range hits {
					for j := i + 1; j < len(hits); j++ {
						if strings.Contains(tc.diverse, "dedup") && cosine(hits[i].Str("body"), hits[j].Str("body")) >= 0.8 {
							t.Errorf("near-duplicates %q and %q both selected: the tenant's vectors were not loaded", hits[i].Str("body"), hits[j].Str("body"))
						}
					}
				}
				want := len(alpha)
				if tenant == "beta" {
					want = len(beta)
				}
				if hits[0].DS.Candidates > want {
					t.Errorf("pool of %d candidates, tenant %s has %d objects", hits[0].DS.Candidates, tenant, want)
				}
			})
		}
	}
	t.Run("empty tenant", func(t *testing.T) {
		hits := get(t, class, sel(class, `tenant: "empty", `+healthNear(5), `strategy: "mmr"`, "body"), nil)
		if len(hits) != 0 {
			t.Errorf("empty tenant returned %d objects", len(hits))
		}
	})
	t.Run("field form", func(t *testing.T) {
		hits := get(t, class, field(class, `tenant: "beta", `+healthNear(8), `strategy: "mmr", tokenBudget: 90`, "body"), nil)
		checkSelection(t, hits, 90, true)
		for _, h := range hits {
			if idx[h.ID].Tenant != "beta" {
				t.Errorf("field form: %s is not beta's", h.ID)
			}
		}
	})
}
