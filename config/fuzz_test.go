package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/diverse-select/diverse-select/selectors"
)

// fuzzSchema is the class the config fuzz targets validate against.
var fuzzSchema = Schema{
	Properties:   map[string]string{"body": "text", "title": "text", "tags": "text[]", "ntok": "int", "url": "text"},
	NamedVectors: []string{"a", "b"},
}

// decodeObject decodes data as a JSON object the way Weaviate's REST handler
// decodes a moduleConfig (UseNumber); false when it is not one.
func decodeObject(data []byte) (map[string]any, bool) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var raw map[string]any
	if d.Decode(&raw) != nil || raw == nil {
		return nil, false
	}
	return raw, true
}

// seedObjects adds the JSON object seeds to f and returns the module
// defaults (empty environment) the targets parse and merge with.
func seedObjects(f *testing.F, seeds ...string) Module {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	m, err := FromEnv(func(string) string { return "" })
	if err != nil {
		f.Fatal(err)
	}
	return m
}

// checkConfigError asserts a refusal is a named configuration error: a user
// must learn which key is at fault.
func checkConfigError(t *testing.T, raw map[string]any, err error) {
	t.Helper()
	if ce, se := (*Error)(nil), (*StrategyError)(nil); !errors.As(err, &ce) && !errors.As(err, &se) {
		t.Fatalf("error %q is neither a *config.Error nor a *config.StrategyError (input %v)", err, raw)
	}
	var ce *Error
	if errors.As(err, &ce) {
		if _, given := raw[ce.Key]; !given && ce.Key != "" && !strings.Contains(err.Error(), ce.Key) {
			t.Fatalf("error names key %q, which the input lacks and the message omits: %q", ce.Key, err)
		}
	}
}

// checkEffective asserts what every accepted configuration satisfies.
func checkEffective(t *testing.T, m Module, e *Effective) {
	t.Helper()
	if e.Selector == nil {
		t.Fatal("accepted without a strategy")
	}
	if e.TokenBudget < 0 || e.TokenBudget > MaxTokenBudget {
		t.Fatalf("tokenBudget %d out of range", e.TokenBudget)
	}
	if e.Candidates < 1 || e.Candidates > m.MaxCandidates {
		t.Fatalf("candidates %d outside [1, %d]", e.Candidates, m.MaxCandidates)
	}
	if e.MaxResults < 0 || e.MaxResults > selectors.MaxCandidates {
		t.Fatalf("maxResults %d out of range", e.MaxResults)
	}
	if e.DedupThreshold < 0 || e.DedupThreshold > 1 || e.DedupThreshold != e.DedupThreshold {
		t.Fatalf("dedupThreshold %v out of range", e.DedupThreshold)
	}
	if !contains(orderNames(), string(e.Order)) {
		t.Fatalf("order %q accepted", e.Order)
	}
}

// FuzzParse: any JSON object as query arguments either parses into a
// configuration that merges within every range, or is refused with an error
// naming the key; never a panic.
func FuzzParse(f *testing.F) {
	m := seedObjects(f,
		`{}`, `{"strategy":"mmr","lambda":0.5,"tokenBudget":500}`, `{"tokenBudget":9223372036854775807}`,
		`{"tokenBudget":-1}`, `{"tokenBudget":1e308}`, `{"candidates":2001}`, `{"candidates":0.5}`,
		`{"strategy":"knapsack","concepts":"ngrams","tokenizer":"words"}`, `{"dedupThreshold":0}`,
		`{"dedupThreshold":"0.5"}`, `{"order":"edges","maxResults":3}`, `{"extraTextProperties":["title",1]}`,
		`{"strategy":"adagres","betaMax":1e400}`, `{"strategy":null,"query":""}`, `{"lambda":[1,2]}`,
		`{"strategy":"facility","unknownKey":{"nested":true}}`, `{"tokenizer":"gpt2"}`, `{"strategy":"cliff","g":-1}`,
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		raw, ok := decodeObject(data)
		if !ok {
			return
		}
		o, err := Parse(raw, m.Limits)
		if err != nil {
			checkConfigError(t, raw, err)
			return
		}
		if err := CheckSchema(o, fuzzSchema); err != nil {
			checkConfigError(t, raw, err)
			return
		}
		e, err := Merge(m, nil, o)
		if err != nil {
			checkConfigError(t, raw, err)
			return
		}
		checkEffective(t, m, e)
	})
}

