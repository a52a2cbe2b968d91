// Package hookorder fixes the order in which Weaviate runs the result hooks of
// one query (its "additional properties": rerank, diverseSelect, generate,
// ...). Weaviate ranges over a Go map of them, so without this order generate
// could run over the whole candidate pool before diverse selection dropped
// most of it, and a reranker could score objects after the selection was made.
//
// The order is the RAG pipeline's: rerankers, then diverse selection, then
// every other hook (annotations of the kept objects, by name), then generate,
// so the LLM sees exactly the selected objects in the selection's output order.
// Weaviate's search and its distance/certainty handling run before any hook.
//
// The package has no Weaviate imports: the glue the build patcher adds to
// Weaviate's usecases/modules package calls it (cmd/patch-weaviate, patch
// "hook-order").
package hookorder

import (
	"cmp"
	"slices"
)

// The hook names the order places. They are Weaviate's and the module's
// additional-property names (checked against their constants in the tests).
const (
	Rerank        = "rerank"        // every reranker module, reranker-diverse-select included
	DiverseSelect = "diverseSelect" // the diverse-select module (argument and field)
	Generate      = "generate"      // every generative module (singlePrompt, groupedTask)
)

// stage of a hook in the pipeline; hooks of one stage run by name.
func stage(name string) int {
	switch name {
	case Rerank:
		return 0
	case DiverseSelect:
		return 1
	case Generate:
		return 3
	default:
		return 2
	}
}

// Names returns the names of the hooks a query asked for, in the order they
// must run.
func Names[V any](hooks map[string]V) []string {
	names := make([]string, 0, len(hooks))
	for name := range hooks {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(stage(a), stage(b)), cmp.Compare(a, b))
	})
	return names
}
