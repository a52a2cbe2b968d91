package engine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/search"
	rankmodels "github.com/weaviate/weaviate/usecases/modulecomponents/additional/models"

	"github.com/diverse-select/diverse-select/config"
)

// The rerank route: a gRPC SearchRequest.rerank {property, query}, or
// GraphQL _additional { rerank(...) }, on a collection that configures
// reranker-diverse-select (module/reranker.go). The stage (stage.go) takes it: the
// plan comes from the class's reranker config and the settings the rerank
// property carries, the query limit is the pool, the offset pages the
// selection, and each selected object gets the rerank score gRPC replies
// carry and its explanation in explainScore.

// resolveRerank is the rerank route's entry point: the rerank call's
// settings (rerankSettings) on a class that configures no other reranker;
// an offset above 0 pages.
func resolveRerank(e *Engine, c *arrival, _ *routeRow, class *models.Class, w window, s *searchFacts) (*config.Overrides, *settings, error) {
	s.offset, s.paged = w.offset, w.offset > 0
	if err := e.otherRerankers(class); err != nil { // a class created without validation
		return nil, nil, err
	}
	return e.rerankSettings(class, c.rerank.GetProperty(), c.rerank.GetQuery())
}

// rerankOverrides are a rerank call's own settings, parsed: those its
// property or query carries (rerank_settings.go), the property's name as
// textProperty and the query text.
func (e *Engine) rerankOverrides(class *models.Class, property, rerankQuery string) (*config.Overrides, error) {
	raw, property, text, err := e.rerankRequest(class, property, rerankQuery)
	if err != nil {
		return nil, err
	}
	if raw == nil {
		raw = map[string]any{}
	}
	if property != "" {
		raw[config.KeyTextProperty] = property
	}
	if text != "" {
		raw[config.KeyQuery] = text
	}
	return config.Parse(raw, e.defaults.Limits)
}

// rerankSettings reads a rerank call's settings: those the rerank property
// carries (or, on a collection that opts in, those the rerank query starts
// with: rerank_settings.go), the property's name as textProperty and the
// query text, merged over the class's reranker-diverse-select config.
func (e *Engine) rerankSettings(class *models.Class, property, rerankQuery string) (*config.Overrides, *settings, error) {
	overrides, err := e.rerankOverrides(class, property, rerankQuery)
	if err != nil {
		return nil, nil, err
	}
	st, err := e.settingsFor(class, RerankerName, overrides)
	if err != nil {
		return nil, nil, err
	}
	return overrides, st, nil
}

// giveRerankScores gives each selected object the rerank score gRPC replies
// need: 1 for the first down to 1/n for the last, in the selection's order.
// The objects' _additional maps are the stage's own (selectedObjects made
// them), so the scores go in place.
func giveRerankScores(out []search.Result) {
	for i := range out {
		s := float64(len(out)-i) / float64(len(out))
		out[i].AdditionalProperties[RerankProperty] = []*rankmodels.RankResult{{Score: &s}}
	}
}

// explainInScore adds each selected object's explanation to its
// explainScore, the gRPC reply's only per-object text (it carries no
// _additional.diverseSelect): the page line, then the explanation as JSON,
// after the search's own (bm25, hybrid).
func explainInScore(out []search.Result) {
	for i := range out {
		ex, ok := out[i].AdditionalProperties[ArgName].(map[string]any)
		if !ok {
			continue
		}
		rank, _ := ex["rank"].(int)
		offset, _ := ex["offset"].(int)
		exhausted, _ := ex["exhausted"].(*bool)
		text := explainPage(rank, offset, exhausted) + "\n" + explainLine(ex)
		if prev := out[i].ExplainScore; prev != "" {
			text = prev + "\n" + text
		}
		out[i].ExplainScore = text
	}
}

// A cross-encoder and diverse selection in one gRPC search. A collection
// whose reranker is another module (reranker-transformers, -cohere, ...)
// gets the gRPC rerank field's call; GraphQL adds diverse selection after it
// with the diverseSelect argument or field, which gRPC has no slot for. When
// such a search's rerank property carries settings (rerank_settings.go: the
// helpers' form), the stage takes the search as the field form would: the
// cross-encoder gets the property by its plain name and scores the pool,
// then the selection runs with its scores as relevance (relevanceSource
// rerank), as over GraphQL. The settings are validated against
// moduleConfig["diverse-select"] and its query policy, as the field's
// arguments are.

