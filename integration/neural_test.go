package integration

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/weaviate/weaviate/entities/models"

	"github.com/diverse-select/diverse-select/integration/stack"
)

// TestNeuralEmbedder runs the embedder's neural mode (all-MiniLM-L6-v2 from
// the project's .venv) behind Weaviate's text2vec-transformers module, as a
// collection's inferenceUrl: the nearest chunks of a question share its
// meaning, not its words, and the default selection takes one chunk per
// facet of it, never both of a reworded pair.
func TestNeuralEmbedder(t *testing.T) {
	root, err := stack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	c, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	emb, err := stack.StartEmbedder(c, stack.Options{BinDir: filepath.Join(root, "bin"),
		EmbedderArgs: []string{"-mode", "neural", "-python", filepath.Join(root, ".venv", "bin", "python")}})
	if err != nil {
		t.Fatalf("start the neural embedder: %v (make test runs `make venv` first)", err)
	}
	defer emb.Stop()

	const class = "NeuralChunk"
	createClass(t, &models.Class{Class: class, Vectorizer: "text2vec-transformers",
		ModuleConfig: map[string]any{"text2vec-transformers": map[string]any{"vectorizeClassName": false, "inferenceUrl": emb.EmbedderURL}},
		Properties:   bodyProps()})
	// Groups 1-3 are the three facets of the question; 1 holds a reworded
	// pair. Only group 1 shares a word ("heart") with the question.
	docs := []Doc{
		{Key: "statins", Group: 1, Body: "Statins lower LDL cholesterol and cut the risk of a heart attack."},
		{Key: "statins-reworded", Group: 1, Body: "Drugs of the statin family reduce LDL cholesterol, which lowers the risk of heart attacks."},
		{Key: "exercise", Group: 2, Body: "Regular aerobic exercise such as brisk walking strengthens the cardiovascular system."},
		{Key: "diet", Group: 3, Body: "A diet rich in vegetables, whole grains and oily fish protects the arteries."},
		{Key: "engine", Group: 4, Body: "The carburettor mixes air and fuel before combustion in older engines."},
		{Key: "dough", Group: 5, Body: "Knead the dough for ten minutes until it becomes smooth and elastic."},
		{Key: "offside", Group: 6, Body: "The offside rule in football stops attackers from waiting beside the goal."},
		{Key: "taxes", Group: 7, Body: "Tax returns must be filed before the end of April."},
	}
	importDocs(t, class, docs)
	idx := index(class, docs)
	search := `nearText: {concepts: ["How can I keep my heart healthy?"]}`

	// Plain search: the four on-topic chunks come first.
	top := get(t, class, plain(class, search+", limit: 4", "body grp"), nil)
	for _, h := range top {
		if g := idx[h.ID].Group; g > 3 {
			t.Errorf("plain top-4 holds the off-topic %q", idx[h.ID].Key)
		}
	}
	// The default selection: three facets, the reworded pair not both.
	hits := get(t, class, sel(class, search, "maxResults: 3, candidates: 8", "body grp"), nil)
	checkSelection(t, hits, 0, true)
	groups := map[int]bool{}
	for _, h := range hits {
		groups[idx[h.ID].Group] = true
	}
	if len(hits) != 3 || !groups[1] || !groups[2] || !groups[3] {
		var keys []string
		for _, h := range hits {
			keys = append(keys, idx[h.ID].Key)
		}
		t.Fatalf("default selection %v, want one chunk of each facet (statins, exercise, diet)", keys)
	}
}
