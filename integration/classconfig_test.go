package integration

import (
	"fmt"
	"strings"
	"testing"

	"github.com/weaviate/weaviate/entities/models"
)

// withDiverse returns a class moduleConfig holding text2vec-transformers'
// settings and diverse-select's cfg.
func withDiverse(cfg map[string]any) map[string]any {
	mc := transformers()
	mc["diverse-select"] = cfg
	return mc
}

// TestClassDefaults: moduleConfig["diverse-select"] supplies the defaults of
// both query forms; query arguments override them.
func TestClassDefaults(t *testing.T) {
	const class = "Defaults"
	ensure(t, class, func(t testing.TB) {
		createClass(t, &models.Class{
			Class:      class,
			Vectorizer: "text2vec-transformers",
			ModuleConfig: withDiverse(map[string]any{
				"strategy": "mmr", "tokenBudget": 77, "candidates": 6, "maxResults": 4, "lambda": 0.9, "textProperty": "body",
			}),
			Properties: bodyProps(),
		})
		importDocs(t, class, healthDocs)
	})
	search := healthNear(10)
	idx := index(class, healthDocs)
	for _, tc := range []struct {
		name, query    string
		strategy       string
		budget, pool   int
		maxSelected    int
		checkCandidate bool
	}{
		{"argument, class defaults", sel(class, search, ``, "body"), "mmr", 77, 6, 4, true},
		{"argument overrides", sel(class, search, `strategy: "topk", tokenBudget: 40, candidates: 8, maxResults: 5`, "body"), "topk", 40, 8, 5, true},
		{"argument overrides the budget only", sel(class, search, `tokenBudget: 33`, "body"), "mmr", 33, 6, 4, true},
		{"argument overrides a strategy parameter", sel(class, search, `lambda: 0.2`, "body"), "mmr", 77, 6, 4, true},
		{"field, class defaults (limit is the pool)", field(class, healthNear(9), ``, "body"), "mmr", 77, 9, 4, true},
		{"field overrides", field(class, healthNear(9), `strategy: "dpp", tokenBudget: 30`, "body"), "dpp", 30, 9, 4, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hits := get(t, class, tc.query, nil)
			checkSelection(t, hits, tc.budget, true)
			d := hits[0].DS
			if d.Strategy != tc.strategy || d.Budget != tc.budget || d.Candidates != tc.pool {
				t.Errorf("strategy %q budget %d candidates %d, want %q %d %d", d.Strategy, d.Budget, d.Candidates, tc.strategy, tc.budget, tc.pool)
			}
			if len(hits) > tc.maxSelected {
				t.Errorf("%d selected, maxResults is %d", len(hits), tc.maxSelected)
			}
		})
	}
	t.Run("lambda from the class changes mmr's choice", func(t *testing.T) {
		// lambda 0.9 (class) weighs relevance; lambda 0.1 (query) weighs novelty.
		relevant := get(t, class, sel(class, search, `tokenBudget: 0, maxResults: 3`, "body"), nil)
		novel := get(t, class, sel(class, search, `tokenBudget: 0, maxResults: 3, lambda: 0.1`, "body"), nil)
		if fmt.Sprint(ids(relevant)) == fmt.Sprint(ids(novel)) {
			t.Errorf("lambda 0.9 and 0.1 select the same %v: the class's lambda is not applied", groupsOf(t, relevant, idx))
		}
	})
}

