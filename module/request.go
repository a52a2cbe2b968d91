package diverseselect

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tailor-platform/graphql/language/ast"
	"github.com/weaviate/weaviate/entities/additional"
	"github.com/weaviate/weaviate/entities/filters"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/modelsext"
	schemaConfig "github.com/weaviate/weaviate/entities/schema/config"

	"github.com/diverse-select/diverse-select/config"
)

// form tells the two query forms apart.
type form int

const (
	formArgument form = iota // top-level diverseSelect: {...}
	formField                // _additional { diverseSelect(...) }
)

// relevanceSource is where a candidate's relevance comes from.
type relevanceSource int

const (
	fromDistance relevanceSource = iota // nearText, nearVector, nearObject, ...
	fromScore                           // bm25, hybrid: min-max normalised over the pool
	fromOrder                           // plain Get: 1 - rank/N
)

// Request is one query's diverse-select parameters. Weaviate carries it from
// argument extraction through PreparePostProcess (the route patch) to the
// result hook. A parse error is kept and reported by PreparePostProcess,
// because Weaviate's extractors cannot return errors.
type Request struct {
	m       *Module
	form    form
	query   *config.Overrides
	err     error
	hasArgs bool // the _additional field was given arguments
	// cfgName is the moduleConfig key of the class config: Name, or
	// RerankerName for the gRPC rerank route ("" means Name).
	cfgName string

	// Set by prepare.
	prepared  bool
	className string
	tenant    string
	eff       *config.Effective
	limit     int // top-level form: the query limit, the most items returned (0 = none)
	source    relevanceSource
	metric    string
	target    string // named vector, "" for the legacy vector
	textProps []string
	queryText string
}

// parseArgument parses the top-level argument (GraphQL variables are
// already resolved into values here).
func (m *Module) parseArgument(raw map[string]any) *Request {
	r := &Request{m: m, form: formArgument}
	r.query, r.err = config.Parse(raw, m.defaults.MaxCandidates)
	return r
}

// parseField parses _additional { diverseSelect(...) } from the raw AST.
func (m *Module) parseField(args []*ast.Argument, class *models.Class) *Request {
	r := &Request{m: m, form: formField, hasArgs: len(args) > 0}
	raw := map[string]any{}
	for _, a := range args {
		v, err := astValue(a.Name.Value, a.Value)
		if err != nil {
			r.err = err
			return r
		}
		raw[a.Name.Value] = v
	}
	r.query, r.err = config.Parse(raw, m.defaults.MaxCandidates)
	if r.err == nil && class != nil {
		// Weaviate asks for the properties to load right after extraction.
		r.err = r.resolveClass(class)
	}
	return r
}

// astValue turns a GraphQL literal into the value config.Parse expects.
func astValue(name string, v ast.Value) (any, error) {
	switch x := v.(type) {
	case *ast.StringValue:
		return x.Value, nil
	case *ast.EnumValue:
		return x.Value, nil
	case *ast.BooleanValue:
		return x.Value, nil
	case *ast.IntValue:
		n, err := strconv.ParseInt(x.Value, 10, 64)
		if err != nil {
			return nil, &config.Error{Key: name, Msg: fmt.Sprintf("is %s, not a 64-bit integer", x.Value)}
		}
		return n, nil
	case *ast.FloatValue:
		f, err := strconv.ParseFloat(x.Value, 64)
		if err != nil {
			return nil, &config.Error{Key: name, Msg: fmt.Sprintf("is %s, not a number", x.Value)}
		}
		return f, nil
	case *ast.ListValue:
		out := make([]any, len(x.Values))
		for i, e := range x.Values {
			ev, err := astValue(name, e)
			if err != nil {
				return nil, err
			}
			out[i] = ev
		}
		return out, nil
	case *ast.Variable:
		return nil, &config.Error{Key: name, Msg: "is a variable; _additional { diverseSelect(...) } takes literal values only " +
			"(Weaviate passes this field's raw syntax): use literals, or the top-level diverseSelect argument, which supports variables"}
	}
	return nil, &config.Error{Key: name, Msg: fmt.Sprintf("has an unsupported value of kind %s", v.GetKind())}
}

// HasArguments reports whether this is the _additional field with arguments:
// the route patch refuses a query that also gives the top-level argument,
// which would otherwise replace them silently.
func (r *Request) HasArguments() bool { return r.form == formField && r.hasArgs }

