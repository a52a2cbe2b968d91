package config

import (
	"strings"
	"testing"
)

func TestFromEnvCaps(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	for _, tc := range []struct {
		env           map[string]string
		matrix, cache int64 // bytes; -1 = an error naming the variable
	}{
		{nil, 64 << 20, 64 << 20},
		{map[string]string{"DIVERSE_SELECT_MAX_MATRIX_MB": "0"}, 0, 64 << 20},
		{map[string]string{"DIVERSE_SELECT_MAX_MATRIX_MB": "512", "DIVERSE_SELECT_FEATURE_CACHE_MB": "0"}, 512 << 20, 0},
		{map[string]string{"DIVERSE_SELECT_FEATURE_CACHE_MB": " 8 "}, 64 << 20, 8 << 20},
		{map[string]string{"DIVERSE_SELECT_MAX_MATRIX_MB": "-1"}, -1, -1},
		{map[string]string{"DIVERSE_SELECT_MAX_MATRIX_MB": "1.5"}, -1, -1},
		{map[string]string{"DIVERSE_SELECT_FEATURE_CACHE_MB": "lots"}, -1, -1},
		{map[string]string{"DIVERSE_SELECT_FEATURE_CACHE_MB": "99999999"}, -1, -1},
	} {
		m, err := FromEnv(env(tc.env))
		if tc.matrix < 0 {
			if err == nil {
				t.Errorf("%v: no error", tc.env)
				continue
			}
			for k := range tc.env {
				if !strings.Contains(err.Error(), k) {
					t.Errorf("%v: error %q does not name %s", tc.env, err, k)
				}
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tc.env, err)
			continue
		}
		if m.MaxMatrixBytes() != tc.matrix || m.FeatureCacheBytes() != tc.cache {
			t.Errorf("%v: matrix %d cache %d, want %d %d", tc.env, m.MaxMatrixBytes(), m.FeatureCacheBytes(), tc.matrix, tc.cache)
		}
	}
	for _, name := range []string{"DIVERSE_SELECT_MAX_MATRIX_MB", "DIVERSE_SELECT_FEATURE_CACHE_MB"} {
		found := false
		for _, e := range Env {
			found = found || e.Name == name
		}
		if !found {
			t.Errorf("%s is not documented in Env", name)
		}
	}
}
