package diverseselect

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/modelsext"
	schemaConfig "github.com/weaviate/weaviate/entities/schema/config"

	"github.com/diverse-select/diverse-select/config"
)

// plan is everything one query's selection needs, resolved once by the
// stage (stage.go, resolve) before the search runs and never changed after.
// The routes differ only in where the query's settings come from.
type plan struct {
	route     route
	className string
	tenant    string
	settings
	// maxOut caps the output (the top-level form's query limit; 0 = none).
	maxOut int
	// target is the vector compared between candidates ("" = the legacy
	// vector), metric its distance, for relevance from distances.
	target, metric string
	// multiVector: target is a multi-vector (multivector.go).
	multiVector bool
	// relevance is where candidates' relevance comes from (see relevances).
	relevance relevanceSource
	queryText string
	// threshold is the search's certainty or distance, applied to the pool
	// before the selection (see threshold.keep).
	threshold threshold
	// offset is the number of results earlier pages showed: the selection
	// is the page after them ((*selectors.Selector).RunPage). paged is set when the
	// query gives an offset, even 0: then the response says whether the
	// pool is spent (exhausted).
	offset int
	paged  bool
	// poolSize is the pool the search was asked for (0 = unknown):
	// widening helps only when the search returned all of it.
	poolSize int
	// deferred: the pool's search reads ids and scores only (deferred.go);
	// nil when it loads what the selection reads.
	deferred *deferral
	// filtered: the search has a filter, so an object changed since it ran
	// is dropped when read again (versions.go).
	filtered bool
	// read reads objects by id for this query (the engine's multiGet, or
	// the gateway's upstream reads); nil: none at hand, nothing deferred.
	read MultiGetFunc
}

// settings are the merged configuration of one query on one class and the
// text properties it reads: what the GraphQL field needs right after
// extraction, before the search arguments are known.
type settings struct {
	eff       *config.Effective // strategy and parameters, budget, pool, order, ...
	textProps []string
	limits    config.Limits // the module's input limits
}

// searchFacts is what the stage knows of the search that produces the
// candidates, from the query's params (searchFromParams).
type searchFacts struct {
	relevance relevanceSource
	queryText string   // nearText concepts, bm25/hybrid query
	targets   []string // the search's target vectors
	threshold threshold
	limit     int // the query limit, when it caps the output (top-level form)
	tenant    string
	filtered  bool
	// offset is the query's own offset (GraphQL), paged whether it gave one.
	offset int
	paged  bool
}

// planFrom builds the plan from the settings merged for class.
func planFrom(class *models.Class, route route, query *config.Overrides, st *settings, s searchFacts) (*plan, error) {
	var err error
	p := &plan{route: route, className: class.Class, tenant: s.tenant, settings: *st, maxOut: s.limit,
		relevance: s.relevance, queryText: s.queryText, threshold: s.threshold, filtered: s.filtered}
	if st.eff.Query != "" {
		p.queryText = st.eff.Query
	}
	if err := config.CheckQueryText(p.queryText, st.limits); err != nil {
		return nil, err
	}
	if p.offset, p.paged, err = pageOffset(query, s); err != nil {
		return nil, err
	}
	if p.paged && st.eff.WidenTo > 0 {
		return nil, &config.Error{Key: config.KeyWidenTo, Msg: fmt.Sprintf(
			"is %d and the query pages (offset): pages need one fixed pool; give widenTo: 0 with offset, or raise candidates", st.eff.WidenTo)}
	}
	p.target, p.metric, err = resolveTarget(class, query, st, s.targets)
	if err != nil {
		return nil, err
	}
	p.multiVector = targetIsMultiVector(class, p.target)
	return p, nil
}

// settingsFor merges module defaults, class config and query, and picks the
// text properties.
func (e *engine) settingsFor(class *models.Class, route route, query *config.Overrides) (*settings, error) {
	e.resolutions.Add(1)
	name := routes[route].config
	var classOverrides *config.Overrides
	if raw := classConfig(class, name); raw != nil {
		var err error
		if classOverrides, err = config.Parse(raw, e.defaults.Limits); err != nil {
			return nil, fmt.Errorf("class %s has an invalid %s config: %w", class.Class, name, err)
		}
	}
	if err := checkPolicy(class, route, query); err != nil { // rerank_settings.go
		return nil, err
	}
	eff, err := config.Merge(e.defaults, classOverrides, query)
	if err != nil {
		return nil, err
	}
	s := schemaOf(class)
	if err := config.CheckSchema(query, s); err != nil {
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

// needsVectors reports whether the selection compares the candidates' vectors.
func (s *settings) needsVectors() bool {
	return s.eff.Selector.UsesVectors() || s.eff.DedupThreshold > 0
}

// cachesVectors reports whether the feature cache holds the vector the
// selection compares, so that the search need not load it: a single
// vector (multi-vectors are loaded by the search).
func (p *plan) cachesVectors() bool { return p.needsVectors() && !p.multiVector }

// propertiesToExtract names the properties the selection reads: the pool's
// search loads them when it loads properties (query.go, setSearchLoads).
func (s *settings) propertiesToExtract() []string {
	props := append([]string{}, s.textProps...)
	if s.eff.TokenProperty != "" {
		props = append(props, s.eff.TokenProperty)
	}
	if s.readsSources() {
		props = append(props, s.eff.SourceProperty)
	}
	return append(props, propertyParams(s.eff)...)
}

// readsSources reports whether the selection reads the sourceProperty: set,
// and the strategy reads sources.
func (s *settings) readsSources() bool {
	return s.eff.SourceProperty != "" && s.eff.Selector.Def.NeedsSources
}

// resolveTarget picks the vector compared between candidates and its metric:
// the query's targetVector argument, else the search's target vector, else
// the class's configured targetVector, else the class's only named vector,
// else the legacy vector. A class with several named vectors and no target
// is an error only for a selection that compares vectors.
func resolveTarget(class *models.Class, query *config.Overrides, st *settings, searchTargets []string) (target, metric string, err error) {
	eff := st.eff
	searchTargets = slices.Compact(slices.Sorted(slices.Values(searchTargets)))
	needsVector := st.needsVectors()
	switch {
	case query != nil && query.TargetVector != "":
		target = query.TargetVector
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
func pageOffset(query *config.Overrides, s searchFacts) (offset int, paged bool, err error) {
	if s.offset < 0 {
		return 0, false, &config.Error{Key: config.KeyOffset, Msg: fmt.Sprintf(
			"is %d; allowed: an integer >= 0, the number of results the earlier pages showed", s.offset)}
	}
	if !query.Has(config.KeyOffset) {
		return s.offset, s.paged, nil
	}
	if s.paged && s.offset != query.Offset {
		return 0, false, &config.Error{Key: config.KeyOffset, Msg: fmt.Sprintf(
			"is given twice, %d in the diverse-select settings and %d as the query's offset; give it once", query.Offset, s.offset)}
	}
	return query.Offset, true, nil
}
