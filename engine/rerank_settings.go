package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/weaviate/weaviate/entities/models"

	"github.com/diverse-select/diverse-select/config"
)

// Per-query settings on the rerank route, where only the application
// writes them. A gRPC search carries rerank {property, query}: the query is
// often the end user's question, the property never is. The client helpers
// (clients/) therefore send the settings in the rerank property, after the
// property name, in a versioned form the query text cannot reach:
//
//	body|diverseSelect.v1|{"strategy":"mmr","tokenBudget":60,"lambda":0.7}
//
// A property name has no "|" (Weaviate's names are letters, digits and _),
// so a property without one is a plain property. The JSON object holds the
// keys of config.Keys and strategy parameters, is read under a size limit
// checked before decoding, and is validated by config.Parse as the GraphQL
// arguments are. The rerank query is then plain text, never parsed - unless
// the collection opts in to the older in-text form with
// rerankQuerySyntax: true (rerank_syntax.go).
const (
	// RerankSettingsSeparator separates the property, the form's version
	// and the settings.
	RerankSettingsSeparator = "|"
	// RerankSettingsVersion names the form this server reads.
	RerankSettingsVersion = "diverseSelect.v1"
	// MaxRerankSettingsBytes bounds the rerank property with its settings:
	// every key with a long value fits in a fraction of it.
	MaxRerankSettingsBytes = 4096
)

// rerankPropertyKey names the rerank property in errors.
const rerankPropertyKey = "rerank property"

// parseRerankProperty splits a rerank property into the property name and
// the settings it carries (nil: none).
func parseRerankProperty(property string) (string, map[string]any, error) {
	if len(property) > MaxRerankSettingsBytes {
		return "", nil, &config.Error{Key: rerankPropertyKey, Msg: fmt.Sprintf(
			"is %d bytes; allowed: at most %d bytes (the property name and its %s settings)",
			len(property), MaxRerankSettingsBytes, RerankSettingsVersion)}
	}
	name, rest, found := strings.Cut(property, RerankSettingsSeparator)
	if !found {
		return property, nil, nil
	}
	version, body, found := strings.Cut(rest, RerankSettingsSeparator)
	if !found || version != RerankSettingsVersion {
		return "", nil, &config.Error{Key: rerankPropertyKey, Msg: fmt.Sprintf(
			"carries settings in form %q; this server reads %s: property%s%s%s{json object}",
			version, RerankSettingsVersion, RerankSettingsSeparator, RerankSettingsVersion, RerankSettingsSeparator)}
	}
	raw, err := decodeSettings(body)
	if err != nil {
		return "", nil, err
	}
	for name := range raw {
		if err := rerankKeyAllowed(name); err != nil {
			return "", nil, err
		}
	}
	return name, raw, nil
}

// decodeSettings reads one JSON object, refusing a key given twice (the
// standard decoder keeps the last) and anything after the object.
func decodeSettings(body string) (map[string]any, error) {
	bad := func(why string) error {
		return &config.Error{Key: rerankPropertyKey, Msg: fmt.Sprintf("has %s settings that are not a JSON object (%s); "+
			`write body|%s|{"strategy":"mmr","tokenBudget":300}`, RerankSettingsVersion, why, RerankSettingsVersion)}
	}
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, bad("it does not start with {")
	}
	raw := map[string]any{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, bad(err.Error())
		}
		key, _ := tok.(string)
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, bad(err.Error())
		}
		if _, dup := raw[key]; dup {
			return nil, &config.Error{Key: key, Msg: "is given twice in the rerank settings"}
		}
		raw[key] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, bad(err.Error())
	}
	if rest := bytes.TrimSpace(readRest(dec)); len(rest) > 0 {
		return nil, bad("text after the object")
	}
	return raw, nil
}

func readRest(dec *json.Decoder) []byte {
	var b bytes.Buffer
	_, _ = b.ReadFrom(dec.Buffered())
	return b.Bytes()
}