// resolveCrossEncoder is the cross-encoder route's entry point: the
// settings the rerank property carries for another reranker, read as the
// field form's arguments with the property as textProperty and the rerank
// query as the query text; an offset above 0 pages.
func resolveCrossEncoder(e *Engine, c *arrival, row *routeRow, class *models.Class, w window, s *searchFacts) (*config.Overrides, *settings, error) {
	s.offset, s.paged = w.offset, w.offset > 0
	property, raw, err := parseRerankProperty(c.rerank.GetProperty())
	if err != nil {
		return nil, nil, err
	}
	raw[config.KeyTextProperty] = property
	if q := c.rerank.GetQuery(); strings.TrimSpace(q) != "" {
		raw[config.KeyQuery] = q // plain text, as on the rerank route
	}
	overrides, err := config.Parse(raw, e.defaults.Limits)
	if err != nil {
		return nil, nil, err
	}
	st, err := e.settingsFor(class, row.config, overrides)
	if err != nil {
		return nil, nil, err
	}
	return overrides, st, nil
}

// Pages on the gRPC rerank route. A gRPC search's offset would make the
// database hand the selection a pool that starts after it; the stage runs
// the search from its first result, as on page 1, and pages the selection
// (search.go, setSearchWindow).

// explainPage is what a gRPC reply's explainScore says of a selected
// result, the rerank route's only per-object text: the rank in the whole
// paged selection, the page's offset and, when the query pages, whether the
// pool is spent.
func explainPage(rank, offset int, exhausted *bool) string {
	s := fmt.Sprintf("diverseSelect: rank %d, offset %d", rank, offset)
	if exhausted != nil {
		s += fmt.Sprintf(", exhausted %t", *exhausted)
	}
	return s
}

// otherRerankers refuses a class whose moduleConfig names another reranker.
// Its error names no module: the caller's entry point does, once.
func (e *Engine) otherRerankers(class *models.Class) error {
	all, _ := class.ModuleConfig.(map[string]any)
	var others []string
	for name := range all {
		if name != RerankerName && e.isReranker(name) {
			others = append(others, name)
		}
	}
	if len(others) == 0 {
		return nil
	}
	sort.Strings(others)
	return fmt.Errorf("class %s also configures the reranker %s; Weaviate would give each query's rerank "+
		"to one of them at random: configure one reranker per collection", class.Class, strings.Join(others, ", "))
}

// ValidateRerankerClass refuses an invalid reranker-diverse-select config
// (same keys as diverse-select) and a class that configures another
// reranker too: Weaviate would hand each query's rerank to one of them at
// random.
func (e *Engine) ValidateRerankerClass(class *models.Class) error {
	raw := classConfig(class, RerankerName)
	if raw == nil {
		return nil
	}
	if err := e.otherRerankers(class); err != nil {
		return Named(RerankerName, err)
	}
	return Named(ArgName, config.ValidateClass(raw, e.defaults, schemaOf(class)))
}

// NoRerankerError is the refusal of a rerank on a collection that
// configures no reranker: Weaviate's own words for it ("unknown capability:
// rerank") name neither the collection nor the fix. fix says how the
// caller's side configures one (the module's moduleConfig, or the gateway's
// config file).
func NoRerankerError(collection, fix string) error {
	return &markedError{mark: errRefused, err: fmt.Errorf("collection %s has no reranker, so a rerank (the client "+
		"helpers' selection, or a plain rerank) has nothing to run: %s", collection, fix)}
}

// moduleFix is NoRerankerError's fix inside Weaviate.
const moduleFix = `configure reranker-diverse-select as its reranker - moduleConfig {"reranker-diverse-select": {}} ` +
	`(its selection defaults, e.g. {"tokenBudget": 1500}), given when the collection is created ` +
	`(Python: reranker_config=Configure.Reranker.custom("reranker-diverse-select", {...}); TypeScript: ` +
	`reranker: {name: 'reranker-diverse-select', config: {...}}) or by a config update; docs/clients.md`

// hasReranker reports whether class configures any reranker module.
func (e *Engine) hasReranker(class *models.Class) bool {
	all, _ := class.ModuleConfig.(map[string]any)
	for name := range all {
		if e.isReranker(name) {
			return true
		}
	}
	return false
}