// propertiesToExtract names the properties the selection reads, so
// Weaviate loads them even when the query does not select them.
func (r *Request) propertiesToExtract() []string {
	if r.eff == nil {
		return nil
	}
	props := append([]string{}, r.textProps...)
	for _, p := range []string{r.eff.TokenProperty, r.eff.SourceProperty} {
		if p != "" {
			props = append(props, p)
		}
	}
	return append(props, propertyParams(r.eff)...)
}

// preparePostProcess is called by the route patch in Weaviate's Get resolver
// before the search runs: it merges the configuration, rejects what the
// selection cannot honour, widens the search to the candidate pool (top-level
// form) and asks for the vectors the strategy needs (PreparePostProcess
// counts its refusals).
func (r *Request) preparePostProcess(className, tenant string, args map[string]any,
	pagination *filters.Pagination, addl *additional.Properties,
) (*filters.Pagination, error) {
	if r.err != nil {
		return nil, r.err
	}
	class := r.m.classByName(className)
	if class == nil {
		return nil, fmt.Errorf("class %q not found", className)
	}
	if err := r.resolveClass(class); err != nil {
		return nil, err
	}
	r.tenant = tenant
	for _, unsupported := range []string{"groupBy", "after"} {
		if _, ok := args[unsupported]; ok {
			return nil, &markedError{mark: errRefused, err: fmt.Errorf("cannot be combined with %s: "+
				"selection works on one flat candidate list", unsupported)}
		}
	}
	if pagination != nil && pagination.Offset != 0 {
		return nil, &markedError{mark: errRefused, err: fmt.Errorf("cannot be combined with offset (got %d): "+
			"a selection is a set, not a page of a ranking; to get more results raise tokenBudget, maxResults or limit",
			pagination.Offset)}
	}
	r.source, r.queryText = searchKind(args)
	if r.eff.Query != "" {
		r.queryText = r.eff.Query
	}
	if err := r.resolveTarget(class, args); err != nil {
		return nil, err
	}
	if r.eff.Selector.UsesVectors() || r.eff.DedupThreshold > 0 {
		if r.target == "" {
			addl.Vector = true
		} else if !contains(addl.Vectors, r.target) {
			addl.Vectors = append(addl.Vectors, r.target)
		}
	}
	r.prepared = true
	if r.form == formField {
		if pagination != nil && pagination.Limit > r.m.defaults.MaxCandidates {
			return nil, candidateCapError(pagination.Limit, r.m.defaults.MaxCandidates) // before the search runs
		}
		return pagination, nil
	}
	// Top-level form: the query limit caps the output, candidates is the pool.
	out := &filters.Pagination{Limit: r.eff.Candidates}
	if pagination != nil {
		out.Autocut = pagination.Autocut
		if pagination.Limit > 0 {
			r.limit = pagination.Limit
		}
	}
	return out, nil
}

// configName is the moduleConfig key this request reads the class config from.
func (r *Request) configName() string {
	if r.cfgName != "" {
		return r.cfgName
	}
	return Name
}

// resolveClass merges module defaults, class config and query, and picks the
// text properties.
func (r *Request) resolveClass(class *models.Class) error {
	r.className = class.Class
	var classOverrides *config.Overrides
	if raw := classConfigOf(class, r.configName()); raw != nil {
		var err error
		if classOverrides, err = config.Parse(raw, r.m.defaults.MaxCandidates); err != nil {
			return fmt.Errorf("class %s has an invalid %s config: %w", class.Class, r.configName(), err)
		}
	}
	eff, err := config.Merge(r.m.defaults, classOverrides, r.query)
	if err != nil {
		return err
	}
	s := schemaOf(class)
	if err := config.CheckSchema(r.query, s); err != nil {
		return err
	}
	if err := checkPropertyParams(eff, s); err != nil {
		return err
	}
	r.eff = eff
	r.textProps = nil
	if eff.TextProperty != "" {
		r.textProps = append([]string{eff.TextProperty}, eff.ExtraTextProperties...)
	} else {
		// Default: every text property, in schema order - the chunk as a whole.
		for _, p := range class.Properties {
			if len(p.DataType) == 1 && (p.DataType[0] == "text" || p.DataType[0] == "text[]") {
				r.textProps = append(r.textProps, p.Name)
			}
		}
	}
	return nil
}

