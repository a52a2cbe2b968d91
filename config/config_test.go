package config

import (
	"encoding/json"
	"testing"

	_ "github.com/diverse-select/diverse-select/selectors/all"
)

// Weaviate's REST handler decodes a new class's moduleConfig with UseNumber
// and runs module validation before it converts the numbers: ValidateClass
// must accept json.Number for ints, floats and strategy parameters.
func TestValidateClassAcceptsJSONNumbers(t *testing.T) {
	m, err := FromEnv(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	s := Schema{Properties: map[string]string{"body": "text"}}
	raw := map[string]any{
		KeyStrategy:       "mmr",
		KeyTokenBudget:    json.Number("100"),
		KeyCandidates:     json.Number("40"),
		KeyDedupThreshold: json.Number("0.95"),
		"lambda":          json.Number("0.3"),
		KeyTextProperty:   "body",
	}
	if err := ValidateClass(raw, m, s); err != nil {
		t.Fatalf("ValidateClass with json.Number values: %v", err)
	}
	o, err := Parse(raw, m.MaxCandidates)
	if err != nil {
		t.Fatal(err)
	}
	if *o.TokenBudget != 100 || *o.Candidates != 40 || *o.DedupThreshold != 0.95 || o.Params["lambda"] != 0.3 {
		t.Fatalf("parsed %+v, params %v", o, o.Params)
	}
	raw[KeyTokenBudget] = json.Number("-1")
	if err := ValidateClass(raw, m, s); err == nil {
		t.Fatal("tokenBudget -1 as json.Number accepted")
	}
	raw[KeyTokenBudget] = json.Number("1e999")
	if err := ValidateClass(raw, m, s); err == nil {
		t.Fatal("tokenBudget 1e999 accepted")
	}
}
