package config

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
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
	o, err := Parse(raw, m.Limits)
	if err != nil {
		t.Fatal(err)
	}
	if o.TokenBudget != 100 || o.Candidates != 40 || o.DedupThreshold != 0.95 || o.Params["lambda"] != 0.3 {
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

// TestTypedErrors: callers tell errors apart with errors.As, not by their
// text, and no error of this package names the module (the module does,
// where its errors leave it).
func TestTypedErrors(t *testing.T) {
	m, err := FromEnv(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	_, parseErr := Parse(map[string]any{KeyOrder: "random"}, m.Limits)
	unknown, _ := Parse(map[string]any{KeyStrategy: "topk", "lambda": 0.5}, m.Limits)
	_, unknownErr := Merge(m, nil, unknown)
	_, envErr := FromEnv(func(k string) string { return map[string]string{"DIVERSE_SELECT_MAX_MATRIX_MB": "x"}[k] })
	_, pluginErr := PluginsFromEnv(func(k string) string { return map[string]string{"DIVERSE_SELECT_PLUGIN_TIMEOUT": "x"}[k] })
	names := func(err error) string { // the key or variable a typed error names
		var ce *Error
		var ee *EnvError
		switch {
		case errors.As(err, &ce):
			return ce.Key
		case errors.As(err, &ee):
			return ee.Var
		}
		return "(untyped)"
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{parseErr, KeyOrder},
		{unknownErr, "lambda"},
		{envErr, "DIVERSE_SELECT_MAX_MATRIX_MB"},
		{pluginErr, "DIVERSE_SELECT_PLUGIN_TIMEOUT"},
	} {
		if tc.err == nil || names(tc.err) != tc.want {
			t.Errorf("%v: names %q, want a typed error naming %q", tc.err, names(tc.err), tc.want)
			continue
		}
		if strings.Contains(tc.err.Error(), "diverseSelect") {
			t.Errorf("%v: names the module", tc.err)
		}
	}
}

func TestSegmentFromEnv(t *testing.T) {
	for _, tc := range []struct {
		env     map[string]string
		want    []SegmentEncoder
		texts   int
		wantErr string
	}{
		{env: nil, texts: 64},
		{env: map[string]string{"DIVERSE_SELECT_SEGMENT_ENCODERS": "glove-sif=http://127.0.0.1:8090, minilm-l6=https://e:1/x"},
			want: []SegmentEncoder{{"glove-sif", "http://127.0.0.1:8090"}, {"minilm-l6", "https://e:1/x"}}, texts: 64},
		{env: map[string]string{"DIVERSE_SELECT_SEGMENT_MAX_TEXTS": "3"}, texts: 3},
		{env: map[string]string{"DIVERSE_SELECT_SEGMENT_ENCODERS": "http://x"}, wantErr: "DIVERSE_SELECT_SEGMENT_ENCODERS"},
		{env: map[string]string{"DIVERSE_SELECT_SEGMENT_ENCODERS": "a=ftp://x"}, wantErr: "name=http"},
		{env: map[string]string{"DIVERSE_SELECT_SEGMENT_ENCODERS": "a=http://x,a=http://y"}, wantErr: "twice"},
		{env: map[string]string{"DIVERSE_SELECT_SEGMENT_MAX_BYTES": "0"}, wantErr: "DIVERSE_SELECT_SEGMENT_MAX_BYTES"},
	} {
		s, err := SegmentFromEnv(func(k string) string { return tc.env[k] })
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%v: error %v, want one naming %q", tc.env, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(s.Encoders, tc.want) || s.MaxTexts != tc.texts || s.MaxBytes != 1<<20 {
			t.Errorf("%v: %+v, %v", tc.env, s, err)
		}
	}
}
