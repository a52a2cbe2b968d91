package engine

import (
	"context"
	"fmt"

	"github.com/weaviate/weaviate/entities/modulecapabilities"
	"github.com/weaviate/weaviate/entities/moduletools"
	"github.com/weaviate/weaviate/entities/search"
)

// The result hooks the adapters register with Weaviate. The selection
// stage takes every query that asks for a selection before its hooks run,
// so a query reaches a hook only by a path that has no stage: the hooks
// refuse it, and count the error by kind.

// FieldHook is the result hook of _additional { diverseSelect }.
func (e *Engine) FieldHook() modulecapabilities.AdditionalPropertyFn {
	return e.countingErrors(routeField, e.selectHook)
}

// RerankHook is the result hook of reranker-diverse-select's rerank
// property.
func (e *Engine) RerankHook() modulecapabilities.AdditionalPropertyFn {
	return e.countingErrors(routeRerank, e.rerankHook)
}

func (e *Engine) selectHook(context.Context, []search.Result, any, *int, map[string]any, moduletools.ClassConfig) ([]search.Result, error) {
	return nil, Named(ArgName, errNoStage)
}

// rerankHook: the stage takes a rerank on a class that configures the
// module; Weaviate calls the hook when this is the only reranker enabled
// and the class configures none.
func (e *Engine) rerankHook(_ context.Context, in []search.Result, _ any, _ *int, _ map[string]any, _ moduletools.ClassConfig) ([]search.Result, error) {
	if len(in) > 0 {
		if class := e.classByName(in[0].ClassName); class != nil && classConfig(class, RerankerName) == nil {
			return nil, fmt.Errorf("%s: class %s does not configure it: add moduleConfig {%q: {...}} to use diverse selection as its reranker",
				RerankerName, class.Class, RerankerName)
		}
	}
	return nil, Named(RerankerName, errNoStage)
}

// countingErrors wraps a result hook so that its errors are counted by kind.
func (e *Engine) countingErrors(route route, hook modulecapabilities.AdditionalPropertyFn) modulecapabilities.AdditionalPropertyFn {
	return func(ctx context.Context, in []search.Result, params any, limit *int,
		args map[string]any, cfg moduletools.ClassConfig,
	) ([]search.Result, error) {
		out, err := hook(ctx, in, params, limit, args, cfg)
		if err != nil {
			at := route
			if r, ok := params.(*Request); ok && r != nil {
				at = r.route
			}
			e.metrics.failure(at.String(), err)
		}
		return out, err
	}
}