// searchKind tells where relevance comes from and finds the query text.
func searchKind(args map[string]any) (relevanceSource, string) {
	if a, ok := args["hybrid"].(map[string]any); ok {
		q, _ := a["query"].(string)
		return fromScore, q
	}
	if a, ok := args["bm25"].(map[string]any); ok {
		q, _ := a["query"].(string)
		return fromScore, q
	}
	for name, v := range args {
		if !strings.HasPrefix(name, "near") {
			continue
		}
		if name == "nearText" {
			if a, ok := v.(map[string]any); ok {
				return fromDistance, strings.Join(stringList(a["concepts"]), " ")
			}
		}
		return fromDistance, ""
	}
	return fromOrder, ""
}

// resolveTarget picks the vector compared between candidates and its metric:
// the query's targetVector argument, else the search's target vector, else
// the class's configured targetVector, else the class's only named vector,
// else the legacy vector. A class with several named vectors and no target
// is an error only for a selection that compares vectors.
func (r *Request) resolveTarget(class *models.Class, args map[string]any) error {
	var searchTargets []string
	for name, v := range args {
		if a, ok := v.(map[string]any); ok && (strings.HasPrefix(name, "near") || name == "hybrid") {
			searchTargets = append(searchTargets, stringList(a["targetVectors"])...)
		}
	}
	sort.Strings(searchTargets)
	searchTargets = dedupStrings(searchTargets)
	needsVector := r.eff.Selector.UsesVectors() || r.eff.DedupThreshold > 0
	r.target = ""
	switch {
	case r.query != nil && r.query.TargetVector != "":
		r.target = r.query.TargetVector
	case len(searchTargets) == 1:
		r.target = searchTargets[0]
	case len(searchTargets) > 1 && contains(searchTargets, r.eff.TargetVector):
		r.target = r.eff.TargetVector
	case len(searchTargets) > 1:
		if needsVector {
			return &config.Error{Key: config.KeyTargetVector, Msg: fmt.Sprintf(
				"must be set when the search targets several vectors (%s): diverse selection compares candidates on one vector",
				strings.Join(searchTargets, ", "))}
		}
		r.target = searchTargets[0] // only the metric is read
	case r.eff.TargetVector != "":
		r.target = r.eff.TargetVector
	case len(class.VectorConfig) == 1 && !modelsext.ClassHasLegacyVectorIndex(class):
		for name := range class.VectorConfig {
			r.target = name
		}
	case len(class.VectorConfig) > 1 && !modelsext.ClassHasLegacyVectorIndex(class):
		if !needsVector {
			r.metric = "cosine"
			return nil // the selection reads no vector; relevance needs no metric without a search vector
		}
		names := schemaOf(class).NamedVectors
		sort.Strings(names)
		return &config.Error{Key: config.KeyTargetVector, Msg: fmt.Sprintf(
			"must be set: class %s has several named vectors (%s) and the search names none", class.Class, strings.Join(names, ", "))}
	}
	vc, ok := modelsext.ClassGetVectorConfig(class, r.target)
	if r.target != "" && !ok {
		names := schemaOf(class).NamedVectors
		sort.Strings(names)
		return &config.Error{Key: config.KeyTargetVector, Msg: fmt.Sprintf("names %q, which is not a named vector of class %s; named vectors: %s",
			r.target, class.Class, strings.Join(names, ", "))}
	}
	r.metric = "cosine"
	switch ic := vc.VectorIndexConfig.(type) {
	case schemaConfig.VectorIndexConfig:
		if ic.IsMultiVector() && needsVector {
			return &config.Error{Key: config.KeyTargetVector, Msg: fmt.Sprintf(
				"%q is a multi-vector; diverse selection needs one vector per object: choose another targetVector", r.target)}
		}
		if d := ic.DistanceName(); d != "" {
			r.metric = d
		}
	case map[string]any:
		if d, ok := ic["distance"].(string); ok && d != "" {
			r.metric = d
		}
	}
	return nil
}

func stringList(v any) []string {
	switch x := v.(type) {
	case []string:
		return x
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	case string:
		return []string{x}
	}
	return nil
}

func dedupStrings(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

func contains(s []string, v string) bool {
	for _, e := range s {
		if e == v {
			return true
		}
	}
	return false
}