// classExists asks the server through the client.
func classExists(t testing.TB, name string) bool {
	ok, err := client.Schema().ClassExistenceChecker().WithClassName(name).Do(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// TestClassConfigRefusedOnCreate: an invalid diverse-select config is
// refused when the class is created, with a message naming the key.
func TestClassConfigRefusedOnCreate(t *testing.T) {
	named := map[string]models.VectorConfig{
		"main": {Vectorizer: map[string]any{"none": map[string]any{}}, VectorIndexType: "hnsw"},
	}
	for _, tc := range []struct {
		name  string
		cfg   map[string]any
		named bool
		want  []string
	}{
		{"unknown strategy", map[string]any{"strategy": "nope"}, false, []string{"strategy", "nope", "adagres"}},
		{"negative tokenBudget", map[string]any{"tokenBudget": -1}, false, []string{"tokenBudget", "-1"}},
		{"textProperty names a missing property", map[string]any{"textProperty": "missing"}, false, []string{"textProperty", "missing", "body"}},
		{"tokenProperty names a text property", map[string]any{"tokenProperty": "body"}, false, []string{"tokenProperty", "ntok"}},
		{"unknown tokenizer", map[string]any{"tokenizer": "gpt2"}, false, []string{"tokenizer", "cl100k_base"}},
		{"parameter of another strategy", map[string]any{"strategy": "topk", "lambda": 0.5}, false, []string{"lambda", "topk"}},
		{"out-of-range parameter", map[string]any{"strategy": "mmr", "lambda": 5}, false, []string{"lambda", "[0, 1]"}},
		{"query is not a class setting", map[string]any{"query": "x"}, false, []string{"query"}},
		{"wrong type", map[string]any{"tokenBudget": "many"}, false, []string{"tokenBudget"}},
		{"named vectors: unknown targetVector", map[string]any{"targetVector": "other"}, true, []string{"targetVector", "other", "main"}},
		{"named vectors: unknown strategy", map[string]any{"strategy": "nope"}, true, []string{"strategy", "nope"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const class = "Refused"
			c := &models.Class{Class: class, Properties: bodyProps()}
			if tc.named {
				c.VectorConfig = named
				c.ModuleConfig = map[string]any{"diverse-select": tc.cfg}
			} else {
				c.Vectorizer = "text2vec-transformers"
				c.ModuleConfig = withDiverse(tc.cfg)
			}
			_ = client.Schema().ClassDeleter().WithClassName(class).Do(ctx(t))
			err := client.Schema().ClassCreator().WithClass(c).Do(ctx(t))
			if err == nil {
				_ = client.Schema().ClassDeleter().WithClassName(class).Do(ctx(t))
				t.Fatalf("class with diverse-select config %v was created, want it refused", tc.cfg)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if classExists(t, class) {
				t.Errorf("the refused class exists")
			}
		})
	}
}

// updateDiverse replaces the class's diverse-select config through the
// client's class updater (GET, modify, PUT).
func updateDiverse(t testing.TB, class string, cfg map[string]any) error {
	t.Helper()
	c, err := client.Schema().ClassGetter().WithClassName(class).Do(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	mc, _ := c.ModuleConfig.(map[string]any)
	if mc == nil {
		mc = map[string]any{}
	}
	mc["diverse-select"] = cfg
	c.ModuleConfig = mc
	return client.Schema().ClassUpdater().WithClass(c).Do(ctx(t))
}

// TestClassConfigUpdate: a bad config is refused on update (naming the key)
// and leaves the old one in force; a good update applies to the next query.
func TestClassConfigUpdate(t *testing.T) {
	const class = "Mutable"
	createClass(t, &models.Class{
		Class:        class,
		Vectorizer:   "text2vec-transformers",
		ModuleConfig: withDiverse(map[string]any{"strategy": "mmr", "tokenBudget": 80}),
		Properties:   bodyProps(),
	})
	importDocs(t, class, healthDocs)
	query := sel(class, healthNear(10), ``, "body")
	expect := func(t *testing.T, strategy string, budget int) {
		t.Helper()
		hits := get(t, class, query, nil)
		checkSelection(t, hits, budget, true)
		if d := hits[0].DS; d.Strategy != strategy || d.Budget != budget {
			t.Errorf("query sees strategy %q budget %d, want %q %d", d.Strategy, d.Budget, strategy, budget)
		}
	}
	expect(t, "mmr", 80)
	for _, tc := range []struct {
		name string
		cfg  map[string]any
		want []string
	}{
		{"unknown strategy", map[string]any{"strategy": "nope"}, []string{"strategy", "nope", "allowed"}},
		{"negative tokenBudget", map[string]any{"strategy": "mmr", "tokenBudget": -1}, []string{"tokenBudget"}},
		{"missing textProperty", map[string]any{"textProperty": "missing"}, []string{"textProperty", "missing"}},
		{"parameter of another strategy", map[string]any{"strategy": "topk", "lambda": 0.5}, []string{"lambda", "topk"}},
	} {
		t.Run("refused: "+tc.name, func(t *testing.T) {
			err := updateDiverse(t, class, tc.cfg)
			if err == nil {
				t.Fatalf("update to %v accepted, want it refused", tc.cfg)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			expect(t, "mmr", 80)
		})
	}
	t.Run("good update applies to the next query", func(t *testing.T) {
		if err := updateDiverse(t, class, map[string]any{"strategy": "dpp", "tokenBudget": 45}); err != nil {
			t.Fatalf("good update refused: %v", err)
		}
		expect(t, "dpp", 45)
		if err := updateDiverse(t, class, map[string]any{"strategy": "topk", "tokenBudget": 50}); err != nil {
			t.Fatalf("second good update refused: %v", err)
		}
		expect(t, "topk", 50)
	})
}

// TestLegacyNoneClassConfig documents a Weaviate limit: module validation
// does not run when a legacy-vector class with vectorizer "none" is created
// (usecases/schema validateCanAddClass skips it), so a bad config is stored;
// the query then fails with a clear message naming the key, and an update of
// the config is validated (the patched update path checks every class).
func TestLegacyNoneClassConfig(t *testing.T) {
	const class = "LegacyNone"
	_ = client.Schema().ClassDeleter().WithClassName(class).Do(ctx(t))
	err := client.Schema().ClassCreator().WithClass(&models.Class{
		Class:        class,
		Vectorizer:   "none",
		ModuleConfig: map[string]any{"diverse-select": map[string]any{"strategy": "nope"}},
		Properties:   bodyProps(),
	}).Do(ctx(t))
	if err != nil {
		t.Logf("Weaviate now validates vectorizer-none classes on create: %v", err)
		if !strings.Contains(err.Error(), "strategy") {
			t.Errorf("refusal %q does not name strategy", err)
		}
		return
	}
	t.Log("observed limit: a legacy vectorizer-none class with strategy \"nope\" was created (no module validation on create)")
	importDocs(t, class, []Doc{
		{Key: "a", Body: "first chunk", Vector: []float32{1, 0, 0}},
		{Key: "b", Body: "second chunk", Vector: []float32{0, 1, 0}},
	})
	msg := gqlError(t, sel(class, "nearVector: {vector: [1, 0, 0]}, limit: 2", ``, "body"), nil)
	for _, w := range []string{class, "invalid diverse-select config", "strategy", "nope"} {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not mention %q", msg, w)
		}
	}
	assertAlive(t)
	if err := updateDiverse(t, class, map[string]any{"strategy": "nope", "tokenBudget": -3}); err == nil {
		t.Errorf("a bad update of the vectorizer-none class was accepted")
	}
	if err := updateDiverse(t, class, map[string]any{"strategy": "topk", "tokenBudget": 10}); err != nil {
		t.Fatalf("good update refused: %v", err)
	}
	hits := get(t, class, sel(class, "nearVector: {vector: [1, 0, 0]}, limit: 2", ``, "body"), nil)
	checkSelection(t, hits, 10, true)
	if hits[0].DS.Strategy != "topk" {
		t.Errorf("strategy %q after the update, want topk", hits[0].DS.Strategy)
	}
}
