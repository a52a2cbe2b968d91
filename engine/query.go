package engine

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/weaviate/weaviate/entities/dto"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/modelsext"
	schemaConfig "github.com/weaviate/weaviate/entities/schema/config"
	"github.com/weaviate/weaviate/entities/search"

	"github.com/diverse-select/diverse-select/config"
)

// stageQuery is one query in the stage: its plan, resolved once from the query's
// params, and search, the params of the search that fetches its pool - the
// window (from the first result, the offset paging the selection), what the
// search loads, and the hooks that run on the pool.
type stageQuery struct {
	plan    *plan
	search  dto.GetParams
	arrival arrival
	// explain: the query asks for explainScore, where the rerank routes
	// put each object's explanation.
	explain bool
}

// resolve builds the query's plan, exactly once per query, and the params
// of its pool's search.
func (e *Engine) resolve(c arrival, params dto.GetParams) (*stageQuery, error) {
	if params.Selection != nil && params.Selection.MMR != nil {
		return nil, &markedError{mark: errRefused, err: errors.New("cannot be combined with Weaviate's own MMR selection: choose one - " +
			"for diverse selection drop the search's MMR and give strategy \"mmr\" (its lambda is MMR's balance), " +
			"or for Weaviate's MMR send the search without selection settings")}
	}
	if params.GroupBy != nil || params.Cursor != nil {
		return nil, &markedError{mark: errRefused, err: errors.New("cannot be combined with groupBy or after: " +
			"selection works on one flat candidate list")}
	}
	class := c.class
	if class == nil {
		if class = e.classByName(params.ClassName); class == nil {
			return nil, fmt.Errorf("class %q not found", params.ClassName)
		}
	}
	s := searchFromParams(params)
	window := queryWindow(params)
	row := &routes[c.route]
	overrides, st, err := row.resolve(e, &c, row, class, window, &s)
	if err != nil {
		return nil, err
	}
	p, err := planFrom(class, c.route, overrides, st, s)
	if err != nil {
		return nil, err
	}
	p.read, p.noProps = c.read, params.AdditionalProperties.NoProps
	q := &stageQuery{plan: p, arrival: c, search: params, explain: params.AdditionalProperties.ExplainScore}
	for _, prop := range params.Properties {
		p.loads = append(p.loads, prop.Name)
	}
	if err := e.setSearchWindow(q, class, window); err != nil {
		return nil, err
	}
	if err := setSearchHooks(q, class); err != nil {
		return nil, err
	}
	e.setSearchLoads(q, class)
	return q, nil
}

// decorate finishes the selected objects for the route's reply: the rerank
// route's scores, and a gRPC search's explanations in explainScore.
func (q *stageQuery) decorate(out []search.Result) {
	row := routes[q.arrival.route]
	if row.rerankScores {
		giveRerankScores(out)
	}
	// Weaviate replies with explainScore only when the query asks for it.
	if q.explain && row.explainsInScore {
		explainInScore(out)
	}
}

// planFrom builds the plan from the settings merged for class.
func planFrom(class *models.Class, route route, overrides *config.Overrides, st *settings, s searchFacts) (*plan, error) {
	var err error
	p := &plan{routeLabel: route.String(), ownRerank: routes[route].ownsRerank, className: class.Class, tenant: s.tenant, settings: *st, maxOut: s.limit,
		relevance: s.relevance, queryText: s.queryText, threshold: s.threshold, filtered: s.filtered}
	if st.eff.Query != "" {
		p.queryText = st.eff.Query
	}
	if err := config.CheckQueryText(p.queryText, st.limits); err != nil {
		return nil, err
	}
	if p.offset, p.paged, err = pageOffset(overrides, s); err != nil {
		return nil, err
	}
	if p.paged && st.eff.WidenTo > 0 {
		return nil, &config.Error{Key: config.KeyWidenTo, Msg: fmt.Sprintf(
			"is %d and the query pages (offset): pages need one fixed pool; give widenTo: 0 with offset, or raise candidates", st.eff.WidenTo)}
	}
	p.target, p.metric, err = resolveTarget(class, overrides, st, s.targets)
	if err != nil {
		return nil, err
	}
	p.multiVector = targetIsMultiVector(class, p.target)
	return p, nil
}

