package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseConfig(t *testing.T) {
	tests := []struct {
		in       string
		strategy string
		params   map[string]any
		err      bool
	}{
		{"topk", "topk", map[string]any{}, false},
		{"mmr:lambda=0.7", "mmr", map[string]any{"lambda": 0.7}, false},
		{"coverage:center=false,similarityPower=1", "coverage", map[string]any{"center": false, "similarityPower": 1.0}, false},
		{"facility:kernel=euclidean", "facility", map[string]any{"kernel": "euclidean"}, false},
		{"mmr:lambda", "", nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			c, err := parseConfig(tc.in)
			if tc.err {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.in, c.Label)
			assert.Equal(t, tc.strategy, c.Strategy)
			assert.Equal(t, tc.params, c.Params)
		})
	}
}

func TestSplice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "doc.md")
	require.NoError(t, os.WriteFile(path, []byte("intro\n"+libBegin+"\nold\n"+libEnd+"\noutro\n"), 0o644))
	require.NoError(t, splice(path, libBegin, libEnd, "new\n"))
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "intro\n"+libBegin+"\nnew\n"+libEnd+"\noutro\n", string(raw))
	// A document without the markers is an error, not a silent no-op.
	require.NoError(t, os.WriteFile(path, []byte("no markers\n"), 0o644))
	require.Error(t, splice(path, libBegin, libEnd, "x"))
}

func TestOutcomeMeanAndMacro(t *testing.T) {
	// Two PIR tasks' worth of instances: the macro mean weighs tasks equally.
	s := &suite{Name: "PIR", Metrics: []string{mPersp}, Constraints: []constraint{{K: 5}}}
	for _, id := range []string{"perspectrum/0", "perspectrum/1", "perspectrum/2", "agnews/0"} {
		s.Insts = append(s.Insts, &instance{ID: id})
	}
	o := &outcome{vals: [][][]float64{{{1, 1, 0, 0}}}}
	assert.InDelta(t, 0.5, o.mean(s, 0, 0, nil), 1e-12)                       // micro: 2 of 4
	assert.InDelta(t, 2.0/3, o.mean(s, 0, 0, taskKeep("perspectrum")), 1e-12) // 2 of 3
	assert.InDelta(t, (2.0/3+0)/2, macroTasks(s, o, 0, 0, nil, []string{"perspectrum", "agnews"}), 1e-12)
}

func TestTargetFor(t *testing.T) {
	cfgs := []config{{Label: "coverage"}, {Label: "topk"}, {Label: "mmr:lambda=0.7"}}
	tests := []struct {
		target string
		extra  []config
		want   []string
		err    bool
	}{
		{"", nil, []string{"coverage"}, false},
		{"", []config{{Label: "mmr:lambda=0.7"}}, []string{"coverage", "mmr:lambda=0.7"}, false},
		{"topk", nil, []string{"topk"}, false},
		{"nosuch", nil, nil, true}, // an error naming the labels, not a crash later
	}
	for _, tc := range tests {
		got, err := options{target: tc.target, extra: tc.extra}.targetFor(cfgs)
		if tc.err {
			require.Error(t, err)
			assert.Contains(t, err.Error(), "topk")
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, tc.want, got)
	}
}

// TestTargetsOfSomeSuites: -suites runs some suites; the targets are those
// of the suites that ran (it used to read the others and panic).
func TestTargetsOfSomeSuites(t *testing.T) {
	s := &suite{Name: "Perspectrum", Metrics: []string{mCover, mDistract, mOtherTok, mAhead}}
	for _, k := range perspKs {
		s.Constraints = append(s.Constraints, constraint{K: k})
	}
	s.Insts = []*instance{{ID: "0"}}
	r := &results{suites: []*suite{s}, out: map[string]map[string]*outcome{"Perspectrum": {}}}
	for _, label := range []string{"coverage", "topk", "facility"} {
		r.cfgs = append(r.cfgs, config{Label: label})
		vals := make([][][]float64, len(s.Constraints))
		for ci := range vals {
			vals[ci] = [][]float64{{0.8}, {1}, {10}, {0}}
		}
		r.out["Perspectrum"][label] = &outcome{vals: vals}
	}
	got := r.targets("coverage", nil)
	require.Len(t, got, 4+len(perspKs)) // coverage at K = 5 (four rules), distractor tokens at every K
	for _, tg := range got {
		assert.Contains(t, tg.Name, "Perspectrum")
	}
	assert.Empty(t, (&results{}).targets("coverage", nil))
}
