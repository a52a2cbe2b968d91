package diverseselect

import (
	"context"
	"fmt"

	"github.com/sirupsen/logrus"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/moduletools"
	"github.com/weaviate/weaviate/entities/schema"
	"github.com/weaviate/weaviate/entities/search"
	rankmodels "github.com/weaviate/weaviate/usecases/modulecomponents/additional/models"
	"github.com/weaviate/weaviate/usecases/modulecomponents/additional/rank"

	"github.com/diverse-select/diverse-select/config"
)

// The rerank route: a gRPC SearchRequest.rerank {property, query}, or
// GraphQL _additional { rerank(...) }, on a collection that configures
// reranker-diverse-select (reranker.go). The result hook builds the plan from
// the class's reranker config, the rerank fields and what it sees of the
// search, loads what the search did not, and returns the selection with the
// rerank scores gRPC replies carry.

// rerank runs diverse selection on the candidate list (the query limit is
// the pool) and returns only the selected results, each with the
// rerank score gRPC replies need: 1 for the first down to 1/n for the last,
// in the order of the selection.
func (rr *Reranker) rerank(ctx context.Context, in []search.Result, params any, limit *int,
	argumentModuleParams map[string]any, cfg moduletools.ClassConfig,
) ([]search.Result, error) {
	p, ok := params.(*rank.Params)
	if !ok || p == nil {
		return nil, fmt.Errorf("%s: unexpected parameters %T", RerankerName, params)
	}
	if len(in) == 0 {
		return in, nil
	}
	class := rr.m.classByName(in[0].ClassName)
	if class == nil {
		return nil, fmt.Errorf("%s: class %q not found", RerankerName, in[0].ClassName)
	}
	if classConfig(class, RerankerName) == nil {
		// Only when this is the sole reranker enabled does Weaviate expose it
		// on classes that do not configure it: refuse rather than guess.
		return nil, fmt.Errorf("%s: class %s does not configure it: add moduleConfig {%q: {...}} to use diverse selection as its reranker",
			RerankerName, class.Class, RerankerName)
	}
	if err := rr.otherRerankers(class); err != nil {
		return nil, err // a class created without validation (vectorizer "none")
	}
	pl, err := rr.plan(ctx, class, p, argumentModuleParams, in)
	if err == nil {
		err = checkPoolPolicy(class, routeRerank, rerankPool(ctx, in))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: rerank: %w", RerankerName, err)
	}
	if in, err = rr.load(ctx, pl, in); err != nil {
		return nil, err
	}
	out, err := rr.m.selectResults(ctx, in, pl) // rerankHook's guard covers it
	if err != nil {
		return nil, named(RerankerName, err)
	}
	dropUnasked(ctx, out)
	for i := range out {
		s := float64(len(out)-i) / float64(len(out))
		ap := models.AdditionalProperties{}
		for k, v := range out[i].AdditionalProperties {
			ap[k] = v
		}
		ap[rerankProperty] = []*rankmodels.RankResult{{Score: &s}}
		if ex, ok := ap[ArgName].(map[string]any); ok {
			// gRPC replies carry no _additional.diverseSelect: the page's
			// figures go to explainScore (rerank_pages.go).
			rank, _ := ex["rank"].(int)
			offset, _ := ex["offset"].(int)
			exhausted, _ := ex["exhausted"].(*bool)
			page := explainPage(rank, offset, exhausted) + "\n" + explainLine(ex)
			if prev := out[i].ExplainScore; prev != "" {
				page = prev + "\n" + page
			}
			out[i].ExplainScore = page
		}
		out[i].AdditionalProperties = ap
	}
	return out, nil
}

// plan resolves a rerank call as diverse selection: the class's
// reranker-diverse-select config, overridden by the settings the rerank
// property carries (rerank_settings.go), with the property's name as
// textProperty and the rerank query as query text; the facts of the search
// from the module parameters and the results.
func (rr *Reranker) plan(ctx context.Context, class *models.Class, p *rank.Params,
	argumentModuleParams map[string]any, in []search.Result,
) (*plan, error) {
	query, st, err := rr.rerankSettings(class, carriedProperty(ctx, p.GetProperty()), p.GetQuery())
	if err != nil {
		return nil, err
	}
	s := searchFromModuleParams(argumentModuleParams, in)
	s.offset = rerankOffset(ctx) // the gRPC search's offset (rerank_pages.go)
	s.paged = s.offset > 0
	s.tenant = in[0].Tenant
	if s.tenant == "" {
		s.tenant = TenantFromContext(ctx)
	}
	return planFrom(class, routeRerank, query, st, s)
}

