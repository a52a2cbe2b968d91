package diverseselect

import (
	"context"
	"strings"

	"github.com/weaviate/weaviate/entities/dto"
	"github.com/weaviate/weaviate/entities/search"

	"github.com/diverse-select/diverse-select/config"
)

// A cross-encoder and diverse selection in one gRPC search. A collection
// whose reranker is another module (reranker-transformers, -cohere, ...)
// gets the gRPC rerank field's call; GraphQL adds diverse selection after it
// with the diverseSelect argument or field, which gRPC has no slot for. When
// such a search's rerank property carries settings (rerank_settings.go: the
// helpers' form), the property reaches the cross-encoder as its plain name
// and combineRerank adds the diverseSelect field's parameters to the search
// (the explorer's "widen" glue calls PrepareSearch with the search's
// parameters): the hook-order patch runs the cross-encoder first, then the
// selection, whose relevance is the cross-encoder's scores (relevanceSource
// rerank), as over GraphQL. The settings are validated against
// moduleConfig["diverse-select"] and its query policy, as the field's
// arguments are.

// combineRerank adds the diverseSelect field to a gRPC search that reranks
// with another module and carries settings in its rerank property.
func combineRerank(ctx context.Context, params *dto.GetParams) {
	c, ok := ctx.Value(carriedKey{}).(carried)
	addl := &params.AdditionalProperties
	if !ok || !strings.Contains(c.property, RerankSettingsSeparator) || addl.ModuleParams == nil {
		return
	}
	if _, reranks := addl.ModuleParams[rerankProperty]; !reranks {
		return
	}
	if _, given := addl.ModuleParams[ArgName]; given {
		return
	}
	rr := serverReranker.Load()
	if rr == nil {
		return
	}
	class := rr.m.classByName(params.ClassName)
	if class == nil || classConfig(class, RerankerName) != nil {
		return // reranker-diverse-select takes the call itself
	}
	r := &Request{m: rr.m, form: formField, hasArgs: true}
	addl.ModuleParams[ArgName] = r
	property, raw, err := parseRerankProperty(c.property)
	if err != nil {
		r.err = err
		return
	}
	raw[config.KeyTextProperty] = property
	if q, _ := addl.ModuleParams[rerankProperty].(interface{ GetQuery() string }); q != nil && q.GetQuery() != "" {
		raw[config.KeyQuery] = q.GetQuery() // plain text, as on the rerank route
	}
	if r.query, r.err = config.Parse(raw, rr.m.defaults.Limits); r.err != nil {
		return
	}
	if r.settings, r.err = rr.m.settingsFor(class, routeField, r.query); r.err != nil {
		return
	}
	r.err = checkPoolPolicy(class, routeField, c.limit)
}

// explainGRPC gives each selected result of a gRPC search (combineRerank)
// its explanation in explainScore, the reply's only per-object text.
func explainGRPC(ctx context.Context, out []search.Result) {
	if _, grpc := ctx.Value(carriedKey{}).(carried); !grpc {
		return
	}
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
			text = prev + "\n" + text // the search's own (bm25, hybrid) first, as on the rerank route
		}
		out[i].ExplainScore = text
	}
}