// FuzzValidateClass: a class config either validates and then merges with
// any query, or is refused with a named error.
func FuzzValidateClass(f *testing.F) {
	m := seedObjects(f,
		`{}`, `{"strategy":"coverage","tokenBudget":800,"textProperty":"body"}`, `{"query":"x"}`,
		`{"tokenProperty":"body"}`, `{"tokenProperty":"ntok","sourceProperty":"url","strategy":"ngram"}`,
		`{"targetVector":"c"}`, `{"targetVector":"a","strategy":"dpp"}`, `{"candidates":1e9}`,
		`{"extraTextProperties":["tags"],"textProperty":"title"}`, `{"strategy":"mmr","lambda":"x"}`,
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		raw, ok := decodeObject(data)
		if !ok {
			return
		}
		if err := ValidateClass(raw, m, fuzzSchema); err != nil {
			checkConfigError(t, raw, err)
			return
		}
		class, err := Parse(raw, m.Limits)
		if err != nil {
			t.Fatalf("ValidateClass accepted what Parse refuses: %v", err)
		}
		topk, err := Parse(map[string]any{KeyStrategy: "topk"}, m.Limits)
		if err != nil {
			t.Fatal(err)
		}
		e, err := Merge(m, class, topk)
		if err != nil {
			t.Fatalf("a valid class config does not merge with a query switching strategy: %v", err)
		}
		checkEffective(t, m, e)
	})
}

// FuzzFromEnv: any environment either gives module defaults within their
// ranges or an error naming the variable; never a panic.
func FuzzFromEnv(f *testing.F) {
	f.Add("", "", "", "", "", "", "", "")
	f.Add("mmr", "500", "100", "2000", "words", "64", "0", "10s")
	f.Add("nope", "-1", "0", "1", "gpt2", "x", "99999999999999999999", "-5s")
	f.Add("topk", "1073741825", "3000", "2000", "chars", "1048577", "1", "2h")
	f.Add("coverage", " 7 ", "50", "50", "o200k_base", "0", "64", "0")
	f.Fuzz(func(t *testing.T, strategy, budget, cands, maxCands, tokenizer, matrix, cache, selectTime string) {
		env := map[string]string{
			"DIVERSE_SELECT_STRATEGY": strategy, "DIVERSE_SELECT_TOKEN_BUDGET": budget,
			"DIVERSE_SELECT_CANDIDATES": cands, "DIVERSE_SELECT_MAX_CANDIDATES": maxCands,
			"DIVERSE_SELECT_TOKENIZER": tokenizer, "DIVERSE_SELECT_MAX_MATRIX_MB": matrix,
			"DIVERSE_SELECT_FEATURE_CACHE_MB": cache, "DIVERSE_SELECT_MAX_SELECT_TIME": selectTime,
		}
		m, err := FromEnv(func(k string) string { return env[k] })
		if err != nil {
			if ee := (*EnvError)(nil); !errors.As(err, &ee) || !strings.HasPrefix(err.Error(), ee.Var+"=") || env[ee.Var] == "" && ee.Var != "DIVERSE_SELECT_CANDIDATES" {
				t.Fatalf("error %q does not name a variable that was set", err)
			}
			return
		}
		if m.Candidates < 1 || m.Candidates > m.MaxCandidates || m.MaxCandidates > selectors.MaxCandidates ||
			m.TokenBudget < 0 || m.TokenBudget > MaxTokenBudget || m.MaxMatrixMB < 0 || m.FeatureCacheMB < 0 ||
			m.MaxSelectTime < 0 || m.MaxSelectTime > MaxSelectTimeLimit {
			t.Fatalf("accepted out-of-range defaults %+v", m)
		}
		if _, err := Merge(m, nil, nil); err != nil {
			t.Fatalf("accepted defaults do not merge: %v", err)
		}
	})
}