// settingsFor merges module defaults, class config and query, and picks the
// text properties.
func (e *Engine) settingsFor(class *models.Class, name string, overrides *config.Overrides) (*settings, error) {
	e.resolutions.Add(1)
	var classOverrides *config.Overrides
	if raw := classConfig(class, name); raw != nil {
		var err error
		if classOverrides, err = config.Parse(raw, e.defaults.Limits); err != nil {
			return nil, fmt.Errorf("class %s has an invalid %s config: %w", class.Class, name, err)
		}
	}
	if err := checkPolicy(class, name, overrides); err != nil { // rerank_settings.go
		return nil, err
	}
	eff, err := config.Merge(e.defaults, classOverrides, overrides)
	if err != nil {
		return nil, err
	}
	s := schemaOf(class)
	if err := config.CheckSchema(overrides, s); err != nil {
		return nil, err
	}
	if err := config.CheckPropertyParams(eff, s); err != nil {
		return nil, err
	}
	st := &settings{eff: eff, limits: e.defaults.Limits}
	if eff.TextProperty != "" {
		// Each property once: a repeated one would only repeat its text.
		st.textProps = []string{eff.TextProperty}
		for _, name := range eff.ExtraTextProperties {
			if !slices.Contains(st.textProps, name) { // config.Limits bound the list
				st.textProps = append(st.textProps, name)
			}
		}
	} else {
		// Default: every text property, in schema order - the chunk as a whole.
		for _, p := range class.Properties {
			if len(p.DataType) == 1 && (p.DataType[0] == "text" || p.DataType[0] == "text[]") {
				st.textProps = append(st.textProps, p.Name)
			}
		}
	}
	return st, nil
}

// resolveTarget picks the vector compared between candidates and its metric:
// the query's targetVector argument, else the search's target vector, else
// the class's configured targetVector, else the class's only named vector,
// else the legacy vector. A class with several named vectors and no target
// is an error only for a selection that compares vectors.
func resolveTarget(class *models.Class, overrides *config.Overrides, st *settings, searchTargets []string) (target, metric string, err error) {
	eff := st.eff
	searchTargets = slices.Compact(slices.Sorted(slices.Values(searchTargets)))
	needsVector := st.needsVectors()
	switch {
	case overrides != nil && overrides.TargetVector != "":
		target = overrides.TargetVector
	case len(searchTargets) == 1:
		target = searchTargets[0]
	case len(searchTargets) > 1 && slices.Contains(searchTargets, eff.TargetVector):
		target = eff.TargetVector
	case len(searchTargets) > 1:
		if needsVector {
			return "", "", &config.Error{Key: config.KeyTargetVector, Msg: fmt.Sprintf(
				"must be set when the search targets several vectors (%s): diverse selection compares candidates on one vector",
				strings.Join(searchTargets, ", "))}
		}
		target = searchTargets[0] // only the metric is read
	case eff.TargetVector != "":
		target = eff.TargetVector
	case len(class.VectorConfig) == 1 && !modelsext.ClassHasLegacyVectorIndex(class):
		for name := range class.VectorConfig {
			target = name
		}
	case len(class.VectorConfig) > 1 && !modelsext.ClassHasLegacyVectorIndex(class):
		if !needsVector {
			return "", "cosine", nil // the selection reads no vector; relevance needs no metric without a search vector
		}
		names := schemaOf(class).NamedVectors
		sort.Strings(names)
		return "", "", &config.Error{Key: config.KeyTargetVector, Msg: fmt.Sprintf(
			"must be set: class %s has several named vectors (%s) and the search names none", class.Class, strings.Join(names, ", "))}
	}
	vc, ok := modelsext.ClassGetVectorConfig(class, target)
	if target != "" && !ok {
		names := schemaOf(class).NamedVectors
		sort.Strings(names)
		return "", "", &config.Error{Key: config.KeyTargetVector, Msg: fmt.Sprintf("names %q, which is not a named vector of class %s; named vectors: %s",
			target, class.Class, strings.Join(names, ", "))}
	}
	metric = "cosine"
	switch ic := vc.VectorIndexConfig.(type) {
	case schemaConfig.VectorIndexConfig:
		if d := ic.DistanceName(); d != "" {
			metric = d
		}
	case map[string]any:
		if d, ok := ic["distance"].(string); ok && d != "" {
			metric = d
		}
	}
	return target, metric, nil
}

// pageOffset is the query's offset: the diverse-select setting offset (the
// rerank route's place for it) or the query's own offset (GraphQL); giving
// both with different values is an error rather than a guess.
func pageOffset(overrides *config.Overrides, s searchFacts) (offset int, paged bool, err error) {
	if s.offset < 0 {
		return 0, false, &config.Error{Key: config.KeyOffset, Msg: fmt.Sprintf(
			"is %d; allowed: an integer >= 0, the number of results the earlier pages showed", s.offset)}
	}
	if !overrides.Has(config.KeyOffset) {
		return s.offset, s.paged, nil
	}
	if s.paged && s.offset != overrides.Offset {
		return 0, false, &config.Error{Key: config.KeyOffset, Msg: fmt.Sprintf(
			"is given twice, %d in the diverse-select settings and %d as the query's offset; give it once", overrides.Offset, s.offset)}
	}
	return overrides.Offset, true, nil
}
