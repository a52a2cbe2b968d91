package diverseselect

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/sirupsen/logrus"
	"github.com/tailor-platform/graphql/language/ast"
	"github.com/weaviate/weaviate/entities/additional"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/modulecapabilities"
	"github.com/weaviate/weaviate/entities/moduletools"
	"github.com/weaviate/weaviate/entities/multi"
	"github.com/weaviate/weaviate/entities/schema"
	"github.com/weaviate/weaviate/entities/search"
	rankmodels "github.com/weaviate/weaviate/usecases/modulecomponents/additional/models"
	"github.com/weaviate/weaviate/usecases/modulecomponents/additional/rank"
	"github.com/weaviate/weaviate/usecases/modulecomponents/arguments/nearText"

	"github.com/diverse-select/diverse-select/config"
)

// RerankerName is the reranker-typed module that makes diverse selection
// reachable over gRPC: the official clients (Python v4, TypeScript v3, Go,
// Java, C#) query over gRPC, whose SearchRequest has no slot for module
// arguments but does carry `rerank {property, query}`. A collection that
// configures this module as its reranker gets diverse selection from that
// field, with strategy, budget and parameters from its moduleConfig.
const RerankerName = "reranker-diverse-select"

// rerankProperty is the additional property (and GraphQL field) every
// Weaviate reranker provides; the gRPC parser fills it from SearchRequest.rerank.
const rerankProperty = "rerank"

// Reranker is the module RerankerName. It shares the engine (defaults, token
// counters, feature cache) with diverse-select when both are enabled.
//
// Weaviate exposes a reranker-typed module only on classes whose moduleConfig
// names it (unless it is the only reranker enabled), so on a class that
// configures it and no other reranker no other module can take the rerank
// call; ValidateClass refuses a class configuring two rerankers, where
// Weaviate would pick one at random per query.
type Reranker struct {
	m *Module
	// ownsEngine: Init initialises m (false when diverse-select, registered
	// too, owns it).
	ownsEngine bool
	// appState is Weaviate's *state.State, whose DB is created after the
	// modules' Init: db reads it at query time.
	appState any
	// isReranker tells Weaviate's reranker modules apart.
	isReranker func(name string) bool
}

// multiGetter is the part of Weaviate's DB the reranker uses.
type multiGetter interface {
	MultiGet(ctx context.Context, query []multi.Identifier, addl additional.Properties, tenant string) ([]search.Result, error)
}

// NewReranker returns the reranker module over the engine m (New(...) for a
// standalone one).
func NewReranker(m *Module, ownsEngine bool) *Reranker {
	return &Reranker{m: m, ownsEngine: ownsEngine, isReranker: func(name string) bool { return strings.HasPrefix(name, "reranker-") }}
}

// Name implements modulecapabilities.Module.
func (rr *Reranker) Name() string { return RerankerName }

// Type implements modulecapabilities.Module: the reranker type is what the
// gRPC rerank field reaches, and its class config is updatable natively.
func (rr *Reranker) Type() modulecapabilities.ModuleType { return modulecapabilities.Text2TextReranker }

// Init initialises the engine when this module owns it, and takes Weaviate's
// DB (to load what a gRPC search did not) and module provider from the app state.
func (rr *Reranker) Init(ctx context.Context, params moduletools.ModuleInitParams) error {
	if rr.ownsEngine {
		if err := rr.m.Init(ctx, params); err != nil {
			return err
		}
	}
	rr.appState = params.GetAppState()
	if p, ok := appStateField(params.GetAppState(), "Modules").(interface{ IsReranker(string) bool }); ok {
		rr.isReranker = p.IsReranker
	}
	return nil
}

// db re-fetches what the search did not load (nil outside a server).
func (rr *Reranker) db() multiGetter {
	db, _ := appStateField(rr.appState, "DB").(multiGetter)
	return db
}

// appStateField reads an exported field of Weaviate's *state.State by name:
// importing that package would pull most of Weaviate's dependencies into
// this module's go.mod for two fields. nil if absent.
func appStateField(appState any, name string) any {
	v := reflect.ValueOf(appState)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	f := v.Elem().FieldByName(name)
	if !f.IsValid() || !f.CanInterface() || (f.Kind() == reflect.Pointer && f.IsNil()) {
		return nil
	}
	return f.Interface()
}

// MutableModuleConfig asks the "mutable-config" patch to validate an updated
// config; reranker configs are updatable natively (and replace the class's
// previous reranker).
func (rr *Reranker) MutableModuleConfig() bool { return true }

