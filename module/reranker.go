package diverseselect

import (
	"context"

	"github.com/tailor-platform/graphql/language/ast"
	"github.com/weaviate/weaviate/entities/dto"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/modulecapabilities"
	"github.com/weaviate/weaviate/entities/moduletools"
	"github.com/weaviate/weaviate/entities/schema"
	"github.com/weaviate/weaviate/entities/search"
	"github.com/weaviate/weaviate/usecases/modulecomponents/additional/rank"

	"github.com/diverse-select/diverse-select/engine"
)

// Reranker is the module RerankerName. It shares the engine (defaults, token
// counters, feature cache) with diverse-select when both are enabled.
//
// Weaviate exposes a reranker-typed module only on classes whose moduleConfig
// names it (unless it is the only reranker enabled), so on a class that
// configures it and no other reranker no other module can take the rerank
// call; ValidateClass refuses a class configuring two rerankers, where
// Weaviate would pick one at random per query.
type Reranker struct {
	e *engine.Engine
	// ownsEngine: Init initialises m and the reranker answers the stage
	// (false when diverse-select, registered too, owns them).
	ownsEngine bool
}

// NewReranker returns the reranker module over the engine m (New(...) for a
// standalone one).
func NewReranker(m *Module, ownsEngine bool) *Reranker {
	return &Reranker{e: m.e, ownsEngine: ownsEngine}
}

// Name implements modulecapabilities.Module.
func (rr *Reranker) Name() string { return engine.RerankerName }

// Type implements modulecapabilities.Module: the reranker type is what the
// gRPC rerank field reaches, and its class config is updatable natively.
func (rr *Reranker) Type() modulecapabilities.ModuleType { return modulecapabilities.Text2TextReranker }

// Init initialises the engine when this module owns it.
func (rr *Reranker) Init(ctx context.Context, params moduletools.ModuleInitParams) error {
	if rr.ownsEngine {
		return rr.e.Init(params)
	}
	return nil
}

// MutableModuleConfig asks the "mutable-config" patch to validate an updated
// config; reranker configs are updatable natively (and replace the class's
// previous reranker).
func (rr *Reranker) MutableModuleConfig() bool { return true }

// ClassConfigDefaults implements modulecapabilities.ClassConfigurator.
func (rr *Reranker) ClassConfigDefaults() map[string]any { return map[string]any{} }

// PropertyConfigDefaults implements modulecapabilities.ClassConfigurator.
func (rr *Reranker) PropertyConfigDefaults(*schema.DataType) map[string]any { return nil }

// SelectResults implements the explorer's ResultSelector for a server that
// enables reranker-diverse-select alone; with diverse-select enabled too,
// that module answers the stage.
func (rr *Reranker) SelectResults(ctx context.Context, params dto.GetParams, searchPool engine.SearchPool) ([]search.Result, bool, error) {
	if !rr.ownsEngine {
		return nil, false, nil
	}
	return rr.e.SelectResults(ctx, params, searchPool)
}

// Close implements modulecapabilities.ModuleWithClose: it ends the engine's
// plugins when this module owns the engine.
func (rr *Reranker) Close() error {
	if rr.ownsEngine {
		rr.e.Close()
	}
	return nil
}

// MetaInfo is shown in /v1/meta.
func (rr *Reranker) MetaInfo() (map[string]any, error) {
	return map[string]any{
		"name":    engine.RerankerName,
		"version": engine.Version,
		"doc": "diverse selection through the rerank field (gRPC and GraphQL) on collections that configure " +
			engine.RerankerName + "; settings as for " + engine.Name + " (see its entry), per query in the rerank property: " +
			`body|` + engine.RerankSettingsVersion + `|{"strategy":"mmr","tokenBudget":300}` + " (the client helpers write it; the rerank query is plain text)",
	}, nil
}

// AdditionalProperties provides `rerank`, with Weaviate's rerank GraphQL
// field, so gRPC's SearchRequest.rerank and GraphQL's _additional { rerank }
// both reach the selection.
func (rr *Reranker) AdditionalProperties() map[string]modulecapabilities.AdditionalProperty {
	return map[string]modulecapabilities.AdditionalProperty{
		engine.RerankProperty: {
			GraphQLNames:           []string{engine.RerankProperty},
			GraphQLFieldFunction:   rank.New(nil).AdditionalFieldFn,
			GraphQLExtractFunction: rr.extractRerankGuarded,
			SearchFunctions: modulecapabilities.AdditionalSearch{
				ExploreGet:  rr.e.RerankHook(),
				ExploreList: rr.e.RerankHook(),
			},
		},
	}
}

// extractRerank reads _additional { rerank(property: ..., query: ...) } into
// the *rank.Params the gRPC parser produces (only literal strings: Weaviate
// passes the raw syntax).
func extractRerank(args []*ast.Argument, _ *models.Class) any {
	out := &rank.Params{}
	for _, a := range args {
		s, ok := a.Value.(*ast.StringValue)
		if !ok {
			continue // the hook reports the missing property
		}
		v := s.Value
		switch a.Name.Value {
		case "property":
			out.Property = &v
		case "query":
			out.Query = &v
		}
	}
	return out
}

// ValidateClass refuses an invalid config (same keys as diverse-select) and a
// class that configures another reranker too.
func (rr *Reranker) ValidateClass(_ context.Context, class *models.Class, _ moduletools.ClassConfig) error {
	return engine.Guard(rr.e.Logger(), "class config validation", func() error { return rr.e.ValidateRerankerClass(class) })
}

// extractRerankGuarded is extractRerank behind a guard: on a panic the
// params are empty (the panic is logged). It reads the module's logger when
// called, not when the property is registered, so Init's logger is used.
func (rr *Reranker) extractRerankGuarded(args []*ast.Argument, class *models.Class) any {
	var out any
	if err := engine.Guard(rr.e.Logger(), "rerank argument parsing", func() error { out = extractRerank(args, class); return nil }); err != nil {
		return &rank.Params{}
	}
	return out
}
