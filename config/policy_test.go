package config

import (
	"strings"
	"testing"
)

// TestValidateClassPolicy: the query policy keys are class settings,
// validated with the class's other keys.
func TestValidateClassPolicy(t *testing.T) {
	m := Module{Settings: Settings{Strategy: "topk", Candidates: 50}, Limits: Limits{MaxCandidates: 1000}}
	for _, tc := range []struct {
		raw     map[string]any
		wantErr string
	}{
		{map[string]any{"querySettings": "off", "rerankQuerySyntax": true, "maxQueryTokenBudget": 500, "maxQueryCandidates": 100, "maxQueryWidenTo": 200}, ""},
		{map[string]any{"querySettings": "sometimes"}, `"querySettings" is sometimes; allowed: on, off`},
		{map[string]any{"rerankQuerySyntax": "yes"}, `"rerankQuerySyntax" is yes; allowed: true, false`},
		{map[string]any{"maxQueryTokenBudget": -1}, `"maxQueryTokenBudget" must be an integer in [0, 2147483647] (0 = no cap), got -1`},
		{map[string]any{"maxQueryWidenTo": 1.5}, `"maxQueryWidenTo" must be an integer`},
	} {
		err := ValidateClass(tc.raw, m, Schema{})
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("%v: error %v, want %q", tc.raw, err, tc.wantErr)
		}
	}
}