// ClassConfigDefaults implements modulecapabilities.ClassConfigurator.
func (rr *Reranker) ClassConfigDefaults() map[string]any { return map[string]any{} }

// PropertyConfigDefaults implements modulecapabilities.ClassConfigurator.
func (rr *Reranker) PropertyConfigDefaults(*schema.DataType) map[string]any { return nil }

// validateClass refuses an invalid config (same keys as diverse-select) and a
// class that configures another reranker too: Weaviate would hand each
// query's rerank to one of them at random.
func (rr *Reranker) validateClass(class *models.Class) error {
	raw := classConfigOf(class, RerankerName)
	if raw == nil {
		return nil
	}
	if err := rr.otherRerankers(class); err != nil {
		return err
	}
	return named(ArgName, config.ValidateClass(raw, rr.m.defaults, schemaOf(class)))
}

// otherRerankers refuses a class whose moduleConfig names another reranker.
func (rr *Reranker) otherRerankers(class *models.Class) error {
	all, _ := class.ModuleConfig.(map[string]any)
	var others []string
	for name := range all {
		if name != RerankerName && rr.isReranker(name) {
			others = append(others, name)
		}
	}
	if len(others) == 0 {
		return nil
	}
	sort.Strings(others)
	return fmt.Errorf("%s: class %s also configures the reranker %s; Weaviate would give each query's rerank "+
		"to one of them at random: configure one reranker per collection", RerankerName, class.Class, strings.Join(others, ", "))
}

// Close implements modulecapabilities.ModuleWithClose: it ends the engine's
// plugins when this module owns the engine.
func (rr *Reranker) Close() error {
	if rr.ownsEngine {
		return rr.m.Close()
	}
	return nil
}

// MetaInfo is shown in /v1/meta.
func (rr *Reranker) MetaInfo() (map[string]any, error) {
	return map[string]any{
		"name":    RerankerName,
		"version": Version,
		"doc": "diverse selection through the rerank field (gRPC and GraphQL) on collections that configure " +
			RerankerName + "; settings as for " + Name + " (see its entry)",
	}, nil
}