// rerankKeyAllowed refuses the keys the rerank route sets itself, and the
// collection's policy keys.
func rerankKeyAllowed(name string) error {
	switch {
	case name == config.KeyCandidates:
		return &config.Error{Key: name, Msg: "does not apply on the rerank route: the query limit is the candidate pool"}
	case name == config.KeyTextProperty || name == config.KeyQuery:
		return &config.Error{Key: name, Msg: "is not a setting of the rerank query: " +
			"the rerank property is the text property and the rerank query the query text"}
	case config.IsPolicyKey(name):
		return &config.Error{Key: name, Msg: "is a collection setting, not a query's"}
	}
	return nil
}

// rerankRequest reads a rerank call: the settings (nil: none), the text
// property and the query text. The settings come from the property; from
// the start of the query only on a collection that opts in
// (rerankQuerySyntax), else the query is all text.
func (e *Engine) rerankRequest(class *models.Class, property, rerankQuery string) (map[string]any, string, string, error) {
	name, raw, err := parseRerankProperty(property)
	if err != nil {
		return nil, "", "", err
	}
	policy, err := classPolicy(class, RerankerName)
	if err != nil {
		return nil, "", "", err
	}
	if !policy.RerankQuerySyntax {
		return raw, name, rerankQuery, nil
	}
	inText, text, err := parseRerankQuery(rerankQuery, e.defaults.Limits) // bounded, keys checked: rerank_syntax.go
	if err != nil {
		return nil, "", "", err
	}
	if inText != nil && raw != nil {
		return nil, "", "", &config.Error{Key: rerankSettingsKey, Msg: "starts with settings and the rerank property carries " +
			"settings too: give them in one place (the property)"}
	}
	if raw == nil {
		raw = inText
	}
	return raw, name, text, nil
}

// classPolicy is the query policy in class's moduleConfig[name].
func classPolicy(class *models.Class, name string) (config.Policy, error) {
	setting := "moduleConfig[" + strconv.Quote(name) + "]" // as %q, without fmt: three times a query
	raw := classConfig(class, name)
	if raw == nil {
		return config.Policy{Setting: setting}, nil
	}
	p, err := config.ParsePolicy(raw, setting)
	if err != nil {
		return p, fmt.Errorf("class %s has an invalid %s config: %w", class.Class, name, err)
	}
	return p, nil
}

// checkPolicy applies the class's query policy of route to a query's
// settings.
func checkPolicy(class *models.Class, name string, overrides *config.Overrides) error {
	p, err := classPolicy(class, name)
	if err != nil {
		return err
	}
	return p.CheckQuery(overrides)
}

// checkPoolPolicy applies the class's cap on the pool to a route's pool
// (the query limit on the field form and the rerank route).
func checkPoolPolicy(class *models.Class, name string, pool int) error {
	p, err := classPolicy(class, name)
	if err != nil {
		return err
	}
	return p.CheckPool("limit", pool)
}

// ExplainPrefix starts the explainScore line of a selected object that
// holds its explanation as JSON on the rerank route (gRPC replies have no
// other per-object field for it): the same names as GraphQL's
// _additional { diverseSelect { ... } }.
const ExplainPrefix = "diverseSelect.v1 "

// explainFields are the explanation's fields in the explainScore line.
var explainFields = []string{"rank", "gain", "relevance", "relevanceSource", "redundancy", "tokens", "tokensUsed",
	"budget", "stopReason", "tokensLeft", "strategy", "candidates", "selected", "offset", "exhausted"}

// explainLine is the explainScore line of one selected object's explanation.
func explainLine(ex map[string]any) string {
	out := make(map[string]any, len(explainFields))
	for _, k := range explainFields {
		v, ok := ex[k]
		if !ok {
			continue
		}
		if b, isPtr := v.(*bool); isPtr {
			if b == nil {
				continue
			}
			v = *b
		}
		if f, isPtr := v.(*float64); isPtr {
			if f == nil {
				continue
			}
			v = *f
		}
		if v != nil {
			out[k] = v
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return ExplainPrefix + "{}"
	}
	return ExplainPrefix + string(b)
}