// rerankSettings reads a rerank call's settings: those the rerank property
// carries (or, on a collection that opts in, those the rerank query starts
// with: rerank_settings.go), the property's name as textProperty and the
// query text, merged over the class's reranker-diverse-select config.
func (rr *Reranker) rerankSettings(class *models.Class, property, rerankQuery string) (*config.Overrides, *settings, error) {
	raw, property, text, err := rr.rerankRequest(class, property, rerankQuery) // rerank_settings.go
	if err != nil {
		return nil, nil, err
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
	query, err := config.Parse(raw, rr.m.defaults.Limits)
	if err != nil {
		return nil, nil, err
	}
	st, err := rr.m.settingsFor(class, routeRerank, query)
	if err != nil {
		return nil, nil, err
	}
	return query, st, nil
}

// load fetches, in one batched read, what the selection needs and the search
// did not load: Weaviate loads the legacy vector for near and bm25 searches
// with a module additional property, but not named vectors, not vectors on
// hybrid, and over gRPC only the rerank property of the text.
//
// It returns the pool without the candidates whose object is gone, or was
// changed since a search with a filter (versions.go).
func (rr *Reranker) load(ctx context.Context, r *plan, in []search.Result) ([]search.Result, error) {
	// What the search deferred (deferred.go), selectResults takes from the
	// feature cache or reads with the candidates the cache does not hold.
	needVector := r.needsVectors() && !(vectorsDeferred(ctx) && r.cachesVectors())
	var props []string
	if !propertiesDeferred(ctx) {
		props = r.propertiesToExtract()
	}
	var missing []int
	for i := range in {
		if needVector && !hasVector(in[i], r.target) || !hasProps(in[i], props) {
			missing = append(missing, i)
		}
	}
	if len(missing) == 0 {
		return in, nil
	}
	if rr.m.multiGet == nil {
		return nil, fmt.Errorf("%s: the search did not load the vectors or properties the selection needs, and no database is at hand", RerankerName)
	}
	class := rr.m.classByName(r.className)
	if class != nil && schema.MultiTenancyEnabled(class) && r.tenant == "" {
		return nil, fmt.Errorf("%s: class %s is multi-tenant and the request's tenant is unknown here, "+
			"so the vectors the strategy needs cannot be loaded", RerankerName, r.className)
	}
	rr.m.metrics.degradedPath("refetch")
	rr.m.logger.WithFields(logrus.Fields{"class": r.className, "objects": len(missing), "candidates": len(in),
		"vectors": needVector, "properties": props}).Warn("diverse-select: the search did not load what the selection " +
		"needs; loading it again by id (request the vectors and text properties in the query to avoid this)")
	got, err := rr.m.readByID(ctx, in, missing, r.tenant)
	if err != nil {
		return nil, fmt.Errorf("%s: load the candidates' vectors and text: %w", RerankerName, err)
	}
	var gone map[int]bool
	for k, i := range missing {
		if k >= len(got) || !usableRead(ctx, &in[i], got[k]) {
			if gone == nil {
				gone = map[int]bool{}
			}
			gone[i] = true // deleted, or changed since a filtered search
			continue
		}
		fill(&in[i], got[k], r.target, needVector, props)
	}
	return withoutGone(in, gone), nil
}

func hasVector(res search.Result, target string) bool {
	if target == "" {
		return len(res.Vector) > 0
	}
	_, ok := res.Vectors[target]
	return ok
}

func hasProps(res search.Result, names []string) bool {
	props, _ := res.Schema.(map[string]any)
	for _, n := range names {
		if _, ok := props[n]; !ok {
			return false
		}
	}
	return true
}

// fill copies the loaded vector and properties into a search result without
// changing what the search already set.
func fill(dst *search.Result, src search.Result, target string, needVector bool, props []string) {
	if needVector {
		if target == "" {
			if len(dst.Vector) == 0 {
				dst.Vector = src.Vector
			}
		} else if v, ok := src.Vectors[target]; ok {
			vecs := models.Vectors{}
			for k, x := range dst.Vectors {
				vecs[k] = x
			}
			if _, ok := vecs[target]; !ok {
				vecs[target] = v
			}
			dst.Vectors = vecs
		}
	}
	if len(props) == 0 {
		return
	}
	have, _ := dst.Schema.(map[string]any)
	loaded, _ := src.Schema.(map[string]any)
	out := make(map[string]any, len(have)+len(props))
	for k, v := range have {
		out[k] = v
	}
	for _, n := range props {
		if _, ok := out[n]; !ok {
			if v, ok := loaded[n]; ok {
				out[n] = v
			}
		}
	}
	dst.Schema = out
}

// tenantKey carries a gRPC search's tenant to the result hooks (see the
// "grpc-search" patch): results of vector searches do not name their tenant.
type tenantKey struct{}

// WithTenant returns ctx carrying a search request's tenant.
func WithTenant(ctx context.Context, tenant string) context.Context {
	if tenant == "" {
		return ctx
	}
	return context.WithValue(ctx, tenantKey{}, tenant)
}

// TenantFromContext returns the tenant WithTenant stored, or "".
func TenantFromContext(ctx context.Context) string {
	t, _ := ctx.Value(tenantKey{}).(string)
	return t
}