// AdditionalProperties provides `rerank`, with Weaviate's rerank GraphQL
// field, so gRPC's SearchRequest.rerank and GraphQL's _additional { rerank }
// both reach the selection.
func (rr *Reranker) AdditionalProperties() map[string]modulecapabilities.AdditionalProperty {
	return map[string]modulecapabilities.AdditionalProperty{
		rerankProperty: {
			GraphQLNames:           []string{rerankProperty},
			GraphQLFieldFunction:   rank.New(nil).AdditionalFieldFn,
			GraphQLExtractFunction: rr.extractRerankGuarded,
			SearchFunctions: modulecapabilities.AdditionalSearch{
				ExploreGet:  rr.m.countingErrors(routeRerank, rr.rerankHook),
				ExploreList: rr.m.countingErrors(routeRerank, rr.rerankHook),
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
	if classConfigOf(class, RerankerName) == nil {
		// Only when this is the sole reranker enabled does Weaviate expose it
		// on classes that do not configure it: refuse rather than guess.
		return nil, fmt.Errorf("%s: class %s does not configure it: add moduleConfig {%q: {...}} to use diverse selection as its reranker",
			RerankerName, class.Class, RerankerName)
	}
	if err := rr.otherRerankers(class); err != nil {
		return nil, err // a class created without validation (vectorizer "none")
	}
	r, err := rr.request(ctx, class, p, argumentModuleParams, in)
	if err != nil {
		return nil, err
	}
	if err := rr.load(ctx, r, in); err != nil {
		return nil, err
	}
	out, err := rr.m.selectResults(ctx, in, r) // rerankHook's guard covers it
	if err != nil {
		return nil, named(RerankerName, err)
	}
	for i := range out {
		s := float64(len(out)-i) / float64(len(out))
		ap := models.AdditionalProperties{}
		for k, v := range out[i].AdditionalProperties {
			ap[k] = v
		}
		ap[rerankProperty] = []*rankmodels.RankResult{{Score: &s}}
		out[i].AdditionalProperties = ap
	}
	return out, nil
}

// request resolves a rerank call as diverse selection: the class's
// reranker-diverse-select config, with the rerank property as textProperty
// and the rerank query as query text.
func (rr *Reranker) request(ctx context.Context, class *models.Class, p *rank.Params,
	argumentModuleParams map[string]any, in []search.Result,
) (*Request, error) {
	raw := map[string]any{}
	if prop := p.GetProperty(); prop != "" {
		raw[config.KeyTextProperty] = prop
	}
	if q := p.GetQuery(); q != "" {
		raw[config.KeyQuery] = q
	}
	r := &Request{m: rr.m, form: formField, cfgName: RerankerName}
	if r.query, r.err = config.Parse(raw, rr.m.defaults.MaxCandidates); r.err != nil {
		return nil, fmt.Errorf("%s: rerank: %w", RerankerName, r.err)
	}
	if err := r.resolveClass(class); err != nil {
		return nil, fmt.Errorf("%s: rerank: %w", RerankerName, err)
	}
	args := map[string]any{}
	var concepts []string
	for name, v := range argumentModuleParams {
		np, ok := v.(modulecapabilities.NearParam)
		if !ok {
			continue
		}
		args[name] = map[string]any{"targetVectors": np.GetTargetVectors()}
		if nt, ok := v.(*nearText.NearTextParams); ok && nt != nil {
			concepts = nt.Values
		}
	}
	if err := r.resolveTarget(class, args); err != nil {
		return nil, fmt.Errorf("%s: rerank: %w", RerankerName, err)
	}
	r.queryText = r.eff.Query
	if r.queryText == "" {
		r.queryText = strings.Join(concepts, " ")
	}
	r.source = sourceOf(in)
	r.tenant = in[0].Tenant
	if r.tenant == "" {
		r.tenant = TenantFromContext(ctx)
	}
	r.prepared = true
	return r, nil
}

// sourceOf tells where relevance comes from, as the search kind is not
// visible to result hooks: keyword and hybrid searches set scores, near
// searches distances only, a plain list neither (then the order is the
// relevance).
func sourceOf(in []search.Result) relevanceSource {
	dist, score := false, false
	for _, res := range in {
		dist = dist || res.Dist != 0
		score = score || res.Score != 0
	}
	switch {
	case score:
		return fromScore
	case dist:
		return fromDistance
	}
	return fromOrder
}

// load fetches, in one batched read, what the selection needs and the search
// did not load: Weaviate loads the legacy vector for near and bm25 searches
// with a module additional property, but not named vectors, not vectors on
// hybrid, and over gRPC only the rerank property of the text.
func (rr *Reranker) load(ctx context.Context, r *Request, in []search.Result) error {
	needVector := r.eff.Selector.UsesVectors() || r.eff.DedupThreshold > 0
	props := r.GetPropertiesToExtract()
	var missing []int
	for i := range in {
		if needVector && !hasVector(in[i], r.target) || !hasProps(in[i], props) {
			missing = append(missing, i)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	db := rr.db()
	if db == nil {
		return fmt.Errorf("%s: the search did not load the vectors or properties the selection needs, and no database is at hand", RerankerName)
	}
	class := rr.m.classByName(r.className)
	if class != nil && schema.MultiTenancyEnabled(class) && r.tenant == "" {
		return fmt.Errorf("%s: class %s is multi-tenant and the request's tenant is unknown here, "+
			"so the vectors the strategy needs cannot be loaded", RerankerName, r.className)
	}
	ids := make([]multi.Identifier, len(missing))
	for k, i := range missing {
		ids[k] = multi.Identifier{ID: in[i].ID.String(), ClassName: in[i].ClassName}
	}
	rr.m.metrics.degradedPath("refetch")
	rr.m.logger.WithFields(logrus.Fields{"class": r.className, "objects": len(missing), "candidates": len(in),
		"vectors": needVector, "properties": props}).Warn("diverse-select: the search did not load what the selection " +
		"needs; loading it again by id (request the vectors and text properties in the query to avoid this)")
	got, err := db.MultiGet(ctx, ids, additional.Properties{}, r.tenant)
	if err != nil {
		return fmt.Errorf("%s: load the candidates' vectors and text: %w", RerankerName, err)
	}
	for k, i := range missing {
		if k >= len(got) || got[k].ID != in[i].ID {
			continue // deleted since the search: the selection reports what is missing
		}
		fill(&in[i], got[k], r.target, needVector, props)
	}
	return nil
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

// classConfigOf returns the class's moduleConfig[name], or nil.
func classConfigOf(class *models.Class, name string) map[string]any {
	if class == nil {
		return nil
	}
	all, _ := class.ModuleConfig.(map[string]any)
	cfg, _ := all[name].(map[string]any)
	return cfg
}

// tenantKey carries a gRPC search's tenant to the result hooks (see the
// "grpc-tenant" patch): results of vector searches do not name their tenant.
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
